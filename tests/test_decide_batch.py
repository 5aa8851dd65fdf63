"""Until-decided batches on the sim host with real git arms: the demo's weak wording against the
shipped one stops early (and a resume with a larger max picks up where the records leave off);
base against base runs to its maximum without deciding; every record names its stop rule."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

from batch_support import ROOT, World, make_demo_arms_world

from workbench.core.cases import load_cases
from workbench.core.decide import Comparison
from workbench.core.models import StopRule
from workbench.core.records import load_file
from workbench.runner.arms import resolve_arm
from workbench.runner.batch import BatchConfig, BatchResult, plan, run_batch
from workbench.runner.guard import Guard


def summary_md(w: World, compare: str) -> str:
    out = subprocess.run([sys.executable, "-m", "workbench", "summary", str(w.record), "--compare", compare],
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, check=True)
    return out.stdout


def row_of(table: str, target: str) -> str:
    """The comparison line of TARGET in a summary's markdown."""
    lines = [line for line in table.splitlines() if f"| {target} (positive) |" in line and "better" in line
             or f"| {target} (positive) |" in line and "undecided" in line]
    assert len(lines) == 1, table
    return lines[0]


def until_decided(w: World, a: str, b: str, max_runs: int, *, resume: bool = False) -> BatchConfig:
    arms = [resolve_arm(w.plugin, "weak" if a == "HEAD~2" else "base", a),
            resolve_arm(w.plugin, "shipped" if a == "HEAD~2" else "again", b)]
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
