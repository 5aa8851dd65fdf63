"""Misreads found by judging every DANGLING finding of the marketplaces in docs/authoring.md ("Every
DANGLING finding judged"), each as a minimal reproduction in our own words: the hint at the linking
SKILL.md, absolute paths, plugin-root and sibling-Skill links, a Skill named in another section,
Example columns, numbered make headings, the user's memory files, a row whose every cell links.
13 fail on the code before; 4 guard against reading too little.
"""
import json
from pathlib import Path
from typing import Any

import pytest

from workbench.cli import main
from workbench.core.markdown import folders_in_words, words_before
from workbench.core.routing import parse_text

HEAD = "---\nname: tool\ndescription: Use the tool.\n---\n\n"


def _skill(root: Path, body: str) -> Path:
    (root / "plug/.claude-plugin").mkdir(parents=True, exist_ok=True)
    (root / "plug/.claude-plugin/plugin.json").write_text('{"name": "plug"}\n')
    skill = root / "plug/skills/tool/SKILL.md"
    skill.parent.mkdir(parents=True, exist_ok=True)
    skill.write_text(HEAD + body)
    return skill


def _files(folder: Path, names: tuple[str, ...]) -> None:
    """A small markdown file at each of NAMES below FOLDER."""
    for name in names:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(f"# {name}\n")


def _findings(root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
              **first: str) -> list[dict[str, Any]]:
    """`audit --json` findings of ROOT/plug after `init`; FIRST: a glob put first in that list of the
    `[plugin]` table (`routing="AGENTS.md"`)."""
    monkeypatch.chdir(root / "plug")
    assert main(["init", "."]) == 0
    capsys.readouterr()
    toml = root / "plug/workbench.toml"
    for key, glob in first.items():
        toml.write_text(toml.read_text().replace(f"{key} = [", f'{key} = ["{glob}", ', 1))
    assert main(["audit", "--json"]) == 0
    return list(json.loads(capsys.readouterr().out)["findings"])


def _audit(root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> list[str]:
    return [f["message"] for f in _findings(root, monkeypatch, capsys) if f["rule"] == "DANGLING"]


def test_a_missing_sibling_skill_is_not_hinted_at_the_linking_skill(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _skill(tmp_path, "Before filling a spreadsheet, read [sheets](../sheets/SKILL.md).\n")
    assert _audit(tmp_path, monkeypatch, capsys) == ["../sheets/SKILL.md does not exist"]


def test_a_nested_skill_file_of_the_same_name_is_still_hinted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    skill = _skill(tmp_path, "Before filling a spreadsheet, read [sheets](sheets.md).\n")
    (skill.parent / "parts").mkdir()
    (skill.parent / "parts/sheets.md").write_text("# sheets\n")
    assert _audit(tmp_path, monkeypatch, capsys) == ["sheets.md does not exist (the Skill has it at parts/sheets.md)"]


@pytest.mark.parametrize("text", [
    "| Kind | Example |\n|---|---|\n| Scratch notes | `/tmp/notes.md` |\n",
    "- Before you start: `/path/to/guide.md`\n",
    "Before editing, read /home/me/guide.md first.\n",
])
def test_an_absolute_path_is_no_link(text: str, tmp_path: Path) -> None:
    skill = _skill(tmp_path, text)
    rows = parse_text(skill.read_text(), skill, plugin=skill.parents[2])
    assert [r.trigger for r in rows if r.kind != "description"] == []


def test_a_relative_code_span_still_links(tmp_path: Path) -> None:
    skill = _skill(tmp_path, "- Before you start: `./guide.md`\n")
    rows = parse_text(skill.read_text(), skill, plugin=skill.parents[2])
    assert [(r.trigger, [lk.target for lk in r.links]) for r in rows if r.kind != "description"] == [
        ("Before you start", ["./guide.md"])]


def test_a_table_row_whose_every_cell_links_takes_the_text_beside_the_link(tmp_path: Path) -> None:
    skill = _skill(tmp_path, "| Skill | Relationship |\n|---|---|\n"
                             "| [grid](../grid/SKILL.md) | Opposite direction: cells to text |\n"
                             "| [pivot](../pivot/SKILL.md) | Worked example: `references/pivot-demo.md` |\n")
    rows = parse_text(skill.read_text(), skill, plugin=skill.parents[2])
    assert [(r.trigger, [lk.target for lk in r.links]) for r in rows if r.kind != "description"] == [
        ("Opposite direction: cells to text", ["../grid/SKILL.md"]),
        ("Worked example: `references/pivot-demo.md`", ["../pivot/SKILL.md"]),
    ]


def _market(root: Path, body: str) -> Path:
    """A marketplace whose plugin `p` has no manifest of its own (`marketplace.json` names its source)."""
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin/marketplace.json").write_text(json.dumps(
        {"name": "m", "plugins": [{"name": "p", "source": "./plugins/p"}]}))
    skill = root / "plugins/p/skills/s/SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: s\ndescription: Use s.\n---\n\n" + body)
    (root / "plugins/p/references").mkdir()
    (root / "plugins/p/references/quirks.md").write_text("# quirks\n")
    return skill


