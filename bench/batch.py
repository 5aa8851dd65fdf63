"""Benchmarks of the batch runner (not timed tests): prints a markdown report for docs/benchmarks.md.

1. Per-run harness overhead with a no-op host (`true`): fixture repo, arm copy, sandbox (bwrap
   around the no-op, vs the no-op alone), guard check, cleanup; medians over the runs of a batch.
2. Batch throughput on the sim host (its seeded policy), confined, with --jobs 1 and 2.

Usage: python bench/batch.py [--runs N] [--out FILE]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from batch_support import make_world  # noqa: E402

from workbench.core.cases import load_cases  # noqa: E402
from workbench.core.events import ParsedRun  # noqa: E402
from workbench.hosts.base import Launch, clean_env  # noqa: E402
from workbench.runner.arms import resolve_ref  # noqa: E402
from workbench.runner.batch import BatchConfig, RunOutcome, run_batch  # noqa: E402
from workbench.runner.confine import Confinement  # noqa: E402
from workbench.runner.guard import Guard  # noqa: E402
from workbench.runner.hostrun import HostRun  # noqa: E402
from workbench.runner.process import run_process  # noqa: E402


def noop_host(host: str, prompt: str, repo: Path, run_dir: Path, **kw: Any) -> HostRun:
    """A host that does nothing: `true`, through the same wrapper as a real run."""
    for sub in ("home", "tmp"):
        (run_dir / sub).mkdir(exist_ok=True)
    launch = Launch(["true"], {**clean_env(os.environ), "HOME": str(run_dir / "home")}, repo)
    wrap = kw.get("wrap")
    if wrap is not None:
        launch = wrap(launch)
    res = run_process(launch.argv, env=launch.env, cwd=repo, stdout_path=run_dir / "stdout.jsonl",
                      stderr_path=run_dir / "stderr.txt")
    now = datetime.now(UTC).isoformat(timespec="seconds")
    return HostRun(host, ParsedRun(), run_dir / "stdout.jsonl", run_dir / "stderr.txt", res.exit_code,
                   res.timed_out, res.duration, now, now, launch)


def config(tmp: Path, runs: int, jobs: int, confined: bool = True) -> BatchConfig:
    w = make_world(tmp)
    arms = [resolve_ref(w.plugin, "A", "HEAD~1"), resolve_ref(w.plugin, "B", "HEAD")]
    guard = Guard.for_home(w.home, [w.ws], own=[w.record])
    return BatchConfig(cases=load_cases(w.ws / "cases"), hosts=["sim"], arms=arms, runs=runs, record=w.record,
                       jobs=jobs, guard=guard, fixture=w.ws / "fixtures" / "base",
                       confinement=Confinement(w.home, (w.ws,)) if confined else None)


def overhead(runs: int) -> list[tuple[str, float, float]]:
    """Median seconds per phase, confined and unconfined, over one no-op batch each."""
    phases: dict[bool, dict[str, list[float]]] = {}
    for confined in (True, False):
        with tempfile.TemporaryDirectory() as tmp:
            cfg = config(Path(tmp), runs, 1, confined)
            outcomes: list[RunOutcome] = run_batch(cfg, run_host_fn=noop_host).outcomes
        phases[confined] = {k: [o.seconds[k] for o in outcomes] for k in outcomes[0].seconds}
    rows = []
    for name in ("fixture", "arm", "host", "guard", "score", "cleanup"):
        rows.append((name, statistics.median(phases[True][name]), statistics.median(phases[False][name])))
    total_c = sum(r[1] for r in rows)
    total_u = sum(r[2] for r in rows)
    rows.append(("total", total_c, total_u))
    return rows


def throughput(runs: int) -> list[tuple[int, int, float]]:
    """(jobs, runs done, wall seconds) of a confined sim batch."""
    out = []
    for jobs in (1, 2):
        with tempfile.TemporaryDirectory() as tmp:
            cfg = config(Path(tmp), runs, jobs)
            start = time.perf_counter()
            result = run_batch(cfg)
            out.append((jobs, len(result.outcomes), time.perf_counter() - start))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5, help="runs per case and arm (2 cases, 2 arms)")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    lines = [f"Measured {datetime.now(UTC):%Y-%m-%d} on {platform.machine()}, {os.cpu_count()} cores, "
             f"load average {os.getloadavg()[0]:.1f} at start; Python {platform.python_version()}.", "",
             "### Per-run harness overhead, no-op host (median seconds per run)", "",
             "| phase | confined (bwrap) | unconfined |", "|---|---:|---:|"]
    for name, conf, unconf in overhead(args.runs):
        lines.append(f"| {name} | {conf:.3f} | {unconf:.3f} |")
    lines += ["", "### Batch throughput, sim host (policy), confined", "",
              "| jobs | runs | wall s | runs/min |", "|---:|---:|---:|---:|"]
    for jobs, done, wall in throughput(args.runs):
        lines.append(f"| {jobs} | {done} | {wall:.1f} | {done / wall * 60:.1f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
