"""Wording -> arm: a row edit is one commit on workbench/arm/NAME holding only that line; the tree is untouched."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from authoring_support import PLUGIN, WEAK_ROWS

from workbench.authoring.arms import create_arm, list_arms
from workbench.cli import main
from workbench.core.errors import InputError
from workbench.core.routing import parse_text
from workbench.core.workspace import load_workspace
from workbench.runner.arms import resolve

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@localhost", "-c", "init.defaultBranch=main"]


def git(repo: Path, *args: str) -> str:
    return subprocess.run([*GIT, *args], cwd=repo, capture_output=True, text=True, check=True).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repo whose plugin is a SUBFOLDER (like this project), with a workbench.toml, committed."""
    root = tmp_path / "repo"
    root.mkdir()
    shutil.copytree(PLUGIN, root / "tools" / "plugin")
    (root / "workbench.toml").write_text('name = "t"\n[plugin]\npath = "tools/plugin"\n')
    (root / "other.txt").write_text("unrelated\n")
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-qm", "init")
    return root


def test_arm_commit_holds_only_the_row_change(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    skill = repo / "tools/plugin/skills/ops/SKILL.md"
    skill.write_text(skill.read_text() + "\nuncommitted edit\n")  # must survive and stay out of the arm
    (repo / "other.txt").write_text("dirty\n")
    head_before = git(repo, "rev-parse", "HEAD").strip()
    branch_before = git(repo, "branch", "--show-current").strip()
    monkeypatch.chdir(repo)
    assert main(["arm", "new", "release", "--text", WEAK_ROWS["release"], "--name", "weak-release"]) == 0

    diff = git(repo, "diff", "--unified=0", "HEAD", "workbench/arm/weak-release")
    changed = [ln for ln in diff.splitlines() if ln[:1] in "+-" and not ln.startswith(("+++", "---"))]
    assert changed == ["-| Before tagging or shipping a release | [release procedure](workflows/release.md) |",
                       "+" + WEAK_ROWS["release"]]
    files = git(repo, "diff", "--name-only", "HEAD", "workbench/arm/weak-release").split()
    assert files == ["tools/plugin/skills/ops/SKILL.md"]
    assert git(repo, "rev-parse", "workbench/arm/weak-release~1").strip() == head_before
    assert git(repo, "rev-parse", "HEAD").strip() == head_before
    assert git(repo, "branch", "--show-current").strip() == branch_before
    assert skill.read_text().endswith("uncommitted edit\n") and (repo / "other.txt").read_text() == "dirty\n"
    assert git(repo, "diff", "--cached", "--name-only") == "", "the user's index is untouched"


def test_arm_list_resolve_and_env(repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) \
        -> None:
    ws = load_workspace(repo)
    arm = create_arm(ws, "incident", "bare-and", text=WEAK_ROWS["incident"])
    monkeypatch.chdir(repo)
    assert main(["arm", "new", "--name", "injection-off", "--env", "EVAL_INJECTION_OFF=1"]) == 0
    ws = load_workspace(repo)
    assert ws.config.rows["ops/incident"].startswith("Before responding to an incident or outage -> ")
    assert ws.config.arms["bare-and"].row == "ops/incident"
    arms = {a.name: a for a in list_arms(ws)}
    head = git(repo, "rev-parse", "HEAD").strip()
    assert arms["baseline"].sha == head and arms["injection-off"].sha == head
    assert arms["injection-off"].env == {"EVAL_INJECTION_OFF": "1"}
    assert resolve(ws, "bare-and").sha == arm.sha == git(repo, "rev-parse", "workbench/arm/bare-and").strip()
    assert resolve(ws, "bare-and") == arms["bare-and"]  # one arm type: the listed arm is the arm a run gets
    assert resolve(ws, "injection-off") == arms["injection-off"]
    assert arm.repo_root == arms["bare-and"].repo_root == repo.resolve() and arm.subdir == "tools/plugin"
    assert arm.row == "ops/incident"
    capsys.readouterr()
    assert main(["arm", "list"]) == 0
    out = capsys.readouterr().out
    assert "bare-and" in out and "workbench/arm/bare-and" in out and "EVAL_INJECTION_OFF=1" in out
    with pytest.raises(InputError, match="exists"):
        create_arm(ws, "incident", "bare-and", text=WEAK_ROWS["incident"] + " ")
    with pytest.raises(InputError, match="no routing row"):
        create_arm(ws, "nope", "x", text="| a | [b](b.md) |")


def test_arm_by_trigger_only(repo: Path) -> None:
    ws = load_workspace(repo)
    create_arm(ws, "commit", "commit-when", trigger="When committing")
    diff = git(repo, "diff", "--unified=0", "HEAD", "workbench/arm/commit-when")
    assert "+| When committing | [commit procedure](workflows/commit.md) |" in diff.splitlines()


def test_arm_new_refuses_a_non_row_or_a_missing_link_unless_forced(
        repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(repo)
    capsys.readouterr()
    assert main(["arm", "new", "release", "--name", "prose", "--text", "Ship it when it feels ready."]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a routing row" in err and "--force" in err
    missing = "| Before tagging or shipping a release | [release](workflows/relase.md) |"
    assert main(["arm", "new", "release", "--name", "typo", "--text", missing]) == 2
    assert "links workflows/relase.md, which does not exist" in capsys.readouterr().err
    heads = git(repo, "branch", "--list", "workbench/arm/*").split()
    assert heads == [], "nothing was committed"
    assert main(["arm", "new", "release", "--name", "typo", "--text", missing, "--force"]) == 0
    assert "workbench/arm/typo" in git(repo, "branch", "--list", "workbench/arm/*")


FOLDED = """---
name: ops
description: >
  Team operations procedures for this repository - committing,
  pull requests and releases. Use when about to do any of these.
license: MIT
metadata:
  owner: team
---

# Operations

| When | Read |
|---|---|
| Before committing | [commit procedure](workflows/commit.md) |
"""


def test_description_arm_edits_folded_front_matter_structurally(repo: Path) -> None:
    import yaml

    skill = repo / "tools/plugin/skills/ops/SKILL.md"
    original = skill.read_text()
    body = original.split("---\n", 2)[2]
    skill.write_text(FOLDED.split("---\n", 2)[0] + "---\n" + FOLDED.split("---\n", 2)[1] + "---\n" + body)
    git(repo, "commit", "-qam", "folded description")
    ws = load_workspace(repo)
    new = ("Use before committing, opening a pull request or shipping a release in this repository: each has "
           "a team procedure that changes what you do next, so read it first.")
    create_arm(ws, "ops/description", "desc", trigger=new)
    committed = git(repo, "show", "workbench/arm/desc:tools/plugin/skills/ops/SKILL.md")
    head = git(repo, "show", "HEAD:tools/plugin/skills/ops/SKILL.md")
    meta_new = yaml.safe_load(committed.split("---\n", 2)[1])
    meta_old = yaml.safe_load(head.split("---\n", 2)[1])
    assert " ".join(meta_new.pop("description").split()) == new
    meta_old.pop("description")
    assert meta_new == meta_old, "other keys untouched"
    assert committed.split("---\n", 2)[2] == head.split("---\n", 2)[2], "body byte for byte"
    assert "description: >\n  Use before committing" in committed, "still a folded block scalar"
    assert "license: MIT\nmetadata:\n  owner: team\n---\n" in committed
    rows = [r for r in parse_text(committed, skill) if r.kind == "description"]
    assert rows[0].trigger == new


LINK_FIRST = """---
name: db
description: Use when changing the database.
---

| Procedure | Use it |
|---|---|
| [create](jobs/create.md) | Before creating the DB |
| [Before seeding](jobs/seed.md) | Before seeding |
| [drop](jobs/drop.md) | Before **dropping** a table |
"""
"""A link-first table: the trigger is the second cell; one label repeats the trigger's words, one
trigger carries emphasis."""


@pytest.fixture
def link_first(tmp_path: Path) -> Path:
    root = tmp_path / "db-repo"
    (root / "p/skills/db/jobs").mkdir(parents=True)
    (root / "p/skills/db/SKILL.md").write_text(LINK_FIRST)
    for name in ("create", "seed", "drop"):
        (root / f"p/skills/db/jobs/{name}.md").write_text(f"# {name}\n")
    (root / "workbench.toml").write_text('[plugin]\npath = "p"\n')
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-qm", "init")
    return root


def test_arm_new_trigger_on_a_link_first_table_writes_the_trigger_cell(
        link_first: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(link_first)
    expected = {"create": "| [create](jobs/create.md) | Before migrating it |",
                "seed": "| [Before seeding](jobs/seed.md) | Before migrating it |",
                "drop": "| [drop](jobs/drop.md) | Before migrating it |"}
    for name, line in expected.items():
        assert main(["arm", "new", f"db/{name}", "--name", f"w-{name}", "--trigger", "Before migrating it"]) == 0
        diff = git(link_first, "diff", "--unified=0", "HEAD", f"workbench/arm/w-{name}")
        assert [ln for ln in diff.splitlines() if ln.startswith(("+|", "-|"))][1] == "+" + line
        arm_text = git(link_first, "show", f"workbench/arm/w-{name}:p/skills/db/SKILL.md")
        rows = {r.line: r for r in parse_text(arm_text, link_first / "p/skills/db/SKILL.md")}
        assert rows[8 + list(expected).index(name)].trigger == "Before migrating it"
    capsys.readouterr()
    assert main(["arm", "list"]) == 0
    out = capsys.readouterr().out
    assert "gone in this arm" not in out and "names another row" not in out, "a rewording keeps its row id"


def test_arm_list_names_rows_gone_or_moved_in_an_arm(
        link_first: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(link_first)
    assert main(["arm", "new", "db/seed", "--name", "no-row", "--force", "--text", "Seed it when ready."]) == 0
    assert main(["arm", "new", "db/create", "--name", "relink", "--text",
                 "| [create](jobs/seed.md) | Before creating the DB |"]) == 0
    assert main(["arm", "new", "--name", "env-only", "--env", "X=1"]) == 0
    capsys.readouterr()
    assert main(["arm", "list"]) == 0
    blocks: dict[str, list[str]] = {}
    last = ""
    for line in capsys.readouterr().out.splitlines():
        if line.startswith("  "):
            blocks[last].append(line.strip())
        else:
            last = line.split("\t")[0]
            blocks[last] = []
    assert blocks["no-row"] == ["gone in this arm: db/seed (at HEAD: Before seeding -> jobs/seed.md)"]
    assert blocks["relink"] == [
        "gone in this arm: db/create (at HEAD: Before creating the DB -> jobs/create.md)",
        "db/seed names another row in this arm: Before creating the DB -> jobs/seed.md "
        "(at HEAD: Before seeding -> jobs/seed.md)",
        "only in this arm: db/seed#before-seeding (Before seeding -> jobs/seed.md)"]
    assert blocks["env-only"] == [] and blocks["baseline"] == []


HOST_VARS = """---
name: db
description: Use when changing the database.
---

# DB

| ID | When | Read |
|---|---|---|
| A | Before creating the DB | [create]({baseDir}/jobs/create.md) |
| B | Before seeding | [seed](${CLAUDE_SKILL_DIR}/jobs/seed.md) |
"""
"""An ID column before the trigger column, and links through the host's path variables."""


def test_arm_new_rewords_a_host_variable_row_in_an_id_column_table(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "vars-repo"
    (root / "p/skills/db/jobs").mkdir(parents=True)
    (root / "p/skills/db/SKILL.md").write_text(HOST_VARS)
    for name in ("create", "seed"):
        (root / f"p/skills/db/jobs/{name}.md").write_text(f"# {name}\n")
    (root / "workbench.toml").write_text('[plugin]\npath = "p"\n')
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-qm", "init")
    monkeypatch.chdir(root)
    assert main(["arm", "new", "db/create", "--name", "w-create", "--trigger", "Before migrating it"]) == 0
    assert main(["arm", "new", "db/seed", "--name", "w-seed", "--text",
                 "| B | Before loading fixtures | [seed](${CLAUDE_SKILL_DIR}/jobs/seed.md) |"]) == 0
    created = git(root, "show", "workbench/arm/w-create:p/skills/db/SKILL.md").splitlines()
    assert created[9] == "| A | Before migrating it | [create]({baseDir}/jobs/create.md) |"
    rows = parse_text(git(root, "show", "workbench/arm/w-seed:p/skills/db/SKILL.md"), root / "p/skills/db/SKILL.md")
    assert [r.trigger for r in rows if r.links] == ["Before creating the DB", "Before loading fixtures"]