@pytest.mark.parametrize("target", ["references/quirks.md", "${CLAUDE_PLUGIN_ROOT}/references/quirks.md"])
def test_a_link_written_from_the_plugin_root_resolves_there(target: str, tmp_path: Path) -> None:
    skill = _market(tmp_path, f"Before calling the API, read [quirks]({target}).\n")
    rows = parse_text(skill.read_text(), skill, plugin=tmp_path)
    assert [lk.path for r in rows for lk in r.links] == [(tmp_path / "plugins/p/references/quirks.md").resolve()]


def test_a_link_missing_from_the_skill_and_the_plugin_root_stays_missing(tmp_path: Path) -> None:
    skill = _market(tmp_path, "Before calling the API, read [limits](references/limits.md).\n")
    rows = parse_text(skill.read_text(), skill, plugin=tmp_path)
    assert [lk.path for r in rows for lk in r.links] == [(skill.parent / "references/limits.md").resolve()]


def test_a_file_of_a_skill_the_file_names_in_another_section_resolves_there(tmp_path: Path) -> None:
    skill = _skill(tmp_path, "# Upgrade\n\nThe steps come from the `ledger-migrate` skill.\n\n## Versions\n\n"
                             "| From | To | Steps |\n|---|---|---|\n| 1.0 | 2.0 | `steps/v1-to-v2.md` |\n")
    sibling = skill.parents[1] / "ledger-migrate"
    (sibling / "steps").mkdir(parents=True)
    (sibling / "SKILL.md").write_text("---\nname: ledger-migrate\ndescription: Use to migrate.\n---\n")
    (sibling / "steps/v1-to-v2.md").write_text("# steps\n")
    rows = parse_text(skill.read_text(), skill, plugin=skill.parents[2])
    assert [lk.path for r in rows for lk in r.links] == [(sibling / "steps/v1-to-v2.md").resolve()]


def test_a_sibling_skill_named_by_its_folder_resolves_there(tmp_path: Path) -> None:
    skill = _skill(tmp_path, "- Before you research, read [foundations](a-foundations/SKILL.md).\n")
    sibling = skill.parents[1] / "a-foundations/SKILL.md"
    sibling.parent.mkdir()
    sibling.write_text("---\nname: a-foundations\ndescription: Use first.\n---\n")
    rows = parse_text(skill.read_text(), skill, plugin=skill.parents[2])
    assert [lk.path for r in rows for lk in r.links] == [sibling.resolve()]


def test_a_hidden_local_memory_file_is_the_users_not_a_link(tmp_path: Path) -> None:
    skill = _skill(tmp_path, "| File | Location |\n|---|---|\n| Local overrides | `./.claude.local.md` |\n")
    assert [r.trigger for r in parse_text(skill.read_text(), skill, plugin=skill.parents[2])
            if r.kind != "description"] == []


def test_missing_files_in_an_example_column_are_illustrations(tmp_path: Path) -> None:
    skill = _skill(tmp_path, "| Path type | Example | Resolves? |\n|---|---|---|\n"
                             "| Relative parent | `../sibling/SKILL.md` | Yes |\n")
    rejected: list = []
    rows = parse_text(skill.read_text(), skill, plugin=skill.parents[2], rejected=rejected)
    assert [r.trigger for r in rows if r.kind != "description"] == []
    assert [r.why for r in rejected] == ["a file named in a column headed Example: an illustration, not a procedure"]


def test_missing_files_in_a_suggested_path_column_are_the_users_to_make(tmp_path: Path) -> None:
    """"| Rule type | Suggested Path |": where the user might put a file of their own, not a file the
    plugin ships (laurigates blueprint-rules, six such paths)."""
    skill = _skill(tmp_path, "| Rule type | Suggested Path | Scope |\n|---|---|---|\n"
                             "| Ledger entries | `rules/ledger/entries.md` | `[\"**/*.csv\"]` |\n"
                             "| Audit trail | `rules/audit.md` | `[\"logs/**\"]` |\n")
    rejected: list = []
    rows = parse_text(skill.read_text(), skill, plugin=skill.parents[2], rejected=rejected)
    assert [r.trigger for r in rows if r.kind != "description"] == []
    assert [r.why for r in rejected] == [
        "a file named in a column headed Suggested Path: an illustration, not a procedure"] * 2
    fix = _skill(tmp_path / "fix", "| Problem | Suggested fix |\n|---|---|\n| Stale totals | `rebuild-totals.md` |\n")
    assert [r.trigger for r in parse_text(fix.read_text(), fix, plugin=fix.parents[2]) if r.kind != "description"] \
        == ["Stale totals"]  # a fix is a procedure the plugin should ship: still DANGLING when missing


def test_shipped_files_in_an_example_column_still_route(tmp_path: Path) -> None:
    skill = _skill(tmp_path, "| Task | Example |\n|---|---|\n| Refresh expired tokens | [tokens](examples/tokens.md) |\n")
    (skill.parent / "examples").mkdir()
    (skill.parent / "examples/tokens.md").write_text("# tokens\n")
    rows = parse_text(skill.read_text(), skill, plugin=skill.parents[2])
    assert [r.trigger for r in rows if r.kind != "description"] == ["Refresh expired tokens"]


def test_files_listed_under_a_numbered_write_heading_are_made_not_read(tmp_path: Path) -> None:
    skill = _skill(tmp_path, "### 7. Write Memory Files\n\n- `memory/glossary.md` - the decoder ring\n"
                             "- `memory/people/{name}.md` - one profile each\n")
    rejected: list = []
    rows = parse_text(skill.read_text(), skill, plugin=skill.parents[2], rejected=rejected)
    assert [r.trigger for r in rows if r.kind != "description"] == []
    assert [r.line for r in rejected] == [8, 9]


