"""The authoring read through its two doors: `workbench rows --json` / `audit --json` (CLI) and the TUI's
workspace view (what the Rows screen shows) give the same rows and the same findings, on a marketplace
written in our own words with every link shape the marketplaces taught us: a link outside the row's
plugin (UNSHIPPED), a missing file (DANGLING), a Suggested Path column, a folder named in words, a
reference file named only by its stem, a bare SKILL.md in a contributor guide, a bare name a sibling
Skill named in the text keeps in its `references/`, a rule kept outside every plugin, named bare, a
compressed docs index (`|root: ./forms|state:{a.md,b.md}|`), a `**/…/<Letter>.md` template, and symlinks git
stored as text files (a linked one, an unlinked one, one naming nothing) beside a real symlink, a tree
drawn of the user's repo and one drawn of the Skill's own references."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.cli import main
from workbench.core.workspace import load_workspace
from workbench.tui.data import WorkspaceView

HEAD = "---\nname: {name}\ndescription: {description}\n---\n\n"


def _market(root: Path) -> None:
    """Two plugins of one marketplace; the ledger Skill holds one of each shape."""
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin/marketplace.json").write_text(json.dumps({"name": "m", "plugins": [
        {"name": "books", "source": "./books"}, {"name": "tax", "source": "./tax"}]}) + "\n")
    for plugin in ("books", "tax"):
        (root / plugin / ".claude-plugin").mkdir(parents=True)
        (root / plugin / ".claude-plugin/plugin.json").write_text(json.dumps({"name": plugin}) + "\n")
    (root / "tax/skills/filing").mkdir(parents=True)
    (root / "tax/skills/filing/SKILL.md").write_text(HEAD.format(name="filing", description="File returns.")
                                                     + "Before filing, read [deadlines](deadlines.md).\n\n"
                                                       "[Tax Forms Index]|root: ./forms|IMPORTANT: read a form's page "
                                                       "before you fill it in|state:{resale.md,payroll.md}|federal.md\n\n"
                                                       "Before a schedule, read `**/skills/filing/schedules/<Letter>.md`\n")
    (root / "tax/skills/filing/deadlines.md").write_text("# deadlines\n")
    for name in ("forms/state/resale.md", "forms/state/payroll.md", "forms/state/archive.md", "forms/federal.md",
                 "schedules/A.md", "schedules/B.md"):
        (root / "tax/skills/filing" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "tax/skills/filing" / name).write_text(f"# {name}\n")
    ledger = root / "books/skills/ledger"
    (ledger / "references").mkdir(parents=True)
    for name in ("posting.md", "closing.md", "evolution-log.md"):
        (ledger / "references" / name).write_text(f"# {name}\n")
    (ledger / "SKILL.md").write_text(
        HEAD.format(name="ledger", description="Keep the books of a small firm.")
        + "## Reference Files\n\n- Before posting an entry, read `posting.md`\n"
          "- Before closing a month, read `closing.md`\n"
          "- Before voiding an entry, read `voiding.md`\n"
          "- Before a filing, read `../../../tax/skills/filing/deadlines.md`\n\n"
          "## Layout\n\n| Rule type | Suggested Path |\n|---|---|\n| Sales | `rules/sales.md` |\n\n"
          "## After the task\n\n1. **Log it.** — Evolution-log entry with what changed.\n\n"
          "## Related\n\nThe audit-trail skill provides:\n- `trail_rules.md`: read it before you amend a posted entry\n"
          "- Before rounding a total, read `rounding.md`\n")
    trail = root / "books/skills/audit-trail"
    (trail / "references").mkdir(parents=True)
    (trail / "SKILL.md").write_text(HEAD.format(name="audit-trail", description="Keep the audit trail.")
                                    + "Read [rules](references/trail_rules.md) first.\n")
    (trail / "references/trail_rules.md").write_text("# trail rules\n")
    (root / ".claude/rules").mkdir(parents=True)
    (root / ".claude/rules/rounding.md").write_text("# rounding\n")
    (root / "books/AGENTS.md").write_text("# Contributing\n\n- **`SKILL.md`**: always uppercase\n")
    (root / "books/shared").mkdir()
    (root / "books/shared/accruals.md").write_text("# accruals, shared by the Skills\n")
    (ledger / "references/accruals.md").write_text("../../../shared/accruals.md")
    (ledger / "references/old-accruals.md").write_text("../../../shared/old-accruals.md\n")
    (trail / "references/accruals.md").symlink_to("../../../shared/accruals.md")
    (ledger / "references/payroll.md").write_text("# payroll\n")
    with (ledger / "SKILL.md").open("a") as skill:
        skill.write("- Before accruing, read `references/accruals.md`\n\n"
                    "## Kept in the user's repo\n\n```\n.books/\n├── LEDGER.md   # balances\n└── months/\n```\n\n"
                    "On resume, read `.books/LEDGER.md` first.\n\n"
                    "## More guides\n\n```\nreferences/\n  payroll.md   running payroll\n```\n")


def test_the_cli_and_the_tui_view_read_the_same_rows_and_findings(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _market(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["init", "."]) == 0
    capsys.readouterr()
    assert main(["rows", "--json"]) == 0
    cli_rows = sorted((r["id"], r["trigger"], tuple(sorted(lk["target"] for lk in r["links"])))
                      for r in json.loads(capsys.readouterr().out))
    assert main(["audit", "--json"]) == 0
    cli = sorted(tuple(f.values()) for f in json.loads(capsys.readouterr().out)["findings"])

    view = WorkspaceView.load(load_workspace(tmp_path))
    tui_rows = sorted((r.id, r.trigger, tuple(sorted(lk.target for lk in r.links))) for r in view.rows)
    tui = sorted(tuple(f.as_dict().values()) for f in [*(f for fs in view.audit.values() for f in fs),
                                                       *view.unattached])
    assert tui_rows == cli_rows
    assert tui == cli

    ledger = (tmp_path / "books/skills/ledger").resolve()
    by_rule = {(f[0], f[2]) for f in cli if f[0] in ("DANGLING", "UNSHIPPED", "UNINDEXED", "STUB")}
    assert by_rule == {
        ("DANGLING", "voiding.md does not exist"),
        ("DANGLING", "rounding.md does not exist (the workspace has it at .claude/rules/rounding.md, outside the "
                     "plugin books: an installed plugin does not ship it)"),
        ("UNSHIPPED", "../../../tax/skills/filing/deadlines.md is outside the plugin books: an installed plugin "
                      "does not ship it"),
        ("UNINDEXED", 'evolution-log.md is named only as "Evolution-log" in SKILL.md, with no path: the agent '
                      "has to search for it (write its path)"),
        ("UNINDEXED", "archive.md is reached from nothing a host loads (no row, Skill, command, agent or procedure "
                      "names it)"),
        ("STUB", "references/accruals.md holds only the path `../../../shared/accruals.md`: a symlink stored as "
                 "text, so a host reads the path, not the procedure (restore the symlink, or copy the file it names)"),
        ("STUB", "old-accruals.md holds only the path `../../../shared/old-accruals.md`: a symlink stored as text, "
                 "so a host reads the path, not the procedure (and that path names no file either)")}
    links = {lk.target: lk.path for r in view.rows for lk in r.links}
    assert links["posting.md"] == ledger / "references/posting.md"
    assert links["closing.md"] == ledger / "references/closing.md"
    assert links["trail_rules.md"] == ledger.parent / "audit-trail/references/trail_rules.md"
    assert "rules/sales.md" not in links and "SKILL.md" not in links
