"""Links the marketplaces write that miss as written, each in our own words: a bare name a sibling Skill
named in the text keeps in one of its folders (a link, not a DANGLING one), and the hint a DANGLING
finding gives when one file of the workspace ends as the link does (a renamed Skill: the path to write;
a rule the repository keeps in its own `.claude/rules/`: a file no installed plugin ships)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from workbench.cli import main
from workbench.core.routing import parse_text

HEAD = "---\nname: {name}\ndescription: Use {name}.\n---\n\n"


def _plugin(root: Path, body: str) -> Path:
    """A plugin at ROOT/plug with one Skill `paper` whose SKILL.md holds BODY; that SKILL.md."""
    (root / "plug/.claude-plugin").mkdir(parents=True)
    (root / "plug/.claude-plugin/plugin.json").write_text('{"name": "plug"}\n')
    return _write_skill(root / "plug/skills/paper", body)


def _write_skill(folder: Path, body: str = "", files: tuple[str, ...] = ()) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(HEAD.format(name=folder.name) + body)
    for name in files:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(f"# {name}\n")
    return folder / "SKILL.md"


def _findings(top: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
              rule: str) -> list[str]:
    monkeypatch.chdir(top)
    assert main(["init", "."]) == 0
    capsys.readouterr()
    assert main(["audit", "--json"]) == 0
    found: list[dict[str, Any]] = json.loads(capsys.readouterr().out)["findings"]
    return [f["message"] for f in found if f["rule"] == rule]


def _links(skill: Path, plugin: Path) -> list[Path]:
    return [lk.path for r in parse_text(skill.read_text(), skill, plugin=plugin) for lk in r.links]


@pytest.mark.parametrize("named", ["The journal-styles skill provides:", "Consult the **journal-styles** skill:"])
def test_a_bare_name_the_named_sibling_skill_keeps_in_a_folder_is_its_file(
        named: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """"The venue-templates skill provides: `venue_writing_styles.md`" (K-Dense, 5): the agent opens that
    Skill and finds the file in its `references/`; the one file of that name there is the link."""
    skill = _plugin(tmp_path, f"## Related\n\nBefore styling the paper for a journal. {named}\n"
                              "- `house_rules.md`: read it before you set the headings\n")
    styles = _write_skill(skill.parents[1] / "journal-styles",
                          "Read [house rules](references/house_rules.md) first.\n", ("references/house_rules.md",))
    assert _links(skill, tmp_path / "plug") == [(styles.parent / "references/house_rules.md").resolve()]
    assert _findings(tmp_path / "plug", monkeypatch, capsys, "DANGLING") == []


def test_a_bare_name_two_folders_of_the_named_skill_hold_stays_missing(tmp_path: Path) -> None:
    skill = _plugin(tmp_path, "Before styling the paper, see the journal-styles skill:\n"
                              "- `house_rules.md`: read it before you set the headings\n")
    _write_skill(skill.parents[1] / "journal-styles", "", ("references/house_rules.md", "old/house_rules.md"))
    assert _links(skill, tmp_path / "plug") == [(skill.parent / "house_rules.md").resolve()]


def test_a_broken_link_whose_path_ends_as_one_file_of_the_plugin_says_the_path_to_write(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """"`../rangebar-eval-metrics/references/metrics-schema.md`" after the Skill became
    `opendeviation-eval-metrics` (cc-skills, 5); `scientific-packages/seaborn/SKILL.md` (K-Dense, 4)."""
    skill = _plugin(tmp_path, "- Before scoring a model, read [schema](../old-metrics/references/schema.md)\n"
                              "- Before plotting, read [plots](packages/charts/SKILL.md)\n")
    _write_skill(skill.parents[1] / "new-metrics", "Read [schema](references/schema.md).\n",
                 ("references/schema.md",))
    _write_skill(skill.parents[1] / "charts")
    assert sorted(_findings(tmp_path / "plug", monkeypatch, capsys, "DANGLING")) == [
        "../old-metrics/references/schema.md does not exist (did you mean ../new-metrics/references/schema.md?)",
        "packages/charts/SKILL.md does not exist (did you mean ../charts/SKILL.md?)"]


def test_a_broken_link_to_a_rule_the_marketplace_keeps_outside_the_plugin_says_it_is_not_shipped(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """"see `offload-to-deterministic-substrate.md`" and "`../../.claude/rules/hooks-reference.md`"
    (laurigates, 7): the files are the repository's own `.claude/rules/`, which no plugin ships."""
    (tmp_path / ".claude-plugin").mkdir()
    (tmp_path / ".claude-plugin/marketplace.json").write_text(
        '{"name": "m", "plugins": [{"name": "plug", "source": "./plug"}]}\n')
    (tmp_path / ".claude/rules").mkdir(parents=True)
    for name in ("tone.md", "hooks.md"):
        (tmp_path / ".claude/rules" / name).write_text(f"# {name}\n")
    _plugin(tmp_path, "- Before writing the abstract, read `tone.md`\n"
                      "- Before adding a hook, read [hooks](../../.claude/rules/hooks.md)\n")
    assert sorted(_findings(tmp_path, monkeypatch, capsys, "DANGLING")) == [
        "../../.claude/rules/hooks.md does not exist (the workspace has it at .claude/rules/hooks.md, outside "
        "the plugin plug: an installed plugin does not ship it)",
        "tone.md does not exist (the workspace has it at .claude/rules/tone.md, outside the plugin plug: an "
        "installed plugin does not ship it)"]


