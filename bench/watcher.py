"""Benchmarks of the repo watcher (not timed tests): prints a markdown report for docs/benchmarks.md.

1. The watcher's own cost per run: a real process that touches 50 files of the fixture repo (then
   also commits them, which costs one `git rev-list` to classify; or nothing: an idle run), run
   through `run_process` with and without a `RepoWatcher` around it.
   Reported: the synchronous part the run waits for (start() + stop(), median ms) and the median
   wall-clock difference of the whole run. Target: under 20 ms median added per run.
2. `--hosts`: each host's stdout timing against the effect, on the attribution script of
   tests/test_watcher.py (a shell call that appends to README.md between two that write nothing),
   confined: when the writing call's start line and result line arrived, relative to the moment the
   watcher saw README.md change (ms; negative = before the effect).

Usage: python bench/watcher.py [--runs N] [--hosts] [--host-runs N] [--out FILE]
"""

from __future__ import annotations

import argparse
import functools
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from conftest import HOSTS_CACHE, make_repo  # noqa: E402
from test_watcher import WRITE_BETWEEN  # noqa: E402

from workbench.core.effects import CallClock, attribute, reindex  # noqa: E402
from workbench.hosts import REAL_HOSTS  # noqa: E402
from workbench.hosts.base import Launch  # noqa: E402
from workbench.hosts.install import find_binary  # noqa: E402
from workbench.runner import run_host  # noqa: E402
from workbench.runner.confine import Confinement, bwrap_path  # noqa: E402
from workbench.runner.process import run_process  # noqa: E402
from workbench.runner.watcher import RepoWatcher  # noqa: E402

FILES = 50
TOUCH = "for i in $(seq 1 50); do echo changed >> f$i.txt; done"
COMMIT = TOUCH + " && git -c user.name=t -c user.email=t@e commit -qam run"


def fixture(root: Path) -> Path:
    """The test fixture repo plus 50 tracked files (f1.txt ... f50.txt)."""
    repo = make_repo(root)
    for i in range(1, FILES + 1):
        (repo / f"f{i}.txt").write_text("x\n", encoding="utf-8")
    os.system(f"cd {repo} && git add -A && git -c user.name=t -c user.email=t@e commit -qm files")
    return repo


def one_run(repo: Path, command: str, watched: bool) -> tuple[float, float, int]:
    """Wall seconds of the whole run, seconds spent in start()+stop(), effects seen."""
    out = repo.parent / "out"
    begin = time.perf_counter()
    inside = 0.0
    watcher = None
    if watched:
        t = time.perf_counter()
        watcher = RepoWatcher(repo).start()
        inside += time.perf_counter() - t
    run_process(["/bin/sh", "-c", command], env=dict(os.environ), cwd=repo, stdout_path=out,
                stderr_path=out.with_suffix(".err"))
    count = 0
    if watcher is not None:
        t = time.perf_counter()
        count = len(watcher.stop())
        inside += time.perf_counter() - t
    return time.perf_counter() - begin, inside, count


def cost(runs: int) -> list[dict[str, float | str | int]]:
    """Per workload: median start+stop ms, median wall ms with and without the watcher, and their difference."""
    rows: list[dict[str, float | str | int]] = []
    with tempfile.TemporaryDirectory() as tmp:
        repo = fixture(Path(tmp))
        RepoWatcher(repo).start().stop()  # the first INotify loads libc once per process
        for name, command in (("touches 50 files", TOUCH), ("touches 50 files and commits", COMMIT),
                              ("idle (writes nothing)", "true")):
            walls: dict[bool, list[float]] = {True: [], False: []}
            inside: list[float] = []
            seen = 0
            for n in range(runs):
                for watched in ((False, True) if n % 2 else (True, False)):  # interleaved, alternating first
                    wall, own, count = one_run(repo, command, watched)
                    walls[watched].append(wall)
                    if watched:
                        inside.append(own)
                        seen = count
            on, off = statistics.median(walls[True]) * 1000, statistics.median(walls[False]) * 1000
            rows.append({"workload": name, "effects": seen, "start_stop_ms": statistics.median(inside) * 1000,
                         "without_ms": off, "with_ms": on, "added_ms": on - off})
    return rows


