"""Benchmarks of the batch executors (not timed tests): prints a markdown report for docs/benchmarks.md.

1. Ray's startup cost: `ray.init` of a local Ray (127.0.0.1, no dashboard) and its shutdown.
2. Batch throughput on the sim host (its seeded policy), confined, in runs per minute: the thread
   pool and Ray on a local instance, each with --jobs 1 and 2 (Ray: login:sim slots = jobs). Ray's
   figure excludes its startup (reported on its own); both include the proof and self-checks.
3. The driver's cost per run under Ray: batch wall time minus the runs' own time, per run.

Usage: python bench/executors.py [--runs N] [--out FILE]
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # nothing leaves the machine
sys.path.insert(0, str(ROOT / "tests"))

from batch_support import config, make_world  # noqa: E402

from workbench.runner.batch import run_batch  # noqa: E402
from workbench.runner.executors import ExecutorChoice  # noqa: E402


def startup(repeat: int) -> tuple[float, float]:
    """Median seconds of a local `ray.init` and of its `ray.shutdown`."""
    import ray

    inits, downs = [], []
    for _ in range(repeat):
        t = time.perf_counter()
        ray.init(num_cpus=2, include_dashboard=False, _node_ip_address="127.0.0.1", log_to_driver=False)
        inits.append(time.perf_counter() - t)
        t = time.perf_counter()
        ray.shutdown()
        downs.append(time.perf_counter() - t)
    return statistics.median(inits), statistics.median(downs)


def throughput(kind: str, jobs: int, runs: int) -> tuple[int, float, float]:
    """(runs, wall seconds, summed host seconds) of one confined sim batch (Ray already started)."""
    tmp = Path(tempfile.mkdtemp(prefix="bench-exec-"))
    try:
        w = make_world(tmp)
        choice = ExecutorChoice(kind="ray", login_slots={"sim": jobs}) if kind == "ray" else ExecutorChoice()
        cfg = config(w, runs=runs, jobs=jobs, executor=choice)
        t = time.perf_counter()
        result = run_batch(cfg)
        wall = time.perf_counter() - t
        assert result.complete, result.stop_reason()
        inside = sum(sum(o.seconds.values()) for o in result.outcomes)
        return len(result.outcomes), wall, inside
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3, help="runs per case and arm (2 cases x 2 arms)")
    ap.add_argument("--repeat", type=int, default=2, help="ray.init repeats")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    import ray

    init, down = startup(args.repeat)
    rows = []
    for jobs in (1, 2):
        n, wall, inside = throughput("threads", jobs, args.runs)
        rows.append(("threads", jobs, n, wall, inside))
    for jobs in (1, 2):
        ray.init(num_cpus=2, include_dashboard=False, _node_ip_address="127.0.0.1", log_to_driver=False,
                 resources={"login:sim": float(jobs)})
        try:
            n, wall, inside = throughput("ray", jobs, args.runs)
        finally:
            ray.shutdown()
        rows.append(("ray (local)", jobs, n, wall, inside))
    lines = [f"Measured {time.strftime('%Y-%m-%d')} on {platform.machine()}, Python {platform.python_version()}, "
             f"ray {ray.__version__}; sim host, confined, 2 cases x 2 arms x {args.runs} runs.", "",
             f"Local Ray startup (ray.init, median of {args.repeat}): {init:.2f} s; shutdown {down:.2f} s.", "",
             "| executor | jobs | runs | wall s | runs/min | overhead s/run |", "|---|---:|---:|---:|---:|---:|"]
    for kind, jobs, n, wall, inside in rows:
        driver = max(0.0, wall - inside / jobs) / n
        lines.append(f"| {kind} | {jobs} | {n} | {wall:.1f} | {60 * n / wall:.1f} | {driver:.2f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
