"""Benchmark (not a timed test): one scripted canary per host, and the workbench's own overhead around it.

For each host, N runs of the same canary (demo case `docs-readme-section`; script: load the entry
skill, read the procedure, edit the README) against the scripted model server (sim: its own
script runner). Per run:

- total:    `execute` (fixture repo, plugin copy, model server, launch, host, parse, score,
            record) plus appending the record to a records file;
- host:     the host process's own wall time (`HostRun.duration`, measured by `run_process`
            from spawn to exit);
- overhead: total - host, i.e. everything the workbench adds. Target: <= 150 ms median.

The overhead is also split by timing the steps it is made of (model server start/stop, adapter
build + materialize, fixture repo, scoring + record, record append, the rest = temp dirs, plugin
copy, Codex re-parse, cleanup). Prints a markdown section; `--append FILE` adds it to FILE.

Usage: python bench/hosts.py [--runs N] [--hosts claude,codex,...] [--append docs/benchmarks.md]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from workbench.core.cases import find_case
from workbench.core.records import append_record
from workbench.hosts import ADAPTERS
from workbench.hosts.install import find_binary, hosts_dir
from workbench.modelstub import parse_script

ROOT = Path(__file__).resolve().parent.parent
HOSTS = ("claude", "codex", "opencode", "gemini", "sim")
SCRIPT = parse_script({"steps": [
    {"calls": [{"skill": "ops"}]},
    {"calls": [{"read": "{plugin}/skills/ops/workflows/docs.md"}]},
    {"calls": [{"edit": {"path": "{repo}/README.md", "old": "# greeter", "new": "# greeter\n\nTests: pytest."}}]},
    {"say": "Done."},
]})
STEPS = ("server", "launch", "fixture", "score+record", "append")


class StepTimer:
    """Accumulates wall time per named step of the current run, by wrapping functions in place."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = defaultdict(float)

    def wrap(self, owner: Any, name: str, step: str) -> None:
        original: Callable[..., Any] = getattr(owner, name)

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                self.spent[step] += time.perf_counter() - start

        setattr(owner, name, timed)


def instrument() -> StepTimer:
    """Wrap the overhead steps (each is outside the host process's own time)."""
    import workbench.runner.execute as execute_mod
    import workbench.runner.hostrun as hostrun_mod
    from workbench.hosts.base import Launch
    from workbench.modelstub.server import ModelServer

    timer = StepTimer()
    timer.wrap(ModelServer, "__init__", "server")
    timer.wrap(ModelServer, "start", "server")
    timer.wrap(ModelServer, "stop", "server")
    timer.wrap(hostrun_mod, "_spec", "launch")
    timer.wrap(Launch, "materialize", "launch")
    for adapter in ADAPTERS.values():
        timer.wrap(adapter, "build", "launch")
    timer.wrap(execute_mod, "make_fixture", "fixture")
    timer.wrap(execute_mod, "build_record", "score+record")
    return timer


@contextmanager
def step(timer: StepTimer, name: str) -> Iterator[None]:
    start = time.perf_counter()
    yield
    timer.spent[name] += time.perf_counter() - start


def one_run(host: str, timer: StepTimer, records: Path) -> dict[str, float]:
    """One canary on HOST; seconds for total, host process, overhead and each step."""
    from workbench.runner.execute import execute
    from workbench.runner.request import build_request

    binary = None if host == "sim" else find_binary(host, hosts_dir())
    case = find_case("docs-readme-section", ROOT / "cases")
    req = build_request(case, host, door="canary", plugin=ROOT / "plugin", fixture=ROOT / "fixtures" / "base",
                        script=SCRIPT, binary=binary, timeout=120.0)
    timer.spent.clear()
    start = time.perf_counter()
    result = execute(req)
    with step(timer, "append"):
        append_record(records, result.record)
    total = time.perf_counter() - start
    if result.record.overall != "fired" or not result.record.valid:
        raise SystemExit(f"{host}: the benchmark run was not a clean fired run: {result.record.overall}")
    out = {"total": total, "host": result.run.duration, "overhead": total - result.run.duration}
    out.update({name: timer.spent.get(name, 0.0) for name in STEPS})
    out["rest"] = out["overhead"] - sum(out[name] for name in STEPS)
    return out


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f}"


def report(results: dict[str, list[dict[str, float]]], first: dict[str, dict[str, float]], runs: int) -> str:
    """The markdown section: medians per host, then the overhead split."""
    cpus = os.cpu_count()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    lines = [
        "## Host runs: wall time and the workbench's overhead (`bench/hosts.py`)",
        "",
        f"Measured {datetime.now(UTC):%Y-%m-%d} on {platform.machine()}, {cpus} cores, Python "
        f"{platform.python_version()};",
        f"load average {load:.1f} when it ended; median of {runs} runs per host after one first run.",
        "One scripted canary of `docs-readme-section` (load the skill, read the procedure, edit) on the",
        "pinned CLIs against the scripted model server; sim runs the same script itself.",
        "**host** = the host process alone (`run_process`: spawn to exit); **overhead** = the whole",
        "canary (fixture repo, plugin copy, model server, launch, parse, score, record, append to a",
        "records file) minus host. Target: overhead <= 150 ms median.",
        "",
        "| host | total ms | host ms | overhead ms | min-max overhead ms | first run's overhead ms |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for host, rows in results.items():
        med = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
        over = [r["overhead"] for r in rows]
        lines.append(f"| {host} | {ms(med['total'])} | {ms(med['host'])} | {ms(med['overhead'])} | "
                     f"{ms(min(over))}-{ms(max(over))} | {ms(first[host]['overhead'])} |")
    lines += ["", "Overhead split (median ms per run):", "",
              "| host | " + " | ".join(STEPS) + " | rest |", "|---|" + "---:|" * (len(STEPS) + 1)]
    for host, rows in results.items():
        cells = [ms(statistics.median(r[k] for r in rows)) for k in (*STEPS, "rest")]
        lines.append(f"| {host} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--hosts", default=",".join(HOSTS))
    parser.add_argument("--append", metavar="FILE", help="append the markdown section to FILE")
    args = parser.parse_args(argv)
    timer = instrument()
    results: dict[str, list[dict[str, float]]] = {}
    first: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="wb-bench-") as tmp:
        records = Path(tmp) / "records.jsonl"
        for host in args.hosts.split(","):
            if host != "sim" and find_binary(host, hosts_dir()) is None:
                print(f"{host}: not installed (workbench hosts install); skipped", file=sys.stderr)
                continue
            first[host] = one_run(host, timer, records)  # not in the median: it also probes `--version` once
            results[host] = [one_run(host, timer, records) for _ in range(args.runs)]
            print(f"{host}: done", file=sys.stderr)
    text = report(results, first, args.runs)
    print(text)
    if args.append:
        with open(args.append, "a", encoding="utf-8") as out:
            out.write("\n" + text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
