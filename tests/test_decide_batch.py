"""Until-decided batches on the sim host with real git arms: the demo's weak wording against the
shipped one stops early (and a resume with a larger max picks up where the records leave off);
base against base runs to its maximum without deciding; every record names its stop rule."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from batch_support import ROOT, World, make_demo_arms_world

from workbench.core.cases import load_cases
from workbench.core.decide import Comparison
from workbench.core.models import StopRule
from workbench.core.records import load_file
from workbench.runner.arms import resolve_ref
from workbench.runner.batch import BatchConfig, BatchResult, plan, run_batch
from workbench.runner.guard import Guard


def summary_md(w: World, compare: str) -> str:
    out = subprocess.run([sys.executable, "-m", "workbench", "summary", str(w.record), "--compare", compare],
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, check=True)
    assert "PARTIAL" not in out.stderr  # stopped by its rule, not cut short
    return out.stdout


def row_of(table: str, target: str) -> str:
    """The comparison line of TARGET in a summary's markdown."""
    lines = [line for line in table.splitlines() if f"| {target} (positive) |" in line and "better" in line
             or f"| {target} (positive) |" in line and "undecided" in line]
    assert len(lines) == 1, table
    return lines[0]


def until_decided(w: World, a: str, b: str, max_runs: int, *, resume: bool = False) -> BatchConfig:
    arms = [resolve_ref(w.plugin, "weak" if a == "HEAD~2" else "base", a),
            resolve_ref(w.plugin, "shipped" if a == "HEAD~2" else "again", b)]
    rule = StopRule(rule="until-decided", max_runs=max_runs, alpha=0.05, compare=[arms[0].name, arms[1].name])
    return BatchConfig(cases=load_cases(w.ws / "cases"), hosts=["sim"], arms=arms, runs=max_runs, record=w.record,
                       jobs=2, guard=Guard.for_home(w.home, [w.ws], own=[w.record]),
                       fixture=w.ws / "fixtures" / "base", real_home=w.home, timeout=120, stop=rule, resume=resume)


def test_plan_is_run_by_run_when_until_decided(tmp_path: Path) -> None:
    w = make_demo_arms_world(tmp_path)
    items = plan(until_decided(w, "HEAD~2", "HEAD~1", 3))
    assert [(p.case.id, p.key.run) for p in items[:4]] == [("incident-outage", 0)] * 2 + [("release-ship", 0)] * 2
    assert [p.key.run for p in items] == sorted(p.key.run for p in items)


def test_weak_vs_shipped_stops_early_and_resume_continues(tmp_path: Path) -> None:
    w = make_demo_arms_world(tmp_path)
    first: BatchResult = run_batch(until_decided(w, "HEAD~2", "HEAD~1", 20))
    incident, release = Comparison("sim", "incident", "positive"), Comparison("sim", "release", "positive")
    assert first.complete and first.decisions[incident].better == "B" and not first.decisions[release].decided
    assert first.not_needed > 0 and len(first.outcomes) < first.planned
    assert first.decisions[release].more_pairs is not None  # undecided, with an estimate of pairs still needed
    table = summary_md(w, "weak,shipped")
    assert "decided: shipped better (e = " in row_of(table, "incident")
    assert f"undecided: ~{first.decisions[release].more_pairs} more pairs at the observed rate" in row_of(table, "release")
    loaded = load_file(w.record)
    per_case = Counter((r.case_id, r.arm) for r in loaded.records)
    assert per_case[("release-ship", "weak")] == 20 > per_case[("incident-outage", "weak")]
    assert {r.stop_rule.model_dump_json() if r.stop_rule else None for r in loaded.records} == {
        StopRule(rule="until-decided", max_runs=20, alpha=0.05, compare=["weak", "shipped"]).model_dump_json()}

    second = run_batch(until_decided(w, "HEAD~2", "HEAD~1", 30, resume=True))
    assert second.decisions[release].better == "B" and second.decisions[incident].better == "B"
    assert second.skipped == len(loaded.records) and "every comparison decided" in second.stop_reason()
    again = load_file(w.record).records[len(loaded.records):]
    assert again and {r.case_id for r in again} == {"release-ship"}  # the decided row did not run again
    assert second.decisions[release].pairs < 30


