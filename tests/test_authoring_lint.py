"""Routing rows, row lint and audit: the demo is clean; a broken copy shows each finding."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from authoring_support import PLUGIN, weak_copy

from workbench.cli import main
from workbench.core.audit import audit, estimate_tokens
from workbench.core.lint import lint_rows
from workbench.core.lint_rules import RULES
from workbench.core.routing import assign_ids, parse_files, parse_text
from workbench.core.workspace import PACKAGE_ROOT, load_workspace

DOCS = PACKAGE_ROOT / "docs" / "authoring.md"


def run_json(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, object]]:
    capsys.readouterr()
    code = main([*args, "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_demo_workspace_lints_and_audits_clean(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)  # no workbench.toml here: the bundled demo opens
    ws = load_workspace()
    assert ws.demo and ws.plugin_dir == PLUGIN
    assert run_json(["lint", "--strict"], capsys) == (0, {"findings": []})
    code, report = run_json(["audit", "--strict"], capsys)
    assert code == 0 and report["findings"] == []
    budget = report["budget"]
    assert isinstance(budget, dict) and 0 < budget["tokens"] <= budget["token_cap"]


def broken_workspace(root: Path) -> Path:
    """A copy of the demo with a broken link, an unlinked procedure and a 'Claim readiness and' row."""
    plugin = root / "plugin"
    shutil.copytree(PLUGIN, plugin)
    skill = plugin / "skills/ops/SKILL.md"
    text = skill.read_text().replace("(workflows/docs.md)", "(workflows/doc.md)")
    text = text.replace("| Before committing |", "| Claim readiness and [verify](workflows/verify.md) |\n"
                                                    "| Before committing |")
    skill.write_text(text)
    (plugin / "skills/ops/workflows/verify.md").write_text("# Verify\n")
    (plugin / "skills/ops/workflows/orphan.md").write_text("# Nobody links me\n")
    (root / "workbench.toml").write_text('[plugin]\npath = "plugin"\n')
    return root


def test_broken_copy_reports_each_finding(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(broken_workspace(tmp_path))
    code, lint = run_json(["lint"], capsys)
    assert code == 0
    findings = lint["findings"]
    assert isinstance(findings, list)
    by_rule = {(f["rule"], f["row"]) for f in findings}
    assert {("no-before-clause", "ops/verify"), ("bare-conjunct", "ops/verify"), ("state-trigger", "ops/verify")} <= by_rule
    assert all(f["row"] == "ops/verify" for f in findings), findings
    assert main(["lint", "--strict"]) == 1
    code, report = run_json(["audit"], capsys)
    assert code == 0
    got = {(f["rule"], Path(str(f["file"])).name, f["line"]) for f in report["findings"]}  # type: ignore[union-attr]
    assert got == {("DANGLING", "SKILL.md", 19), ("UNINDEXED", "orphan.md", None), ("UNINDEXED", "docs.md", None)}
    assert main(["audit", "--strict"]) == 1


def test_weak_wordings_are_flagged(tmp_path: Path) -> None:
    rows = parse_files([weak_copy(tmp_path / "plugin") / "skills/ops/SKILL.md"])
    found = {(f.row, f.rule) for f in lint_rows(rows)}
    assert found == {("ops/release", "no-before-clause"), ("ops/release", "state-trigger"),
                     ("ops/incident", "no-before-clause"), ("ops/incident", "bare-conjunct")}


def test_second_file_with_its_own_clause_passes_and_long_rows_warn(tmp_path: Path) -> None:
    text = ("| When | Read |\n|---|---|\n| Before merging | [a](a.md); before tagging, [b](b.md) |\n"
            "| At the start of every task | [c](c.md) |\n"
            f"| Before editing {'x' * 200} | [d](d.md) |\n")
    rows = assign_ids(parse_text(text, tmp_path / "SKILL.md", skill="skill"))
    found = {(f.row, f.rule) for f in lint_rows(rows, max_row_chars=160)}
    assert found == {("skill/c", "task-start-pointer"), ("skill/c", "no-before-clause"), ("skill/c", "state-trigger"),
                     ("skill/d", "row-length")}


def test_list_map_and_description_rows(tmp_path: Path) -> None:
    (tmp_path / "flows").mkdir()
    (tmp_path / "flows" / "commit.md").write_text("x")
    text = ("---\nname: ops\ndescription: Use before committing.\n---\n"
            "- Before committing: read [commit](flows/commit.md)\n* Before opening a PR -> [pr](flows/pr.md)\n"
            "Plain prose with [a link](flows/commit.md) is not a row in a SKILL.md.\n"
            "Don't read [commit](flows/commit.md) before answering a question.\n")
    rows = assign_ids(parse_text(text, tmp_path / "SKILL.md"))
    assert [(r.id, r.kind, r.line, r.trigger) for r in rows] == [
        ("ops/description", "description", 3, "Use before committing."),
        ("ops/commit", "list", 5, "Before committing"),
        ("ops/pr", "list", 6, "Before opening a PR")]
    assert rows[1].links[0].path == tmp_path / "flows" / "commit.md"
    hook = "Before committing: workflows/commit.md\nBefore tagging, see workflows/release.md\n"
    map_rows = assign_ids(parse_text(hook, tmp_path / "hooks" / "map.txt", plugin=PLUGIN / "skills/ops"))
    assert [(r.id, r.links[0].path.is_file()) for r in map_rows] == [("map/commit", True), ("map/release", True)]


def test_ids_are_stable_under_rewording_and_unique(tmp_path: Path) -> None:
    a = assign_ids(parse_text("|W|R|\n|---|---|\n| Before x | [p](w/p.md) |\n| Before y | [q](v/p.md) |\n",
                              tmp_path / "S.md", skill="s"))
    b = assign_ids(parse_text("|W|R|\n|---|---|\n| When ready | [p](w/p.md) |\n| Before y | [q](v/p.md) |\n",
                              tmp_path / "S.md", skill="s"))
    assert [r.id for r in a] == [r.id for r in b] == ["s/p", "s/v-p"], "the first keeps the short id"


def test_budget_cap(tmp_path: Path) -> None:
    root = broken_workspace(tmp_path)
    (root / "workbench.toml").write_text('[plugin]\npath = "plugin"\n[audit]\ntoken_cap = 10\nline_cap = 3\n')
    ws = load_workspace(root)
    report = audit(ws, parse_files(ws.routing_files(), plugin=ws.plugin_dir))
    budget = [f.message for f in report.findings if f.rule == "BUDGET" and f.message.startswith("claude:")]
    assert len(budget) == 2 and "estimated tokens (cap 10)" in budget[0] and "lines (cap 3)" in budget[1]
    assert {b.host for b in report.budgets} >= {"claude", "codex", "gemini", "opencode"}
    assert estimate_tokens("abcde") == 2


def test_every_rule_is_documented_with_its_evidence() -> None:
    docs = DOCS.read_text()
    for rule in RULES:
        assert f"`{rule.id}`" in docs, rule.id
        assert rule.evidence


def test_trigger_must_name_the_moment_its_cases_measure() -> None:
    from workbench.core.lint import lint_moments, moment_action, names_action
    from workbench.core.routing import Link, Row

    link = Link("v", "verify.md", Path("verify.md"), "state")
    claim = Row("s", "Choose or run proof, review, or claim readiness", (link,), 3, id="s/verify")
    good = Row("s", "Before opening or updating a PR", (link,), 4, id="s/verify@b")
    found = lint_moments([claim, good], {"s/verify": "pr", "s/verify@b": "pr"})
    assert [f.row for f in found] == ["s/verify"] and "opening or updating a PR" in found[0].message
    assert moment_action("pr") == "opening or updating a PR" and moment_action("commit,pr").startswith("committing or")
    assert names_action("Fill PDF forms") and names_action("Edit PDF forms")


def _rows(text: str) -> list[Any]:
    from dataclasses import replace

    from workbench.core.routing import parse_text

    return [replace(r, id=f"s/{i}") for i, r in enumerate(parse_text(text, Path("/p/skills/s/SKILL.md")))]


def test_a_command_moment_asks_the_trigger_to_name_what_the_command_does() -> None:
    """`bash:^gh pr create` measures opening a PR: "Before committing" misses it, "Before opening a pull request"
    names it; an unknown command is named by its words (`make deploy` -> deploying); `tool:Edit` is an edit."""
    from workbench.core.lint import lint_moments, moment_action

    rows = _rows("| Task | Read |\n|---|---|\n| Before opening a pull request | [p](p.md) |\n"
                 "| Before committing | [c](c.md) |\n| Before deploying | [d](d.md) |\n")
    pr, deploy = "bash:^gh\\s+pr\\s+create", "bash:^make\\s+deploy"
    flagged = {f.row for f in lint_moments(rows, {"s/0": pr, "s/1": pr, "s/2": deploy})}
    assert flagged == {"s/1"}
    assert {f.row for f in lint_moments(rows, {"s/0": deploy, "s/2": "tool:^(Edit|Write)$"})} == {"s/0"}
    assert moment_action(pr) == "opening or updating a PR" and moment_action(deploy) == "running `make deploy`"


def test_a_bare_follow_row_is_no_state_trigger_and_verbs_are_not_a_closed_list() -> None:
    """"Follow [g](g.md)." has no trigger of its own (the Skill's governs); "Fill", "Edit" and "Stamp" PDF
    forms are imperatives alike, and so is any verb after "when you"; "Claim readiness" stays a state."""
    from workbench.core.lint import lint_rows

    rows = _rows("# S\n\nFollow [g](g.md).\n\nWhen you fill PDF forms, read [f](f.md).\n\n"
                 "When you stamp PDF forms, read [f](f.md).\n\nWhen you are ready, read [f](f.md).\n\n"
                 "| Task | Read |\n|---|---|\n| Fill PDF forms | [f](f.md) |\n| Edit PDF forms | [f](f.md) |\n"
                 "| Stamp PDF forms | [f](f.md) |\n| Claim readiness | [f](f.md) |\n")
    states = {r.trigger for r in rows for f in lint_rows(rows) if f.row == r.id and f.rule == "state-trigger"}
    assert states == {"When you are ready", "Claim readiness"}


@pytest.mark.parametrize("trigger", ["When the cache is big", "Whenever the build is red", "While the lock is held",
                                     "If the tests fail"])
def test_a_condition_opened_by_a_conjunction_is_a_state_not_an_imperative(trigger: str) -> None:
    # "When the ..." is a condition: the conjunction is not an imperative verb taking the object "the ..."
    from workbench.core.lint import names_action
    assert not names_action(f"{trigger}, read")
    assert names_action("When you prune the cache, read") and names_action("Prune the cache, then read")


@pytest.mark.parametrize("key", ["routing", "procedures", "always_loaded"])
def test_a_double_star_inside_a_folder_name_is_bad_input_naming_its_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], key: str) -> None:
    """`skills/**x/*.md` is a glob pathlib refuses: one line naming the file, line and key, exit 2."""
    root = broken_workspace(tmp_path)
    (root / "workbench.toml").write_text(f'[plugin]\npath = "plugin"\n{key} = ["skills/**x/*.md"]\n')
    monkeypatch.chdir(root)
    for command in ("rows", "lint", "audit"):
        capsys.readouterr()
        assert main([command]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "workbench.toml:3:" in err[0] and f"plugin.{key}" in err[0], err
        assert "Traceback" not in err[0] and "'skills/**x/*.md'" in err[0]
