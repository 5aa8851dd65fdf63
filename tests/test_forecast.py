"""Budget forecast from earlier records: totals from the real demo batch, unknown stays unknown."""

from __future__ import annotations

from pathlib import Path

from workbench.core.forecast import PlannedRun, forecast, run_tokens
from workbench.core.records import load_file

DEMO = Path(__file__).resolve().parent.parent / "records" / "demo-batch.jsonl"


def test_forecast_of_a_rerun_matches_what_the_demo_batch_spent() -> None:
    records = load_file(DEMO).records
    plan = [PlannedRun(r.host, r.model, r.case_id) for r in records]
    f = forecast(plan, records)
    spent = sum(run_tokens(r) or 0 for r in records)
    assert f.runs == len(records) and f.history == len(records)
    assert f.tokens.total is not None and abs(f.tokens.total - spent) < 1e-6 * max(spent, 1)
    assert f.tokens.low is not None and f.tokens.high is not None
    assert f.tokens.low <= f.tokens.total <= f.tokens.high
    assert f.cost_usd.total is None and "unknown USD" in f.lines()[0]  # sim reports no cost: unknown, not 0
    assert not f.unknown


def test_a_host_with_no_history_is_named_and_not_counted() -> None:
    records = load_file(DEMO).records
    f = forecast([PlannedRun("claude", "sonnet", "commit-typo-fix")], records)
    assert f.tokens.total is None and f.unknown == ["claude/sonnet"]
    assert "unknown tokens" in f.lines()[0]


def test_case_history_is_preferred_over_the_host_model_history() -> None:
    records = load_file(DEMO).records
    by_case: dict[str | None, list[float]] = {}
    for r in records:
        by_case.setdefault(r.case_id, []).append(run_tokens(r) or 0)
    case = max(by_case, key=lambda c: sum(by_case[c]) / len(by_case[c]))
    one = forecast([PlannedRun(records[0].host, records[0].model, case)], records)
    assert one.tokens.total is not None
    assert abs(one.tokens.total - sum(by_case[case]) / len(by_case[case])) < 1e-6
