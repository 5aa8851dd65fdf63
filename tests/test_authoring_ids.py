"""Row ids are stable and recorded: inserting a row renumbers nothing; a case whose row was renamed
fails through the real `workbench` command with one line naming the row as it was and the closest ids."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from authoring_support import PLUGIN

WORKBENCH = Path(sys.executable).with_name("workbench")


def workbench(cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "WORKBENCH_DEBUG"}
    return subprocess.run([str(WORKBENCH), *argv], cwd=cwd, env=env, capture_output=True, text=True, check=False)


def row_ids(ws: Path) -> dict[str, str]:
    out = workbench(ws, "rows", "--json")
    assert out.returncode == 0, out.stderr
    return {r["id"]: r["trigger"] for r in json.loads(out.stdout)}


def test_inserted_row_keeps_ids_and_renamed_row_fails_its_case_loudly(tmp_path: Path) -> None:
    shutil.copytree(PLUGIN, tmp_path / "plugin")
    (tmp_path / "workbench.toml").write_text('[plugin]\npath = "plugin"\n')
    skill = tmp_path / "plugin/skills/ops/SKILL.md"
    before = row_ids(tmp_path)

    made = workbench(tmp_path, "case", "new", "--template", "commit", "--row", "commit", "--prompt", "Fix and commit.")
    assert made.returncode == 0, made.stderr
    recorded = (tmp_path / "workbench.toml").read_text()
    assert '[rows]\n"ops/commit" = "Before committing -> workflows/commit.md"\n' in recorded

    text = skill.read_text()
    skill.write_text(text.replace("| Before committing |", "| Before rebasing a branch | [rebase](workflows/rebase.md) |\n"
                                                          "| Before committing |", 1))
    (tmp_path / "plugin/skills/ops/workflows/rebase.md").write_text("# Rebase\n")
    after = row_ids(tmp_path)
    assert set(after) == set(before) | {"ops/rebase"}, "inserting a row above renumbers nothing"
    assert workbench(tmp_path, "case", "check").returncode == 0

    skill.write_text(skill.read_text().replace("(workflows/commit.md)", "(workflows/committing.md)"))
    (tmp_path / "plugin/skills/ops/workflows/commit.md").rename(tmp_path / "plugin/skills/ops/workflows/committing.md")
    failed = workbench(tmp_path, "case", "check")
    assert failed.returncode == 2 and failed.stdout == ""
    lines = failed.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in failed.stderr
    line = lines[0]
    assert "cases/commit-commit.toml:3: target: no routing row 'ops/commit'" in line
    assert "closest: ops/committing" in line and "it said: 'Before committing -> workflows/commit.md'" in line