def test_the_cli_audit_and_the_editors_lint_resolve_links_alike(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Both doors read the plugin-root link as found and the missing one as DANGLING, with one message."""
    from workbench.core.workspace import load_workspace
    from workbench.tui.data import WorkspaceView, lint_edit

    skill = _market(tmp_path, "- Before calling the API, read [quirks](references/quirks.md).\n"
                              "- Before paging, read [limits](references/limits.md).\n")
    monkeypatch.chdir(tmp_path)
    assert main(["init", "."]) == 0
    capsys.readouterr()
    assert main(["audit", "--json"]) == 0
    cli = [f["message"] for f in json.loads(capsys.readouterr().out)["findings"] if f["rule"] == "DANGLING"]
    assert cli == ["references/limits.md does not exist"]
    view = WorkspaceView.load(load_workspace(tmp_path))
    lines = skill.read_text().split("\n")
    editor = []
    for row in (r for r in view.rows if r.kind != "description"):
        found = lint_edit(view, row, lines[row.line - 1])
        assert found is not None
        editor += [f.message for f in found if f.rule == "DANGLING"]
    assert editor == cli


def test_a_heading_that_is_a_folder_path_names_the_folder_of_the_list_under_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """"### references/" then "- `api.md` - …" (a whole marketplace of Skills is written so): the file is
    there, so no DANGLING and no UNINDEXED."""
    skill = _skill(tmp_path, "## Resources\n\n### references/\n\n- `api.md` - every endpoint, load before calling one\n")
    (skill.parent / "references").mkdir()
    (skill.parent / "references/api.md").write_text("# api\n")
    rows = parse_text(skill.read_text(), skill, plugin=skill.parents[2])
    assert [lk.path for r in rows for lk in r.links] == [(skill.parent / "references/api.md").resolve()]
    monkeypatch.chdir(tmp_path / "plug")
    assert main(["init", "."]) == 0
    capsys.readouterr()
    assert main(["audit", "--json"]) == 0
    assert [f["rule"] for f in json.loads(capsys.readouterr().out)["findings"]
            if f["rule"] in ("DANGLING", "UNINDEXED")] == []


def test_rule_files_a_skill_indexes_by_id_are_reached(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """An ID list ("- `async-batch` - …") with one file written out as a path, in a code block, to show
    where they live: the listed files are reached, a rule file the list leaves out is UNINDEXED."""
    skill = _skill(tmp_path, "## Quick reference\n\n- `async-batch` - batch independent awaits\n"
                             "- `bundle-split` - split heavy modules\n\n## How to use\n\n"
                             "Read a rule's file for its examples:\n\n```\nrules/async-batch.md\n```\n")
    (skill.parent / "rules").mkdir()
    for name in ("async-batch", "bundle-split", "state-unlisted"):
        (skill.parent / f"rules/{name}.md").write_text(f"# {name}\n")
    monkeypatch.chdir(tmp_path / "plug")
    assert main(["init", "."]) == 0
    capsys.readouterr()
    assert main(["audit", "--json"]) == 0
    assert [Path(f["file"]).name for f in json.loads(capsys.readouterr().out)["findings"]
            if f["rule"] == "UNINDEXED"] == ["state-unlisted.md"]


def _linked(skill: Path) -> list[tuple[str, Path]]:
    rows = parse_text(skill.read_text(), skill, plugin=skill.parents[2])
    return [(r.trigger, lk.path) for r in rows if r.kind != "description" for lk in r.links]


def test_a_bare_code_span_elsewhere_in_the_file_is_no_skill_to_resolve_in(tmp_path: Path) -> None:
    skill = _skill(tmp_path, "Before filling a form, read [forms](forms.md).\n\n## Output\n\nSave it as `pdf`.\n")
    (skill.parents[1] / "pdf").mkdir()
    (skill.parents[1] / "pdf/SKILL.md").write_text("---\nname: pdf\ndescription: Use for PDFs.\n---\n")
    (skill.parents[1] / "pdf/forms.md").write_text("# forms\n")
    assert _linked(skill) == [("Before filling a form", (skill.parent / "forms.md").resolve())]


def test_an_example_column_file_in_a_named_skill_still_routes(tmp_path: Path) -> None:
    skill = _skill(tmp_path, "## Upgrade\n\nThe steps come from the `ledger-migrate` skill.\n\n"
                             "| Version | Example |\n|---|---|\n| 1.0 to 2.0 | `steps/v1-to-v2.md` |\n")
    (skill.parents[1] / "ledger-migrate/steps").mkdir(parents=True)
    (skill.parents[1] / "ledger-migrate/SKILL.md").write_text("---\nname: ledger-migrate\ndescription: Use.\n---\n")
    (skill.parents[1] / "ledger-migrate/steps/v1-to-v2.md").write_text("# steps\n")
    assert _linked(skill) == [("1.0 to 2.0", (skill.parents[1] / "ledger-migrate/steps/v1-to-v2.md").resolve())]


def test_a_row_of_links_only_takes_no_other_links_label_as_trigger(tmp_path: Path) -> None:
    skill = _skill(tmp_path, "| Action | Action |\n|---|---|\n| [create](create.md) | [delete](delete.md) |\n")
    assert "delete" not in [trigger for trigger, _ in _linked(skill)]


def test_a_numbered_step_that_writes_code_still_routes_its_files(tmp_path: Path) -> None:
    skill = _skill(tmp_path, "## 2. Write the code\n\n- `references/style.md` - read it before you write\n")
    assert _linked(skill) == [("read it before you write", (skill.parent / "references/style.md").resolve())]


def test_a_sibling_skill_link_outside_any_skill_stays_in_the_plugin(tmp_path: Path) -> None:
    _skill(tmp_path, "")
    agents = tmp_path / "plug/AGENTS.md"
    agents.write_text("- Before releasing, read [release](other/SKILL.md).\n")
    (tmp_path / "other").mkdir()
    (tmp_path / "other/SKILL.md").write_text("---\nname: other\ndescription: Use.\n---\n")
    rows = parse_text(agents.read_text(), agents, plugin=tmp_path / "plug")
    assert [lk.path for r in rows for lk in r.links] == [(tmp_path / "plug/other/SKILL.md").resolve()]


def test_a_shipped_memory_template_named_in_a_code_span_is_reached(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    skill = _skill(tmp_path, "Start each log from the template in `MEMORY.md`.\n")
    (skill.parent / "MEMORY.md").write_text("# memory template\n")
    assert "MEMORY.md" not in [Path(f).name for f in _audit_files(tmp_path, monkeypatch, capsys, "UNINDEXED")]


def _audit_files(root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], rule: str) -> list[str]:
    return [f["file"] for f in _findings(root, monkeypatch, capsys) if f["rule"] == rule]


def test_a_folder_the_file_names_in_another_section_resolves_bare_names(tmp_path: Path) -> None:
    """"| Frontend | `xss.md` |" above, "### Core guides (`references/`)" further down: the agent reading
    the Skill knows the folder; the one file of that name there is the link."""
    skill = _skill(tmp_path, "## Load\n\n| Code | Load |\n|---|---|\n| Frontend templates | `xss.md` |\n\n"
                             "## Guides\n\n### Core guides (`references/`)\n\nOne file per kind of flaw.\n")
    (skill.parent / "references").mkdir()
    (skill.parent / "references/xss.md").write_text("# xss\n")
    assert _linked(skill) == [("Frontend templates", (skill.parent / "references/xss.md").resolve())]


def test_a_bare_name_under_a_named_folder_is_reached_but_a_project_file_name_is_not(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """"### references/" over "- **api.md** - …" (bold, no code span, no row): the agent knows the file;
    "not `AGENTS.md`" names the user's kind of file, even with an AGENTS.md in that folder (a README
    would be no procedure at all: init leaves READMEs out)."""
    skill = _skill(tmp_path, "## Resources\n\n### references/\n\n- **api.md** - every endpoint\n\n"
                             "Name the entry file `SKILL.md`, not `AGENTS.md`.\n")
    (skill.parent / "references").mkdir()
    for name in ("api.md", "AGENTS.md"):
        (skill.parent / f"references/{name}").write_text(f"# {name}\n")
    assert sorted(Path(f).name for f in _audit_files(tmp_path, monkeypatch, capsys, "UNINDEXED")) == ["AGENTS.md"]


def test_a_folder_named_only_inside_a_code_block_steers_nothing(tmp_path: Path) -> None:
    skill = _skill(tmp_path, "| Need | Read |\n|---|---|\n| Deploying | [checklist](checklist.md) |\n\n"
                             "```bash\n# examples/\nls `examples/`\n```\n")
    (skill.parent / "examples").mkdir()
    (skill.parent / "examples/checklist.md").write_text("# a sample\n")
    assert _linked(skill) == [("Deploying", (skill.parent / "checklist.md").resolve())]


@pytest.mark.parametrize("target", ["../shared/rules.md", "CLAUDE.md"])
def test_a_named_folder_takes_no_climbing_path_and_no_project_file(target: str, tmp_path: Path) -> None:
    skill = _skill(tmp_path, f"| Need | Read |\n|---|---|\n| Before styling | [it]({target}) |\n\n"
                             "## Starters\n\nCopy the starter files from `templates/` into a new project.\n")
    (skill.parent / "templates/shared").mkdir(parents=True)
    for rel in ("templates/CLAUDE.md", "shared/rules.md", "templates/shared/rules.md"):
        (skill.parent / rel).parent.mkdir(parents=True, exist_ok=True)
        (skill.parent / rel).write_text("# x\n")
    assert all(path == (skill.parent / target).resolve() for _, path in _linked(skill)), _linked(skill)


def test_ids_count_outside_code_blocks_and_only_in_the_skills_own_folders(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    skill = _skill(tmp_path, "- `batch` - batch awaits. Rules live as `rules/batch.md`.\n\n"
                             "```bash\nstamp=`date`\n```\n\nUse the pdf Skill (`../pdf/SKILL.md`); run `setup` first.\n")
    (skill.parent / "rules").mkdir()
    for rel in ("rules/batch.md", "rules/date.md"):
        (skill.parent / rel).write_text("# x\n")
    (skill.parents[1] / "pdf").mkdir()
    (skill.parents[1] / "pdf/SKILL.md").write_text("---\nname: pdf\ndescription: Use for PDFs.\n---\n")
    (skill.parents[1] / "pdf/setup.md").write_text("# setup\n")
    orphans = sorted(Path(f).name for f in _audit_files(tmp_path, monkeypatch, capsys, "UNINDEXED"))
    assert orphans == ["date.md", "setup.md"]


def test_a_skill_file_named_only_by_its_multi_word_stem_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """"4. **Log it.** — Evolution-log entry with trigger, fix and evidence" with `references/evolution-log.md`
    in the Skill (cc-skills: 41 Skills so): still UNINDEXED (the agent has to search for the file, and a
    concept of the same name is no mention), but the finding says how the Skill names it. A one-word stem
    ("the notes"), a stem only in a code block or in another Skill's text, or a written file name that
    misses (`backfill-plan.md`), gives the plain finding."""
    skill = _skill(tmp_path, "## After the task\n\n1. **Log it.** — Evolution-log entry with trigger and fix.\n"
                             "2. Keep the notes short; see `backfill-plan.md`.\n\n```\nledger-rules\n```\n")
    refs = skill.parent / "references"
    refs.mkdir()
    for name in ("evolution-log", "notes", "backfill-plan", "ledger-rules"):
        (refs / f"{name}.md").write_text(f"# {name}\n")
    other = skill.parents[1] / "other/SKILL.md"
    other.parent.mkdir()
    other.write_text(HEAD + "Follow the ledger-rules of the tool Skill.\n")
    monkeypatch.chdir(tmp_path / "plug")
    assert main(["init", "."]) == 0
    capsys.readouterr()
    assert main(["audit", "--json"]) == 0
    found = sorted((Path(f["file"]).name, f["message"]) for f in json.loads(capsys.readouterr().out)["findings"]
                   if f["rule"] == "UNINDEXED")
    plain = "is reached from nothing a host loads (no row, Skill, command, agent or procedure names it)"
    assert found == [
        ("backfill-plan.md", f"backfill-plan.md {plain}"),
        ("evolution-log.md", 'evolution-log.md is named only as "Evolution-log" in SKILL.md, with no path: '
                             "the agent has to search for it (write its path)"),
        ("ledger-rules.md", f"ledger-rules.md {plain}"),
        ("notes.md", f"notes.md {plain}")]


def test_a_folder_the_skill_names_in_words_resolves_bare_names_in_the_cli_and_the_reach(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """"## Reference Files" over "- Load `explainers.md` when …", the file in `references/` (K-Dense: shap,
    sympy, torchdrug, imaging-data-commons …, 30 links): the Skill names its folder in words; the one
    file of that name there is the link, and the reach agrees (no UNINDEXED). A name two named folders
    both hold, or one no folder word names, stays DANGLING with the hint."""
    skill = _skill(tmp_path, "## Reference Files\n\n- Load `explainers.md` when the user asks about explainers\n"
                             "- Load `plots.md` when the user tunes a plot\n\n## Assets\n\n"
                             "- Before formatting a page, read `layout.md`\n- Before starting, read `setup.md`\n")
    for folder, names in (("references", ("explainers.md", "plots.md", "layout.md")), ("assets", ("layout.md",)),
                          ("scripts", ("setup.md",))):
        (skill.parent / folder).mkdir()
        for name in names:
            (skill.parent / folder / name).write_text(f"# {name}\n")
    refs = (skill.parent / "references").resolve()
    assert _linked(skill) == [("when the user asks about explainers", refs / "explainers.md"),
                              ("when the user tunes a plot", refs / "plots.md"),
                              ("Before formatting a page", (skill.parent / "layout.md").resolve()),
                              ("Before starting", (skill.parent / "setup.md").resolve())]
    assert sorted(_audit(tmp_path, monkeypatch, capsys)) == [
        "layout.md does not exist (the Skill has it at assets/layout.md, references/layout.md)",
        "setup.md does not exist (the Skill has it at scripts/setup.md)"]
    assert main(["audit", "--json"]) == 0
    assert sorted(Path(f["file"]).parent.name + "/" + Path(f["file"]).name
                  for f in json.loads(capsys.readouterr().out)["findings"] if f["rule"] == "UNINDEXED") == [
        "assets/layout.md", "references/layout.md", "scripts/setup.md"]


def test_a_bare_skill_md_outside_a_skill_is_the_kind_of_file_not_a_link(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A contributor guide's "- **SKILL.md**: Always uppercase" and "paste SKILL.md contents into the
    conversation" (vercel AGENTS.md, 2): the file every Skill has, not one to read; `other/SKILL.md`
    missing stays DANGLING."""
    _skill(tmp_path, "Before anything, read the [guide](guide.md).\n")
    (tmp_path / "plug/skills/tool/guide.md").write_text("# guide\n")
    (tmp_path / "plug/AGENTS.md").write_text(
        "# Contributing\n\n## Naming\n\n- **Skill folder**: `kebab-case`\n- **`SKILL.md`**: always uppercase\n"
        "- Before adding a Skill, copy `SKILL.md` from [the template](template/SKILL.md)\n")
    assert [f["message"] for f in _findings(tmp_path, monkeypatch, capsys, routing="AGENTS.md")
            if f["rule"] == "DANGLING"] == [
        "template/SKILL.md does not exist (no Skill template in the workspace: one the host or another plugin provides?)"]


