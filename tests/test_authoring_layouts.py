"""Routing layouts of real marketplaces measured after issue 23 (docs/authoring.md, "Three more
marketplaces"): file tables in code spans, a folder named once for a list, a fence its list item
closes, a language cell, a bare project file. Each case is a minimal reproduction in
our own words. Each failed on the code before that change (9 of the 11), but the two that guard
against reading too much (a code span after other words, a letter beside a trigger cell).
"""
import json
from pathlib import Path

import pytest

from workbench.cli import main
from workbench.core.routing import Rejected, parse_text
from workbench.core.workspace import load_workspace
from workbench.tui.data import WorkspaceView, lint_edit

HEAD = "---\nname: tool\ndescription: Use the tool.\n---\n\n"


def _skill(root: Path, body: str, files: tuple[str, ...] = ()) -> Path:
    """A one-Skill plugin under ROOT/plug with BODY and FILES (each holding its own name)."""
    (root / "plug/.claude-plugin").mkdir(parents=True, exist_ok=True)
    (root / "plug/.claude-plugin/plugin.json").write_text('{"name": "plug"}\n')
    skill = root / "plug/skills/tool/SKILL.md"
    skill.parent.mkdir(parents=True, exist_ok=True)
    skill.write_text(HEAD + body)
    for rel in files:
        (skill.parent / rel).parent.mkdir(parents=True, exist_ok=True)
        (skill.parent / rel).write_text(f"# {rel}\n")
    return skill


def _rows(skill: Path, rejected: list[Rejected] | None = None) -> list[tuple[str, list[str], list[bool]]]:
    rows = parse_text(skill.read_text(), skill, plugin=skill.parents[2], rejected=rejected)
    return [(r.trigger, [lk.target for lk in r.links], [lk.path.is_file() for lk in r.links])
            for r in rows if r.kind != "description"]


def test_a_code_span_path_in_a_table_cell_is_a_link(tmp_path: Path) -> None:
    skill = _skill(tmp_path, "| Need | Read |\n|---|---|\n| Porting a prompt to a new model | `refs/port.md` |\n"
                             "| Both guides | `refs/port.md`, `refs/lint.md` |\n\n"
                             "| File | Covers |\n|---|---|\n| `refs/lint.md` | Lint rules |\n",
                   ("refs/port.md", "refs/lint.md"))
    assert _rows(skill) == [("Porting a prompt to a new model", ["refs/port.md"], [True]),
                            ("Both guides", ["refs/port.md", "refs/lint.md"], [True, True]),
                            ("Lint rules", ["refs/lint.md"], [True])]


def test_a_code_span_after_words_in_a_cell_still_needs_a_read_verb(tmp_path: Path) -> None:
    skill = _skill(tmp_path, "| Step | Note |\n|---|---|\n| Release | the tool writes `refs/port.md` |\n", ("refs/port.md",))
    assert _rows(skill) == []


@pytest.mark.parametrize("lead", ["### Guides (`guides/`)\n\n", "**Guides** (in `guides/`):\n\n",
                                  "See [the guides](guides/) for each language:\n\n"])
def test_a_list_under_a_named_folder_links_the_files_in_it(tmp_path: Path, lead: str) -> None:
    skill = _skill(tmp_path, lead + "- `py.md` - Python patterns\n", ("guides/py.md",))
    assert _rows(skill) == [("Python patterns", ["py.md"], [True])]


def test_a_named_folder_is_the_same_in_the_cli_audit_and_the_editor(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    skill = _skill(tmp_path, "**Guides** (in `guides/`):\n\n- `py.md` - Python patterns\n- `go.md` - Go patterns\n",
                   ("guides/py.md",))
    monkeypatch.chdir(tmp_path / "plug")
    assert main(["init", "."]) == 0
    capsys.readouterr()
    assert main(["audit", "--json"]) == 0
    found = [f["message"] for f in json.loads(capsys.readouterr().out)["findings"] if f["rule"] == "DANGLING"]
    assert found == ["go.md does not exist"], found
    view = WorkspaceView.load(load_workspace(tmp_path / "plug"))
    row = next(r for r in view.rows if r.trigger == "Go patterns")
    edited = lint_edit(view, row, skill.read_text().split("\n")[row.line - 1])
    assert edited is not None and [f.message for f in edited if f.rule == "DANGLING"] == found
    row = next(r for r in view.rows if r.trigger == "Python patterns")
    edited = lint_edit(view, row, skill.read_text().split("\n")[row.line - 1])
    assert edited is not None and [f for f in edited if f.rule == "DANGLING"] == []


def test_a_fence_its_list_item_closes_reads_the_rest_once(tmp_path: Path) -> None:
    skill = _skill(tmp_path, "- Install it:\n  ```bash\n  pip install tool\n# a comment at column 0\n  ```\n\n"
                             "## Docs\n\n- [refs/setup.md](refs/setup.md) - Setting it up\n", ("refs/setup.md",))
    assert _rows(skill) == [("Setting it up", ["refs/setup.md"], [True])]


def test_a_language_cell_is_a_trigger_not_an_id(tmp_path: Path) -> None:
    skill = _skill(tmp_path, "| Language | Guide |\n|---|---|\n| C# | [refs/cs.md](refs/cs.md) |\n"
                             "| A | [refs/a.md](refs/a.md) |\n", ("refs/cs.md", "refs/a.md"))
    assert [t for t, _, _ in _rows(skill)] == ["C#", "A"]


def test_a_letter_beside_a_trigger_cell_is_still_an_id(tmp_path: Path) -> None:
    skill = _skill(tmp_path, "| | Link | Note |\n|---|---|---|\n| A | [refs/a.md](refs/a.md) | Before adding a widget |\n",
                   ("refs/a.md",))
    assert [t for t, _, _ in _rows(skill)] == ["Before adding a widget"]


def test_a_bare_project_file_never_resolves_to_the_plugin_root(tmp_path: Path) -> None:
    skill = _skill(tmp_path, "Inspect the user's repository first:\n\n- project docs: `README.md`, `docs/`\n")
    (tmp_path / "plug/README.md").write_text("# the plugin's own readme\n")
    rejected: list[Rejected] = []
    assert _rows(skill, rejected) == []
    assert any("user's project file `README.md`" in r.why for r in rejected), [r.why for r in rejected]


def test_a_bare_name_found_elsewhere_in_the_skill_says_where_in_the_cli_and_the_editor(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    skill = _skill(tmp_path, "| Code | Load |\n|---|---|\n| Frontend templates | `xss.md` |\n", ("references/xss.md",))
    monkeypatch.chdir(tmp_path / "plug")
    assert main(["init", "."]) == 0
    capsys.readouterr()
    assert main(["audit", "--json"]) == 0
    found = [f["message"] for f in json.loads(capsys.readouterr().out)["findings"] if f["rule"] == "DANGLING"]
    assert found == ["xss.md does not exist (the Skill has it at references/xss.md)"]
    view = WorkspaceView.load(load_workspace(tmp_path / "plug"))
    row = next(r for r in view.rows if r.trigger == "Frontend templates")
    edited = lint_edit(view, row, skill.read_text().split("\n")[row.line - 1])
    assert edited is not None and [f.message for f in edited if f.rule == "DANGLING"] == found