def test_no_path_is_offered_when_two_files_end_as_the_link_does_or_only_the_name_matches(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    skill = _plugin(tmp_path, "- Before scoring a model, read [schema](../old-metrics/references/schema.md)\n"
                              "- Before plotting, read [readme](../gone/README.md)\n")
    for name in ("new-metrics", "metrics-v2"):
        _write_skill(skill.parents[1] / name, "Read [schema](references/schema.md).\n", ("references/schema.md",))
    (tmp_path / "plug/README.md").write_text("# plug\n")
    assert sorted(_findings(tmp_path / "plug", monkeypatch, capsys, "DANGLING")) == [
        "../gone/README.md does not exist",
        "../old-metrics/references/schema.md does not exist"]


def test_a_code_span_with_claude_codes_at_prefix_links_the_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """"**Read the full requirements:** `@references/logging-requirements.md`" (edwinhu/claude-plugins, 2):
    `@path` is how Claude Code names a file to load; the file is the Skill's own."""
    skill = _plugin(tmp_path, "Before you write a test, read the logging rules: `@references/logging.md`\n")
    (skill.parent / "references").mkdir()
    (skill.parent / "references/logging.md").write_text("# logging\n")
    assert _links(skill, tmp_path / "plug") == [(skill.parent / "references/logging.md").resolve()]
    assert _findings(tmp_path / "plug", monkeypatch, capsys, "DANGLING") == []


def test_an_elided_path_and_the_files_a_skill_seeds_are_no_procedures(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """"| `.../skills/setup/SKILL.md` | `.cortex/skills/setup/SKILL.md` |" (thoughtspot, 5: a path cut short
    with `...`) and "Create the layout and seed files: `ledger.md`, `people.md`" then "Read `ledger.md`
    for the last month ingested" (microsoft/cat-agent-skills, 4): files of another system and files the
    Skill itself makes."""
    _plugin(tmp_path, "## Copy\n\nBefore copying, read each staged file:\n\n| Stage path | Workspace path |\n"
                      "|---|---|\n| `.../skills/setup/SKILL.md` | `.cortex/skills/setup/SKILL.md` |\n\n"
                      "## Scaffold\n\nCreate the layout and seed files: `ledger.md`, `people.md`.\n\n"
                      "## Ingest\n\n1. Before ingesting a month, read `ledger.md` for the last month ingested.\n"
                      "2. Before filing a note, read `handbook.md` for the house style.\n")
    assert _findings(tmp_path / "plug", monkeypatch, capsys, "DANGLING") == ["handbook.md does not exist"]


def test_a_clause_after_a_parenthesised_link_ends_where_the_file_is_described(tmp_path: Path) -> None:
    """"(§ Rate limits → `references/recovery.md`) before fanning out agents — it carries the burst
    limits, …" (laurigates): the trigger is the clause, not the closing parenthesis nor what follows
    the dash (what the file holds)."""
    skill = _plugin(tmp_path, "Read the dispatch notes (§ Rate limits → `references/recovery.md`) before fanning "
                              "out more than three agents — it carries the burst limits and the safe concurrency.\n")
    (skill.parent / "references").mkdir()
    (skill.parent / "references/recovery.md").write_text("# recovery\n")
    rows = [r for r in parse_text(skill.read_text(), skill, plugin=tmp_path / "plug") if r.kind != "description"]
    assert [r.trigger for r in rows] == ["before fanning out more than three agents"]
    skill.write_text(HEAD.format(name="paper") + 'Read [recovery](references/recovery.md) before you run "Step 2 — '
                     'retries" — it lists every limit.\n')
    rows = [r for r in parse_text(skill.read_text(), skill, plugin=tmp_path / "plug") if r.kind != "description"]
    assert [r.trigger for r in rows] == ['before you run "Step 2 — retries"']


def test_the_editor_walks_the_workspace_once_per_read_not_once_per_keystroke(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The editor lints every keystroke of a broken link; the walk behind its hint and the search for the
    plugins inside the workspace (0.64 s a lint on a marketplace of 17,000 files) are the view's, done
    again when the view is read again, so a file made meanwhile shows."""
    import workbench.core.misses as misses
    import workbench.core.reach as reach
    from workbench.core.workspace import load_workspace
    from workbench.tui.data import WorkspaceView, lint_edit

    skill = _plugin(tmp_path, "- Before scoring a model, read [schema](../old-metrics/references/schema.md)\n")
    _write_skill(skill.parents[1] / "new-metrics", "Read [schema](references/schema.md).\n", ("references/schema.md",))
    cli = _findings(tmp_path / "plug", monkeypatch, capsys, "DANGLING")
    walks: list[object] = []
    real_walk, real_roots = misses.os.walk, reach.plugin_roots
    monkeypatch.setattr(misses.os, "walk", lambda top: walks.append(top) or real_walk(top))
    monkeypatch.setattr(reach, "plugin_roots", lambda top: walks.append(("roots", top)) or real_roots(top))
    view = WorkspaceView.load(load_workspace(tmp_path / "plug"))
    row = next(r for r in view.rows if r.links and r.file == skill)
    walked = len(walks)
    for typed in ("- Before scoring a model, read [schema](../old-metrics/references/schema.md)",
                  "- Before scoring any model, read [schema](../old-metrics/references/schema.md)"):
        found = lint_edit(view, row, typed)
        assert found is not None and [f.message for f in found if f.rule == "DANGLING"] == cli
    assert walked >= 1 and len(walks) == walked, "the read's audit walked; the two lints reused its walk"
    _write_skill(skill.parents[1] / "metrics-v2", "", ("references/schema.md",))
    view.reload()
    found = lint_edit(view, row, "- Before scoring a model, read [schema](../old-metrics/references/schema.md)")
    assert found is not None and [f.message for f in found if f.rule == "DANGLING"] == [
        "../old-metrics/references/schema.md does not exist"], "two files end alike now: no path is offered"


def test_one_audit_searches_for_the_plugins_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Finding the plugins of a marketplace is a search of every folder for manifests (about 1 s on one of
    17,000 files): the DANGLING hints, the per-host budgets and the UNINDEXED reach of one audit share one
    search, with the findings of an audit that searches for each."""
    import workbench.core.audit as audit_module
    import workbench.core.reach as reach
    from workbench.core.routing import read_files
    from workbench.core.workspace import load_workspace

    skill = _plugin(tmp_path, "- Before scoring, read [schema](references/schema.md)\n")
    _write_skill(skill.parent, skill.read_text().split("---\n", 2)[2], ("references/schema.md", "references/orphan.md"))
    cli = _findings(tmp_path / "plug", monkeypatch, capsys, "UNINDEXED")
    assert cli == ["orphan.md is reached from nothing a host loads (no row, Skill, command, agent or procedure "
                   "names it)"], cli
    searches: list[Path] = []
    real = reach.plugin_roots

    def counted(top: Path) -> list[Path]:
        searches.append(top)
        return real(top)

    monkeypatch.setattr(reach, "plugin_roots", counted)
    monkeypatch.setattr(audit_module, "plugin_roots", counted)
    ws = load_workspace(tmp_path / "plug")
    report = audit_module.audit(ws, read_files(ws.routing_files(), plugin=ws.plugin_dir)[0])
    assert [f.message for f in report.findings if f.rule == "UNINDEXED"] == cli
    assert len(searches) == 1, searches