def test_a_named_folder_that_climbs_out_steers_no_bare_name(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """"### `../shared/`" over "- Before posting, read `posting.md`": a folder above the Skill is no
    place the author named for its own files; the bare name stays DANGLING (its hint gives the path to
    write) and the reach does not take the file there (it stays UNINDEXED)."""
    skill = _skill(tmp_path, "## Guides\n\n### `../shared/`\n\n- Before posting, read `posting.md`\n")
    shared = skill.parents[1] / "shared"
    shared.mkdir()
    (shared / "posting.md").write_text("# posting\n")
    assert _linked(skill) == [("Before posting", (skill.parent / "posting.md").resolve())]
    found = [(f["rule"], f["message"]) for f in _findings(tmp_path, monkeypatch, capsys, procedures="skills/shared/*.md")
             if f["rule"] in ("DANGLING", "UNINDEXED")]
    assert found == [("DANGLING", "posting.md does not exist (did you mean ../shared/posting.md?)"),
                     ("UNINDEXED", "posting.md is reached from nothing a host loads (no row, Skill, command, agent or "
                                   "procedure names it)")]


def test_a_missing_skill_no_folder_of_the_workspace_holds_is_hinted_as_the_hosts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """"Read `xlsx/SKILL.md` before generating" (knowledge-work-plugins, 2): a document Skill some hosts
    ship, which no plugin here has; the DANGLING finding says so. A Skill folder that exists elsewhere in
    the workspace under that name gets no such hint (the path is wrong, not the Skill missing: the hint
    gives the path to write)."""
    _skill(tmp_path, "- Before building a workbook, read `xlsx/SKILL.md`\n"
                     "- Before sending a quote, read `../quotes/guide/SKILL.md`\n")
    (tmp_path / "plug/extras/guide").mkdir(parents=True)
    (tmp_path / "plug/extras/guide/SKILL.md").write_text(HEAD)
    assert sorted(_audit(tmp_path, monkeypatch, capsys)) == [
        "../quotes/guide/SKILL.md does not exist (did you mean ../../extras/guide/SKILL.md?)",
        "xlsx/SKILL.md does not exist (no Skill xlsx in the workspace: one the host or another plugin provides?)"]


def test_a_folder_word_alone_names_no_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """"For example, a user may ask …" and "Validate the input data" beside `examples/deploy.md` and
    `data/schema.md`: a word alone is no folder's name (only a heading or "example files" is); the
    links stay DANGLING with the hint, and `plan.md` "in the project root" reaches nothing."""
    skill = _skill(tmp_path, "## Use\n\nFor example, a user may ask for a release.\n\n"
                             "- [Deploy steps](deploy.md) when deploying\n- Validate the input data: "
                             "read [the schema guide](schema.md) before loading\n\n"
                             "Save your plan at `plan.md` in the project root.\n")
    for rel in ("examples/deploy.md", "examples/plan.md", "data/schema.md"):
        (skill.parent / rel).parent.mkdir(exist_ok=True)
        (skill.parent / rel).write_text(f"# {rel}\n")
    found = sorted((f["rule"], f["message"]) for f in _findings(tmp_path, monkeypatch, capsys)
                   if f["rule"] in ("DANGLING", "UNINDEXED"))
    plain = "is reached from nothing a host loads (no row, Skill, command, agent or procedure names it)"
    assert found == [("DANGLING", "deploy.md does not exist (the Skill has it at examples/deploy.md)"),
                     ("DANGLING", "schema.md does not exist (the Skill has it at data/schema.md)"),
                     ("UNINDEXED", f"deploy.md {plain}"), ("UNINDEXED", f"plan.md {plain}"),
                     ("UNINDEXED", f"schema.md {plain}")]


def test_a_suggested_files_column_routes(tmp_path: Path) -> None:
    """"| Situation | Suggested Files |" lists what to read, not where to put one's own files: a missing
    file there is DANGLING, as anywhere."""
    skill = _skill(tmp_path, "| Situation | Suggested Files |\n|---|---|\n| Debugging a crash | `references/debug.md` |\n")
    assert _linked(skill) == [("Debugging a crash", (skill.parent / "references/debug.md").resolve())]


def test_a_markdown_link_to_a_missing_bare_skill_md_stays_dangling(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """`- Read [the tool Skill](SKILL.md) before running any tool` in a root AGENTS.md: a link the author
    wrote, broken; only a bare `SKILL.md` in prose or a code span is the kind of file."""
    _skill(tmp_path, "Before anything, read the [guide](guide.md).\n")
    (tmp_path / "plug/skills/tool/guide.md").write_text("# guide\n")
    (tmp_path / "plug/AGENTS.md").write_text("# Tools\n\n- Read [the tool Skill](SKILL.md) before running any tool\n")
    assert [f["message"] for f in _findings(tmp_path, monkeypatch, capsys, routing="AGENTS.md")
            if f["rule"] == "DANGLING"] == ["SKILL.md does not exist"]


def test_the_stem_hint_needs_a_word_for_a_file_after_the_stem(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """"Schedule a follow-up call. Use real-time checks. Pattern 2: Chain-of-Thought with checks" beside
    `references/follow-up.md`, `real-time.md`, `chain-of-thought.md`: concepts, no file meant, so the
    plain finding; "the release-notes template" names `release-notes.md`."""
    skill = _skill(tmp_path, "## Calls\n\nSchedule a follow-up call. Use real-time checks.\n\n"
                             "### Pattern 2: Chain-of-Thought with checks\n\nFill in the release-notes template.\n")
    (skill.parent / "references").mkdir()
    for name in ("follow-up", "real-time", "chain-of-thought", "release-notes"):
        (skill.parent / f"references/{name}.md").write_text(f"# {name}\n")
    found = sorted(f["message"] for f in _findings(tmp_path, monkeypatch, capsys) if f["rule"] == "UNINDEXED")
    plain = "is reached from nothing a host loads (no row, Skill, command, agent or procedure names it)"
    assert found == [f"chain-of-thought.md {plain}", f"follow-up.md {plain}", f"real-time.md {plain}",
                     'release-notes.md is named only as "release-notes" in SKILL.md, with no path: the agent has '
                     "to search for it (write its path)"]


def test_the_host_skill_hint_is_only_for_a_bare_name_and_sees_symlinked_skills(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """`../old-name/SKILL.md` is a stale link (no hint); `pdfkit/SKILL.md` with a symlinked
    `skills/pdfkit` Skill elsewhere gets no "no Skill pdfkit" hint."""
    _skill(tmp_path, "- Before ranking, read `../old-name/SKILL.md`\n- Before printing, read `pdfkit/SKILL.md`\n")
    (tmp_path / "plug/vendor/pdf-impl").mkdir(parents=True)
    (tmp_path / "plug/vendor/pdf-impl/SKILL.md").write_text(HEAD)
    (tmp_path / "plug/extras").mkdir()
    (tmp_path / "plug/extras/pdfkit").symlink_to("../vendor/pdf-impl")
    assert sorted(_audit(tmp_path, monkeypatch, capsys)) == ["../old-name/SKILL.md does not exist",
                                                            "pdfkit/SKILL.md does not exist"]


def test_a_long_snake_case_word_reads_in_one_pass() -> None:
    """K-Dense's Skills hold long snake_case identifiers: the word reader matches each word one way (a
    backtracking pattern took minutes on one such file), and still finds the folder word after it."""
    text = HEAD + "Call " + "a_" * 4000 + "b now, then see the reference files.\n\n## Data Files\n"
    assert set(words_before(text, "files?", headings=True)) == {"reference", "data", "files"}
    assert folders_in_words(text, ["references", "data", "scripts"]) == {"references/", "data/"}


def test_paths_listed_under_a_folder_the_text_names_are_reached_there(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """"The guides are kept in the `references/` folder:" then "- **filing/late-fees.md** - …": each path
    is written from that folder (davila7/claude-code-templates, 29 such files judged reached)."""
    skill = _skill(tmp_path, "## Guides\n\nThe guides are kept in the `references/` folder:\n\n### Filing\n"
                             "- **filing/late-fees.md** - what a late return costs\n"
                             "- **filing/../../secrets.md** - climbs out: no mention of a guide\n")
    for name in ("references/filing/late-fees.md", "references/filing/extensions.md"):
        (skill.parent / name).parent.mkdir(parents=True, exist_ok=True)
        (skill.parent / name).write_text(f"# {name}\n")
    assert sorted(Path(f).name for f in _audit_files(tmp_path, monkeypatch, capsys, "UNINDEXED")) == ["extensions.md"]


def test_rule_files_a_skill_indexes_by_prefix_are_reached(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A table of rule categories by prefix ("| Posting | `post-` |") and one rule written out in a code
    block: every rule file of a named prefix is reached; one of no named prefix, or a partial, is not
    (supabase's postgres-best-practices, two copies in davila7/claude-code-templates: 60 files)."""
    skill = _skill(tmp_path, "## Categories\n\n| Category | Prefix |\n|---|---|\n| Posting | `post-` |\n"
                             "| Closing | `close_` |\n\nRead a rule's file for its examples:\n\n```\n"
                             "rules/post-entries.md\n```\n")
    (skill.parent / "rules").mkdir()
    for name in ("post-entries", "post-voids", "close_month", "tax-filing", "_template"):
        (skill.parent / f"rules/{name}.md").write_text(f"# {name}\n")
    assert sorted(Path(f).name for f in _audit_files(tmp_path, monkeypatch, capsys, "UNINDEXED")) == [
        "_template.md", "tax-filing.md"]


def test_a_sibling_skill_link_from_a_group_folder_finds_the_skill_in_another_group(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """`skills/(filing)/returns` links `../deadlines/SKILL.md`, kept in `skills/(calendar)/`: a catalog's
    groups, flattened on install (tech-leads-club/agent-skills). Not DANGLING, and never the hint
    `../../(calendar)/deadlines/SKILL.md`, which would break the installed link; two groups holding
    the Skill, or a file it lacks, stay DANGLING."""
    skills = tmp_path / "plug/skills"
    for folder in ("(filing)/returns", "(calendar)/deadlines", "(calendar)/quarters", "(archive)/quarters"):
        (skills / folder).mkdir(parents=True)
        (skills / folder / "SKILL.md").write_text(f"---\nname: {folder.split('/')[1]}\ndescription: x.\n---\n\n")
    (skills / "(filing)/returns/SKILL.md").write_text(
        "---\nname: returns\ndescription: File returns.\n---\n\n- Before dating a return, read "
        "[deadlines](../deadlines/SKILL.md)\n- Before a quarter's return, read [quarters](../quarters/SKILL.md)\n"
        "- Before an extension, read [extensions](../deadlines/extensions.md)\n")
    monkeypatch.chdir(tmp_path / "plug")
    assert main(["init", "."]) == 0
    capsys.readouterr()
    assert main(["audit", "--json"]) == 0
    assert sorted(f["message"] for f in json.loads(capsys.readouterr().out)["findings"] if f["rule"] == "DANGLING") == [
        "../deadlines/extensions.md does not exist", "../quarters/SKILL.md does not exist"]
    rows = parse_text((skills / "(filing)/returns/SKILL.md").read_text(), skills / "(filing)/returns/SKILL.md",
                      plugin=tmp_path / "plug")
    assert [lk.path for r in rows for lk in r.links][0] == (skills / "(calendar)/deadlines/SKILL.md").resolve()


def test_files_under_templated_folders_are_reached(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """"read `references/forms/<Form>/<closest-year>/fields/<Field>.md`" and "the notes in
    `references/forms/<Form>/<closest-year>/notes/`": each placeholder folder stands for any folder, so
    every form's field and note pages are reached (UiPath/skills' activity docs per package and version:
    175 files judged reached). The same template after "Save to" names a file the agent makes."""
    skill = _skill(tmp_path, "- Before filling a field, read `references/forms/<Form>/<closest-year>/fields/<Field>.md`\n"
                             "- Coded forms: the notes in `references/forms/<Form>/<closest-year>/notes/`\n"
                             "- Save the draft to `drafts/<Form>/<year>/<Field>.md`\n")
    _files(skill.parent / "references", ("forms/W-2/2024/fields/wages.md", "forms/W-2/2025/fields/tips.md",
                                         "forms/1099/2025/notes/api.md", "forms/1099/2025/overview.md",
                                         "drafts/W-2/2025/wages.md"))
    assert sorted(Path(f).name for f in _audit_files(tmp_path, monkeypatch, capsys, "UNINDEXED")) == [
        "overview.md", "wages.md"]


def test_paths_written_from_the_folder_a_link_label_leaves_out_resolve_there(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A routing table whose links read `[payroll/setup.md](references/payroll/setup.md)` writes its other
    paths from `references/` too (`payroll/run.md`); a path shortened to the tail of a link the Skill
    gives in full elsewhere is that file (UiPath/skills: 21 of 22 false DANGLING on its agents and
    governance Skills). A path found under neither stays DANGLING."""
    skill = _skill(tmp_path, "| Task | Read first | Then |\n|---|---|---|\n"
                             "| Set up payroll | [payroll/setup.md](references/payroll/setup.md) | `payroll/run.md` |\n"
                             "| Close the year | [payroll/setup.md](references/payroll/setup.md) | `payroll/close.md` |\n\n"
                             "Before a partial refund, read `partial/refund.md`.\n\n"
                             "## Index\n\n- [refunds](./references/tax/partial/refund.md)\n")
    _files(skill.parent / "references", ("payroll/setup.md", "payroll/run.md", "tax/partial/refund.md"))
    assert _audit(tmp_path, monkeypatch, capsys) == ["payroll/close.md does not exist"]
    rows = parse_text(skill.read_text(), skill, plugin=tmp_path / "plug")
    paths = {lk.target: lk.path for r in rows for lk in r.links}
    assert paths["payroll/run.md"] == (skill.parent / "references/payroll/run.md").resolve()
    assert paths["partial/refund.md"] == (skill.parent / "references/tax/partial/refund.md").resolve()


def test_files_a_drawn_tree_of_the_skills_folder_lists_are_reached(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """"Consult these as needed:" then a code block drawing `references/` with one guide a line (expo/skills:
    16 files judged reached): each listed file is reached, one the tree leaves out is not."""
    skill = _skill(tmp_path, "## References\n\nConsult these as needed:\n\n```\nreferences/\n"
                             "  payroll.md       running payroll\n  year-end/\n    close.md     the year's close\n```\n")
    _files(skill.parent / "references", ("payroll.md", "year-end/close.md", "unlisted.md"))
    assert sorted(Path(f).name for f in _audit_files(tmp_path, monkeypatch, capsys, "UNINDEXED")) == ["unlisted.md"]


def test_a_link_to_a_folder_reaches_the_files_in_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """"See [`reference/examples/`](reference/examples/) for worked examples" (anthropics'
    knowledge-work-plugins): the files in that folder are reached, as a `reference/examples/` code span
    reaches them; a file one folder deeper is not."""
    skill = _skill(tmp_path, "See [`reference/examples/`](reference/examples/) for worked examples.\n")
    _files(skill.parent / "reference", ("examples/retail.md", "examples/saas.md", "examples/old/2019.md"))
    assert sorted(Path(f).name for f in _audit_files(tmp_path, monkeypatch, capsys, "UNINDEXED")) == ["2019.md"]


def test_a_link_in_a_table_cell_a_renderer_drops_is_still_reached(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A `|` inside a code span (`` `"|"` ``) splits its cell, so the row has a cell too many and the
    renderer drops the last, link and all (UiPath/skills' CSV playbooks); the agent reads the raw line."""
    skill = _skill(tmp_path, "| Error | Fix | Playbook |\n|---|---|---|\n"
                             "| Bad delimiter | use `\",\"` or `\"|\"` | [delimiter](playbooks/delimiter.md) |\n"
                             "| Locked file | close it | [locked](playbooks/locked.md) |\n")
    (skill.parent / "playbooks").mkdir()
    for name in ("delimiter", "locked", "orphan"):
        (skill.parent / f"playbooks/{name}.md").write_text(f"# {name}\n")
    assert sorted(Path(f).name for f in _audit_files(tmp_path, monkeypatch, capsys, "UNINDEXED")) == ["orphan.md"]
