"""Records at scale (not timed tests): `summary` and `rescore` as whole processes against a `json.loads`
loop over the same lines, with each child's peak RSS. Prints a markdown report for docs/benchmarks.md.

Inputs are built in a temporary folder from bundled records: the demo batch (100 records, stored in
the current schema) repeated to 100,000 lines (and to 1,000,000 with --million); the same batch as the
runner wrote it in schema v1 (tests/data/records/, migrated on read) repeated to 100,000; and the
published #182 records (309 AgentsMD lines, imported on the fly) repeated x100.

Each measurement is its own child process; its CPU time (user + system, least of --repeat runs) and
peak RSS come from that child's own rusage (os.wait4), so one child's peak never hides another's and
other load on the machine barely moves the numbers.

Usage: python bench/records_scale.py [--repeat N] [--million] [--out FILE]
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "records" / "demo-batch.jsonl"
"""The bundled demo batch, stored in the current schema."""
DEMO_V1 = ROOT / "tests" / "data" / "records" / "demo-batch-v1.jsonl"
"""The same batch as the runner wrote it in schema v1 (migrated on read)."""
PUBLISHED = ROOT / "tests" / "data" / "conformance" / "182-routing-sweep" / "records.jsonl"
LOADS = ("import json, sys\n"
         "with open(sys.argv[1], encoding='utf-8', errors='replace') as fh:\n"
         "    for line in fh:\n"
         "        if line.strip():\n"
         "            json.loads(line)\n")


def repeated(source: Path, times: int, out: Path) -> Path:
    """OUT holding SOURCE's non-blank lines `times` over, written in chunks (never all in memory)."""
    lines = [line for line in source.read_text(encoding="utf-8").splitlines() if line.strip()]
    block = ("\n".join(lines) + "\n").encode("utf-8")
    with out.open("wb") as fh:
        for _ in range(times):
            fh.write(block)
    return out


def child(argv: list[str]) -> tuple[float, int]:
    """(CPU seconds, peak RSS in MB) of one child process, from its own rusage; output discarded.
    CPU time (user + system) rather than wall time: on a shared machine it barely moves with load."""
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {proc.returncode}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss // 1024  # Linux reports KB


def best(argv: list[str], repeat: int) -> tuple[float, int]:
    """Least CPU time of `repeat` runs and the highest peak RSS seen."""
    runs = [child(argv) for _ in range(repeat)]
    return min(s for s, _ in runs), max(m for _, m in runs)


def measure(path: Path, repeat: int) -> dict[str, float]:
    """json.loads, summary and rescore over one file; the three are interleaved per repeat."""
    py = sys.executable
    argvs = {"loads": [py, "-c", LOADS, str(path)],
             "summary": [py, "-m", "workbench", "summary", str(path), "--format", "json"],
             "rescore": [py, "-m", "workbench", "rescore", str(path)]}
    times: dict[str, list[float]] = {k: [] for k in argvs}
    peaks: dict[str, int] = dict.fromkeys(argvs, 0)
    for _ in range(repeat):
        for name, argv in argvs.items():
            seconds, peak = child(argv)
            times[name].append(seconds)
            peaks[name] = max(peaks[name], peak)
    with path.open("rb") as fh:
        lines = sum(1 for line in fh if line.strip())
    out: dict[str, float] = {"lines": lines, "mb": path.stat().st_size / 1e6}
    for name in argvs:
        out[f"{name}_s"], out[f"{name}_mb"] = min(times[name]), peaks[name]
    return out


def report(repeat: int, million: bool) -> str:
    """Build the inputs, measure, format the markdown section."""
    with tempfile.TemporaryDirectory(prefix="wb-bench-records-") as tmp:
        folder = Path(tmp)
        startup = best([sys.executable, "-m", "workbench", "summary", str(DEMO), "--format", "json"], repeat)
        current = DEMO
        inputs = {"demo records x1,000 (current schema)": (repeated(current, 1000, folder / "demo-100k.jsonl"), repeat),
                  "demo records x1,000 (schema v1, migrated on read)": (
                      repeated(DEMO_V1, 1000, folder / "demo-v1-100k.jsonl"), repeat),
                  "#182 records x100 (AgentsMD, imported)": (repeated(PUBLISHED, 100, folder / "p182.jsonl"), repeat)}
        rows = {label: measure(path, n) for label, (path, n) in inputs.items()}
        if million:
            rows["demo records x10,000 (current schema)"] = measure(repeated(current, 10000, folder / "demo-1m.jsonl"),
                                                                    1)
        load = os.getloadavg()
    out = [
        f"Measured {time.strftime('%Y-%m-%d')} on {platform.machine()}, {os.cpu_count()} cores (shared with "
        f"other work), Python {platform.python_version()}; whole processes, CPU seconds (user + system), "
        f"least of {repeat} (1 for 1,000,000 lines); peak RSS of each child from its own rusage; load "
        f"average at the end {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (1 / 5 / 15 min).",
        "",
        f"Start-up alone (`summary` of the 100-record demo): {startup[0]:.2f} s, {startup[1]} MB.",
        "",
        "| input | lines | MB | json.loads CPU s / MB RSS | summary CPU s / MB RSS | ratio | rescore CPU s / MB RSS "
        "| ratio |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for label, r in rows.items():
        cells = [f"{r[k + '_s']:.2f} / {r[k + '_mb']:.0f}" for k in ("loads", "summary", "rescore")]
        out.append(f"| {label} | {r['lines']:,.0f} | {r['mb']:.0f} | {cells[0]} | {cells[1]} | "
                   f"{r['summary_s'] / r['loads_s']:.2f} | {cells[2]} | {r['rescore_s'] / r['loads_s']:.2f} |")
    return "\n".join(out) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--million", action="store_true", help="also 1,000,000 lines (2.1 GB on disk)")
    parser.add_argument("--out", help="also write the report to this file")
    args = parser.parse_args()
    text = report(args.repeat, args.million)
    sys.stdout.write(text)
    if args.out:
        Path(args.out).write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
