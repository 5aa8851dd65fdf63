"""A real plugin's routing (tests/data/corpus/*): rows, lint findings and audit written by hand."""

from __future__ import annotations

from pathlib import Path

from workbench.core.audit import dangling
from workbench.core.lint import lint_rows
from workbench.core.routing import parse_files

CORPUS = Path(__file__).resolve().parent / "data" / "corpus"

AGENTSMD_IDS = [
    "description", "elon-method", "context", "project-direction", "research", "software-design", "prototype",
    "diagnosis", "grilling", "domain-modeling", "wayfinder", "to-spec", "implementation", "test-design",
    "orchestration", "verification", "project-verification", "artifacts", "writing-for-agents",
    "technical-writing", "reflection", "preferences-pruning", "version-control", "delivery-profile", "delivery",
    "finalization", "repository-setup", "reconciliation", "use-grok"]


def test_agentsmd_operations_rows_lint_and_audit() -> None:
    skill = CORPUS / "agentsmd/skills/operations/SKILL.md"
    rows = parse_files([skill])
    assert [r.id for r in rows] == [f"operations/{i}" for i in AGENTSMD_IDS]
    by_id = {r.id: r for r in rows}
    assert by_id["operations/description"].trigger.startswith("Route AgentsMD work to the procedure needed now")
    assert by_id["operations/elon-method"].trigger == "For material work"
    assert [lk.target for lk in by_id["operations/writing-for-agents"].links] == [
        "workflows/writing-for-agents/index.md", "workflows/technical-writing/references/prose.md",
        "workflows/writing-for-agents/SKILL-MECHANICS.md"]
    assert by_id["operations/use-grok"].trigger == "User explicitly asks to consult Grok"
    findings = {(f.row, f.rule) for f in lint_rows(rows, max_row_chars=1000)}
    assert findings == {
        # "[grill with docs](...) when terminology or ADR work is needed": a condition, no moment
        ("operations/grilling", "no-before-clause"),
        # "[Specify](...), or [tickets](...) for an existing plan": a bare "or"
        ("operations/to-spec", "no-before-clause"), ("operations/to-spec", "bare-conjunct"),
        # "[Verification](...); [code review](...) for review findings": no moment for code review
        ("operations/verification", "no-before-clause"),
        # "[Technical writing](...) and [prose](...)": a bare "and"
        ("operations/technical-writing", "no-before-clause"), ("operations/technical-writing", "bare-conjunct"),
    }
    assert dangling(rows) == []
