"""The TOML writers edit through tomlkit: a user's comments, blank lines and key order survive byte for byte
when `workbench arm new` and `workbench case new` rewrite workbench.toml, and when a tune saves its memory.
A workspace file that is not TOML stays one line naming file, line and field, exit 2, nothing written."""

from __future__ import annotations

import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest
from authoring_support import PLUGIN, WEAK_ROWS

from workbench.cli import main
from workbench.core import tune
from workbench.runner.tune import Memory, load_memory

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@localhost", "-c", "init.defaultBranch=main"]

HEAD = """\
# The team's workspace: keep these notes.
name = "t"  # shown in the title

[plugin]
path = "tools/plugin"   # the plugin is a subfolder
# hosts = ["claude"]   (off until the login is back)

# An env-only arm we keep.
[arms.quiet]
ref = "HEAD"
env = { QUIET = "1" }   # the hook's off-switch

"""
TAIL = """\
[tiers.team]  # our own preset
description = "one run each"
runs = 1
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A committed git repo holding the demo plugin in a subfolder and a commented workbench.toml."""
    root = tmp_path / "repo"
    root.mkdir()
    shutil.copytree(PLUGIN, root / "tools" / "plugin")
    (root / "workbench.toml").write_text(HEAD + TAIL, encoding="utf-8")
    for argv in (["init", "-q"], ["add", "."], ["commit", "-qm", "init"]):
        subprocess.run([*GIT, *argv], cwd=root, check=True, capture_output=True)
    return root


def cli(repo: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(list(argv))
    return code, capsys.readouterr().err


def test_arm_and_case_commands_keep_every_comment_and_untouched_key(
        repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    file = repo / "workbench.toml"
    monkeypatch.chdir(repo)

    assert cli(repo, capsys, "arm", "new", "--name", "injection-off", "--env", "EVAL_INJECTION_OFF=1") == (0, "")
    added = '[arms.injection-off]\nref = "HEAD"\nenv = {EVAL_INJECTION_OFF = "1"}\n\n'
    assert file.read_text(encoding="utf-8") == HEAD + added + TAIL, "the new arm joins the arms; nothing else moves"

    code, err = cli(repo, capsys, "case", "new", "--template", "commit", "--row", "commit", "--prompt", "Fix and commit.")
    assert code == 0, err
    code, err = cli(repo, capsys, "arm", "new", "incident", "--name", "bare-and", "--text", WEAK_ROWS["incident"])
    assert code == 0, err
    text = file.read_text(encoding="utf-8")
    assert text.startswith(HEAD + added), "every byte above the edits is as the user wrote it"
    assert TAIL in text
    data = tomllib.loads(text)
    assert data["arms"]["bare-and"] == {"ref": "workbench/arm/bare-and", "row": "ops/incident"}
    assert list(data["rows"]) == ["ops/commit", "ops/incident"]
    assert data["rows"]["ops/commit"] == "Before committing -> workflows/commit.md"

    noted = text.replace('row = "ops/incident"\n', 'row = "ops/incident"\n# bare "and": does the split cue matter?\n')
    assert noted != text
    file.write_text(noted, encoding="utf-8")
    code, err = cli(repo, capsys, "arm", "new", "incident", "--name", "bare-and", "--force",
                    "--text", WEAK_ROWS["incident"] + " now")
    assert code == 0, err
    assert file.read_text(encoding="utf-8") == noted, "re-making an arm (same ref and row) keeps the user's note"


def test_a_workspace_file_that_is_not_toml_is_one_line_naming_file_line_and_field(
        repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    file = repo / "workbench.toml"
    broken = (HEAD + TAIL).replace('ref = "HEAD"', 'ref = "HEAD', 1)
    file.write_text(broken, encoding="utf-8")
    monkeypatch.chdir(repo)
    code, err = cli(repo, capsys, "arm", "new", "--name", "injection-off", "--env", "EVAL_INJECTION_OFF=1")
    assert code == 2
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"{file}:10: arms.quiet.ref: invalid TOML" in err, err
    assert file.read_text(encoding="utf-8") == broken, "nothing written"


def test_tune_memory_saves_keep_the_users_notes(tmp_path: Path) -> None:
    path = tmp_path / ".workbench" / "tune" / "ops-release.toml"
    memory = Memory(path, tune.Split(("a", "b"), ("c",), ("n",), 7),
                    [{"key": "k1", "text": "Before shipping", "status": "pending"}])
    memory.save()
    written = path.read_text(encoding="utf-8")
    noted = "# why we tune this row: releases were missed\n" + written.replace(
        'status = "pending"', 'status = "pending"  # looked promising')
    path.write_text(noted, encoding="utf-8")

    memory = load_memory(path)
    memory.candidates.append({"key": "k2", "text": "Before tagging", "status": "pending"})
    memory.save()
    again = path.read_text(encoding="utf-8")
    assert again.startswith(noted), "the notes and every saved line stay as they were"
    assert load_memory(path) == Memory(path, memory.split, memory.candidates)

    memory.candidates[0]["status"] = "rejected"
    memory.save()
    assert 'status = "rejected"  # looked promising' in path.read_text(encoding="utf-8")
