"""The Ray executor on a local Ray (127.0.0.1, no dashboard): the same records as the thread pool,
retries off, and a driver killed mid-batch then resumed gives one record per planned run while the
started-journal names the runs that were launched and never recorded."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from batch_support import World, batch_cli, config, make_world

from workbench.core.records import load_file
from workbench.runner.batch import RunKey, plan, run_batch
from workbench.runner.executors import ExecutorChoice
from workbench.runner.journal import journal_path, started

if not os.environ.get("CI"):
    pytest.importorskip("ray")  # CI installs the extra (make test), so there these tests always run

pytestmark = pytest.mark.slow

VARYING = {"started_at", "finished_at", "executor", "evidence_conflicts"}
"""Fields that differ between two runs of the same plan: timing, where it ran, and what follows from the
repo watcher's timing (each call's `effects`: which call a change is given to depends on when it landed)."""


def comparable(path: Path) -> list[dict[str, Any]]:
    rows = []
    for r in load_file(path).records:
        row = r.model_dump(mode="json", exclude=VARYING)
        for call in row["calls"]:
            call.pop("effects", None)
        rows.append(row)
    return sorted(rows, key=lambda r: json.dumps(r, sort_keys=True))


def test_ray_tasks_never_retry() -> None:
    from workbench.runner.ray_executor import RUN_TASK

    options = RUN_TASK._default_options
    assert options["max_retries"] == 0 and options["retry_exceptions"] is False


def test_ray_batch_writes_the_records_of_the_thread_pool(tmp_path: Path) -> None:
    w = make_world(tmp_path)
    threads = run_batch(config(w, jobs=2))
    assert threads.complete and threads.executor == "threads"
    kept = tmp_path / "threads.jsonl"
    w.record.rename(kept)
    journal_path(w.record).unlink()
    result = run_batch(config(w, jobs=2, executor=ExecutorChoice(kind="ray", login_slots={"sim": 1})))
    assert result.complete and result.executor == "ray" and result.batch == threads.batch
    assert comparable(w.record) == comparable(kept)
    ray_records = load_file(w.record).records
    assert len(ray_records) == len(plan(config(w)))
    for r in ray_records:
        assert r.executor is not None and r.executor.kind == "ray" and r.executor.node
        assert r.executor.proof == "passed" and r.condition == "confined"
    assert {r.executor.kind for r in load_file(kept).records if r.executor} == {"threads"}


def test_a_killed_worker_is_retried_by_the_driver_and_recorded_once(tmp_path: Path) -> None:
    w = make_world(tmp_path)
    killed: list[int] = []

    def kill_a_running_task(outcome: object, progress: object) -> None:
        if killed:
            return
        for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
            with contextlib.suppress(OSError):
                if cmdline.read_bytes().startswith(b"ray::_run_task"):
                    pid = int(cmdline.parent.name)
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
                    return

    cfg = config(w, runs=2, jobs=2, infra_retries=1, executor=ExecutorChoice(kind="ray"))
    result = run_batch(cfg, on_outcome=kill_a_running_task)
    assert killed, "no Ray task was running when the first run was recorded"
    assert result.complete and not result.lost
    counts = Counter(RunKey.of(r) for r in load_file(w.record).records)
    assert set(counts) == {p.key for p in plan(cfg)} and set(counts.values()) == {1}
    attempts = [json.loads(line)["attempt"] for line in journal_path(w.record).read_text().splitlines()]
    assert attempts.count(1) == 1 and len(attempts) == len(counts) + 1


def test_killed_driver_then_resume_records_each_run_once(tmp_path: Path) -> None:
    w = make_world(tmp_path)
    proc = batch_cli(w, "sim", "--executor", "ray", "--login-slots", "sim=2")
    family: set[int] = set()
    deadline = time.monotonic() + 300
    try:
        while proc.poll() is None and not (w.record.is_file() and w.record.read_bytes().count(b"\n") >= 1):
            assert time.monotonic() < deadline, "no run recorded in 300 s"

            family |= _descendants(proc.pid)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(0.05)
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
        family |= _descendants(proc.pid)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    finally:
        _end(family)
    recorded = {RunKey.of(r) for r in load_file(w.record).records}
    batch = load_file(w.record).records[0].batch
    assert batch is not None
    unrecorded = [RunKey(**k) for k in started(journal_path(w.record), batch) if RunKey(**k) not in recorded]
    assert unrecorded, "the driver was killed with no run in flight"
    resume = batch_cli(w, "sim", "--resume")  # the thread pool resumes what Ray began
    out, err = resume.communicate(timeout=600)
    assert resume.returncode == 0, err.decode()
    loaded = load_file(w.record)
    assert not loaded.problems
    planned = batch_cli_plan(w)
    counts = Counter(RunKey.of(r) for r in loaded.records)
    assert set(counts) == planned and set(counts.values()) == {1}
    spent_lines = [ln for ln in err.decode().splitlines() if "possibly spent, not recorded" in ln]
    assert len(spent_lines) == len(unrecorded)
    for key in unrecorded:
        assert any(f"{key.case} #{key.run}" in ln for ln in spent_lines)


def batch_cli_plan(w: World) -> set[RunKey]:
    """The keys `batch_cli` plans (every case, arms A and B, 3 runs, sim)."""
    return {p.key for p in plan(config(w, runs=3))}


def _descendants(pid: int) -> set[int]:
    """Every live descendant of PID (from /proc)."""
    parent: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            parent[int(stat.parent.name)] = int(fields[1])
    out: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {c for c, pp in parent.items() if pp in frontier} - out
        out |= frontier
    return out


def _end(pids: set[int]) -> None:
    """End the processes the killed driver started (its local Ray), by id."""
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def test_missing_extra_is_one_line_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    import importlib.util

    from workbench.cli import main

    w = make_world(tmp_path)
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "ray" else real(name, *a))
    monkeypatch.chdir(w.ws)
    code = main(["batch", "--hosts", "sim", "--arms", "A=HEAD", "--record", str(w.record), "--executor", "ray",
                 "--unconfined"])
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "[ray]" in lines[0] and "--executor ray" in lines[0]
