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


MARKETPLACE = Path(__file__).resolve().parent / "data" / "corpus" / "marketplace"
MARKET_IDS = {
    "sheets:deck/description": "plugins/sheets/skills/deck/SKILL.md:3",
    "sheets:deck/editing": "plugins/sheets/skills/deck/SKILL.md:8",
    "sheets:grid/description": "plugins/sheets/skills/grid/SKILL.md:3",
    "slides:deck/description": "plugins/slides/skills/deck/SKILL.md:3",
    "slides:deck/editing": "plugins/slides/skills/deck/SKILL.md:13",
    "slides:deck/scratch": "plugins/slides/skills/deck/SKILL.md:14",
    "slides:deck/editing#changing-a-deck": "plugins/slides/skills/deck/SKILL.md:18",
    "slides:deck/editing#before-moving-slides-between-decks": "plugins/slides/skills/deck/SKILL.md:20",
    "slides:deck/scratch#starting-from-nothing": "plugins/slides/skills/deck/SKILL.md:24",
    "slides:deck/v1-2-to-v2-0": "plugins/slides/skills/deck/SKILL.md:30",
}
"""By reading the fixture: the same Skill name in two plugins is two namespaces (as Claude Code names
them, `plugin:skill`); the table rows keep the short ids, the later rows to the same file take their
section heading, and further ones in that section their own trigger."""


def market_rows(ws: Path) -> dict[str, tuple[str, str, list[str]]]:
    out = workbench(ws, "rows", "--json")
    assert out.returncode == 0, out.stderr
    found = json.loads(out.stdout)
    assert len({r["id"] for r in found}) == len(found), "ids are unique across the marketplace"
    return {r["id"]: (f"{r['file']}:{r['line']}", r["trigger"], [lk["target"] for lk in r["links"]]) for r in found}


def test_marketplace_ids_are_namespaced_and_survive_edits_of_other_rows(tmp_path: Path) -> None:
    ws = tmp_path / "market"
    shutil.copytree(MARKETPLACE, ws)
    assert workbench(ws, "init", ".").returncode == 0
    before = market_rows(ws)
    assert {i: where for i, (where, _, _) in before.items()} == MARKET_IDS

    skill = ws / "plugins/slides/skills/deck/SKILL.md"
    text = skill.read_text()
    text = text.replace("| Change an existing deck |", "| Before changing a deck |")  # reword one row
    text = text.replace("|------|-------|\n", "|------|-------|\n| Before theming a deck | Read [theme.md](theme.md) |\n")
    text = text.replace("again.\n", "again.\n\nBefore renaming a deck, read [editing.md](editing.md) too.\n")
    skill.write_text(text)
    (skill.parent / "theme.md").write_text("# Theme\n")
    after = market_rows(ws)
    assert set(after) == set(before) | {"slides:deck/theme", "slides:deck/editing#before-renaming-a-deck"}
    for row_id, (_, trigger, links) in before.items():
        assert after[row_id][2] == links, f"{row_id} still names the row it named"
        if row_id != "slides:deck/editing":
            assert after[row_id][1] == trigger
    assert after["slides:deck/editing"][1] == "Before changing a deck", "a reworded row keeps its id"
    assert after["slides:deck/editing#before-renaming-a-deck"][1] == "Before renaming a deck"