def test_base_vs_base_runs_to_max_without_deciding(tmp_path: Path) -> None:
    w = make_demo_arms_world(tmp_path)
    result = run_batch(until_decided(w, "HEAD~1", "HEAD", 6))
    assert result.complete and len(result.outcomes) == result.planned == 2 * 2 * 6
    assert result.decisions and not any(d.decided for d in result.decisions.values())
    assert all(d.pairs == 6 and d.only_a == d.only_b == 0 for d in result.decisions.values())
    assert "0 of 2 comparison(s) decided" in result.stop_reason()
    assert "undecided: no difference seen in 6 pairs" in row_of(summary_md(w, "base,again"), "release")


def test_cli_refuses_until_decided_without_max_runs_or_with_one_arm(tmp_path: Path) -> None:
    w = make_demo_arms_world(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    base = [sys.executable, "-m", "workbench", "batch", "--record", str(w.record), "--home", str(w.home)]
    for extra, needle in ((["--arms", "a=HEAD~1,b=HEAD", "--until-decided"], "--max-runs"),
                          (["--arms", "a=HEAD", "--until-decided", "--max-runs", "3"], "two arms"),
                          (["--arms", "a=HEAD,b=HEAD", "--until-decided", "--max-runs", "3"], "same commit"),
                          (["--arms", "a=HEAD~1,b=HEAD", "--alpha", "0.1"], "--until-decided")):
        out = subprocess.run([*base, *extra], cwd=w.ws, env=env, capture_output=True, text=True)
        assert out.returncode == 2, (extra, out.stderr)
        assert needle in out.stderr and "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_a_fixed_batch_records_its_rule(tmp_path: Path) -> None:
    w = make_demo_arms_world(tmp_path, cases=("release-ship",))
    cfg = until_decided(w, "HEAD~2", "HEAD~1", 1)
    cfg.stop = None
    run_batch(cfg)
    rules = {r.stop_rule.rule if r.stop_rule else None for r in load_file(w.record).records}
    assert rules == {"fixed"}


def cli(w: World, *args: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "workbench", "batch", "--cases", "release-ship", "--hosts", "sim", "--home",
            str(w.home), "--unconfined", *args]
    return subprocess.run(argv, cwd=w.ws, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True)


def test_forecast_before_launch_and_a_token_budget_stops_with_whole_records(tmp_path: Path) -> None:
    w = make_demo_arms_world(tmp_path, cases=("release-ship",))
    first = cli(w, "--arms", "weak=HEAD~2,shipped=HEAD~1", "--runs", "2", "--record", str(w.record))
    assert first.returncode == 0, first.stderr
    assert "forecast: 4 run(s) · unknown tokens · unknown USD" in first.stderr
    earlier = load_file(w.record).records
    per_run = sum((r.usage.input_tokens or 0) + (r.usage.output_tokens or 0) for r in earlier) / len(earlier)

    refused = cli(w, "--arms", "weak=HEAD~2,shipped=HEAD~1", "--runs", "3", "--record", str(w.ws / "records" / "usd.jsonl"),
                  "--budget-usd", "1")
    assert refused.returncode == 2 and "--budget-usd cannot be checked" in refused.stderr
    assert "sim/sim-policy" in refused.stderr and not (w.ws / "records" / "usd.jsonl").exists()

    second_file = w.ws / "records" / "second.jsonl"
    budget = int(per_run * 2.5)
    out = cli(w, "--arms", "weak=HEAD~2,shipped=HEAD~1", "--runs", "5", "--record", str(second_file),
              "--budget-tokens", str(budget), "--json")
    assert out.returncode == 1, out.stderr
    data = json.loads(out.stdout)
    assert data["forecast"]["runs"] == 10 and data["forecast"]["history"] == len(earlier)
    assert data["forecast"]["tokens"]["total"] == pytest.approx(per_run * 10, rel=0.2)
    assert "forecast: 10 run(s) · " in out.stderr and "unknown tokens" not in out.stderr
    assert data["result"]["budget"].startswith("budget: the next run") and "stopped launching" in out.stderr
    assert data["stop_rule"]["budget_tokens"] == budget
    second = load_file(second_file)
    assert not second.problems and len(second.records) == 2  # a third run at the mean would pass 2.5 runs' worth
    assert all(r.stop_rule and r.stop_rule.budget_tokens == budget for r in second.records)
