"""One broken Skill in a marketplace is one warning naming its file and line; every other row is
still read, by every door (`rows`, `lint`, `audit`, `case check`, the TUI's loader), and they agree."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.cli import main
from workbench.core.errors import InputError
from workbench.core.markdown import front_matter
from workbench.core.routing import parse_text, read_files
from workbench.core.workspace import load_workspace
from workbench.tui.data import WorkspaceView, lint_edit

ROUTE = "Before pruning the cache, read [prune](steps/prune.md).\n"
SKILLS: dict[str, bytes] = {
    "sound": b"---\nname: sound\ndescription: Use when tidying the cache.\n---\n" + ROUTE.encode(),
    "marked": b"\xef\xbb\xbf---\nname: marked\ndescription: Use when the file starts with a BOM.\n---\n"
              + ROUTE.encode(),
    "open": b"---\nname: open\ndescription: Use when nothing closes the block.\n\n" + ROUTE.encode(),
    "broken": b"---\nname: broken\ndescription: Use when: the colon: breaks\n  it: [\n---\n" + ROUTE.encode(),
    "listed": b"---\nname: listed\ndescription:\n  - Use when one\n  - Use when two\n---\n" + ROUTE.encode(),
    "legacy": b"---\nname: legacy\ndescription: Use for the caf\xe9 menu.\n---\n" + ROUTE.encode(),
}
WARNED = {  # Skill -> (line, words of its one warning)
    "marked": (1, "byte-order mark"),
    "open": (1, "never closed"),
    "broken": (3, "invalid YAML"),
    "listed": (3, "description: must be text"),
    "legacy": (3, "not UTF-8"),
}


def market(root: Path) -> Path:
    for name, data in SKILLS.items():
        skill = root / "skills" / name / "SKILL.md"
        (skill.parent / "steps").mkdir(parents=True)
        skill.write_bytes(data)
        (skill.parent / "steps/prune.md").write_text("# prune\n")
    (root / "cases").mkdir()
    (root / "cases/prune.toml").write_text('target = "sound/prune"\nkind = "positive"\n'
                                           'prompt = "Free some disk space."\nrequired = ["steps/prune.md"]\n'
                                           'moment = "edit"\n')
    (root / "workbench.toml").write_text('[plugin]\npath = "."\nrouting = ["skills/*/SKILL.md"]\n'
                                         'procedures = ["skills/*/steps/*.md"]\n')
    return root


def warnings(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("warning:")]


def test_each_broken_front_matter_costs_only_itself(tmp_path: Path) -> None:
    root = market(tmp_path)
    rows, bad = read_files(sorted(root.glob("skills/*/SKILL.md")))
    assert sorted(r.id for r in rows if r.kind != "description") == sorted(f"{n}/prune" for n in SKILLS)
    # the BOM and the bad byte still leave a readable description; the broken blocks lose only theirs
    assert sorted(r.skill for r in rows if r.kind == "description") == ["legacy", "marked", "sound"]
    got = {Path(str(e.file)).parent.name: (e.line, str(e)) for e in bad}
    assert set(got) == set(WARNED)
    for name, (line, words) in WARNED.items():
        assert got[name][0] == line and words in got[name][1], got[name]
    listed = next(e for e in bad if "listed" in str(e.file))
    assert listed.field == "description"


def test_a_strict_parse_still_raises(tmp_path: Path) -> None:
    text = SKILLS["broken"].decode()
    with pytest.raises(InputError, match="invalid YAML"):
        parse_text(text, tmp_path / "SKILL.md")
    kept: list[InputError] = []
    assert [r.trigger for r in parse_text(text, tmp_path / "SKILL.md", problems=kept)] == ["Before pruning the cache"]
    assert len(kept) == 1


@pytest.mark.parametrize("command", [["rows"], ["lint"], ["audit"], ["case", "check"]])
def test_every_command_warns_once_per_file_and_goes_on(command: list[str], tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    market(tmp_path)
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert main(command) == 0
    out, err = capsys.readouterr()
    lines = warnings(err)
    assert len(lines) == len(WARNED), err
    for name, (line, _) in WARNED.items():
        assert sum(f"skills/{name}/SKILL.md:{line}:" in w for w in lines) == 1, (name, lines)
    assert "Traceback" not in err


def test_cli_and_tui_loader_agree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    market(tmp_path)
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert main(["rows", "--json"]) == 0
    out, err = capsys.readouterr()
    view = WorkspaceView.load(load_workspace(tmp_path))
    assert [r.id for r in view.rows] == [r["id"] for r in json.loads(out)]
    assert view.problems == [w.removeprefix("warning: ") for w in warnings(err)]
    assert [c.id for c in view.cases] == ["prune"]


def test_the_editor_lints_a_row_of_a_broken_file(tmp_path: Path) -> None:
    view = WorkspaceView.load(load_workspace(market(tmp_path)))
    for name in ("broken", "open", "legacy"):
        row = next(r for r in view.rows if r.id == f"{name}/prune")
        found = lint_edit(view, row, "When the cache is big, read [prune](steps/prune.md).")
        assert found is not None and {f.rule for f in found} >= {"state-trigger"}, (name, found)


FRONT_MATTERS = [
    "name: a\ndescription: Use when one\n", "description: >-\n  Use when folded\n  over lines\n",
    "name: b\ntags: [x, 'y', 3, 2.5, null, yes, 2024-01-02]\n", "name: c\ndescription: 'Use: quoted: colons'\n",
    "name: d\nname: twice\n", "description: Use when: the colon: breaks\n  it: [\n", "a: b\n\tc: d\n",
    "x: *nowhere\n", "description: \"unclosed\n", "description: Use when sorting.\t\n", "tags: [a,\tb]\n",
    "a: !\n", "a: >#\n",
]
"""Valid and broken blocks; the tab, `!` and `>#` ones libyaml (PyYAML's C loader) reads otherwise."""


@pytest.mark.parametrize("source", FRONT_MATTERS)
def test_front_matter_reads_as_safe_load_does(source: str, tmp_path: Path) -> None:
    """The front matter read gives `yaml.safe_load`'s values, and for YAML it refuses, `safe_load`'s error
    and line (a faster loader that reads any of these otherwise would change rows and warnings)."""
    import yaml

    try:
        expected: object = yaml.safe_load(source.removesuffix("\n"))  # as the block is cut out
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        with pytest.raises(InputError) as got:
            front_matter(f"---\n{source}---\nbody\n", file=tmp_path / "SKILL.md")
        assert got.value.line == (mark.line + 2 if mark else None)
        assert str(getattr(exc, "problem", None) or exc) in str(got.value)
        return
    assert front_matter(f"---\n{source}---\nbody\n").data == (expected if isinstance(expected, dict) else {})