def _confined(launch: Launch, host: str, run_dir: Path, repo: Path) -> Launch:
    """LAUNCH inside bubblewrap, as a batch confines it (the real home hidden)."""
    return Confinement(Path.home()).wrap(launch, host, run_dir, repo)


def host_timing(host: str, runs: int) -> list[tuple[float, float, str]]:
    """Per run: (start line - effect, result line - effect) in ms for the writing call, and the basis."""
    out: list[tuple[float, float, str]] = []
    binary = None if host == "sim" else find_binary(host, HOSTS_CACHE)
    if host != "sim" and binary is None:
        return out
    for _ in range(runs):
        root = Path(tempfile.mkdtemp(prefix=f"wbench-{host}-"))
        try:
            repo = make_repo(root)
            clock = CallClock()
            wrap = functools.partial(_confined, host=host, run_dir=root, repo=repo)
            with RepoWatcher(repo) as watcher:
                run = run_host(host, "Append to the readme.", repo, root, script=WRITE_BETWEEN, binary=binary,
                               timeout=120.0, on_timed_event=clock.see, wrap=wrap)
            spans = reindex(clock.spans(), [c.call_id for c in run.parsed.calls])
            found = attribute(spans, watcher.stop())
            if len(found) != 1 or found[0].call != 1:
                out.append((float("nan"), float("nan"), f"WRONG: {[(a.call, a.effect.path) for a in found]}"))
                continue
            span, t = next(s for s in spans if s.index == 1), found[0].effect.t
            out.append((((span.started or t) - t) * 1000, ((span.finished or t) - t) * 1000, found[0].basis))
        finally:
            shutil.rmtree(root, ignore_errors=True)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--hosts", action="store_true", help="also measure each host's stdout timing (needs the CLIs)")
    ap.add_argument("--host-runs", type=int, default=5)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    lines = [f"Measured {datetime.now(UTC):%Y-%m-%d} on {platform.machine()}, {os.cpu_count()} cores, "
             f"Python {platform.python_version()}, load average {os.getloadavg()[0]:.1f}; medians over {args.runs} "
             "runs each, with and without the watcher interleaved.", "",
             "| workload | effects | start+stop ms | run without ms | run with ms | added ms |",
             "|---|---:|---:|---:|---:|---:|"]
    for row in cost(args.runs):
        lines.append(f"| {row['workload']} | {row['effects']} | {row['start_stop_ms']:.2f} | {row['without_ms']:.1f} | "
                     f"{row['with_ms']:.1f} | {row['added_ms']:.1f} |")
    if args.hosts and bwrap_path() is not None:
        lines += ["", f"Host stdout timing of the writing call, confined, {args.host_runs} runs per host "
                  "(ms relative to the effect; negative = arrived before it):", "",
                  "| host | start line median (min..max) | result line median (min..max) | basis |",
                  "|---|---:|---:|---|"]
        for host in ("sim", *REAL_HOSTS):
            got = host_timing(host, args.host_runs)
            if not got:
                lines.append(f"| {host} | not installed | | |")
                continue
            starts, ends = [g[0] for g in got], [g[1] for g in got]
            bases = ", ".join(sorted({g[2] for g in got}))
            lines.append(f"| {host} | {statistics.median(starts):.0f} ({min(starts):.0f}..{max(starts):.0f}) | "
                         f"{statistics.median(ends):.0f} ({min(ends):.0f}..{max(ends):.0f}) | {bases} |")
    report = "\n".join(lines) + "\n"
    print(report, end="")
    if args.out:
        args.out.write_text(report, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
