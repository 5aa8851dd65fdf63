"""Benchmarks of the scoring path (not timed tests): prints a markdown report for docs/benchmarks.md.

1. Rescoring throughput: records lines -> json.loads -> RunRecord -> score with the current rules,
   as a ratio to plain `json.loads` of the same lines (target <= 2.0).
2. Raw-stream scoring throughput: a host's stdout -> its parser -> score(), in MB/s per host.

Usage: python bench/run.py [--repeat N] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from workbench.core.models import ScoreSpec
from workbench.core.parsers import parse_lines
from workbench.core.records import encode, parse_line
from workbench.core.rescore import rescore
from workbench.core.scoring import score

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
PUBLISHED = DATA / "conformance" / "182-routing-sweep" / "records.jsonl"
STREAMS = {
    "claude": ("claude.jsonl", None),
    "codex": ("codex.jsonl", "codex-rollout.jsonl"),
    "opencode": ("opencode-final.jsonl", None),
    "gemini": ("gemini-autoedit-allowshell.jsonl", None),
}
SPEC = ScoreSpec(kind="positive", required=["README.md", "notes.txt"], moment="edit")


def best_of(repeat: int, fn: Callable[[], object]) -> float:
    """The fastest of `repeat` wall-clock timings of fn(), in seconds (least disturbed by other load)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def rescoring(lines: list[str], repeat: int) -> dict[str, float]:
    """Seconds for json.loads alone vs the whole rescore path over the same lines."""

    def loads_only() -> None:
        for line in lines:
            json.loads(line)

    def full() -> None:
        for number, line in enumerate(lines, 1):
            rescore(parse_line(line, file="bench", line=number))

    base = best_of(repeat, loads_only)
    total = best_of(repeat, full)
    return {"lines": len(lines), "mb": sum(map(len, lines)) / 1e6, "loads_s": base, "rescore_s": total,
            "ratio": total / base}


def stream_scoring(host: str, repeat: int, target_mb: float) -> dict[str, float]:
    """MB/s of parse + score for one host's real stream, repeated to about target_mb."""
    name, log = STREAMS[host]
    lines = (DATA / "streams" / name).read_text().splitlines()
    session = (DATA / "streams" / log).read_text().splitlines() if log else None
    size = sum(len(line) + 1 for line in lines)
    copies = max(1, int(target_mb * 1e6 / size))
    big = lines * copies

    def run() -> None:
        parsed = parse_lines(host, big, session)
        score(SPEC, parsed.calls)

    seconds = best_of(repeat, run)
    mb = size * copies / 1e6
    return {"mb": mb, "seconds": seconds, "mb_per_s": mb / seconds}


def report(repeat: int) -> str:
    """Run everything and format the markdown section."""
    published = [line for line in PUBLISHED.read_text().splitlines() if line.strip()] * 20
    native = [encode(rescore(parse_line(line, file="bench", line=1))).decode().rstrip("\n")
              for line in published]
    rows_r = {"published AgentsMD records (imported)": rescoring(published, repeat),
              "our own records (RunRecord)": rescoring(native, repeat)}
    rows_s = {host: stream_scoring(host, repeat, 5.0) for host in STREAMS}
    out = [
        f"Measured {time.strftime('%Y-%m-%d')} on {platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}; best of {repeat} runs each.",
        "",
        "### Rescoring throughput (target: ratio <= 2.0)",
        "",
        "| input | lines | MB | json.loads s | rescore s | ratio |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for label, r in rows_r.items():
        out.append(f"| {label} | {r['lines']:.0f} | {r['mb']:.1f} | {r['loads_s']:.3f} | {r['rescore_s']:.3f} "
                   f"| {r['ratio']:.2f} |")
    out += ["", "### Raw-stream scoring (parse + score)", "", "| host | MB | seconds | MB/s |",
            "|---|---:|---:|---:|"]
    for host, r in rows_s.items():
        out.append(f"| {host} | {r['mb']:.1f} | {r['seconds']:.3f} | {r['mb_per_s']:.1f} |")
    median = statistics.median(r["mb_per_s"] for r in rows_s.values())
    out += ["", f"Median raw-stream throughput: {median:.1f} MB/s."]
    return "\n".join(out) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", help="also write the report to this file")
    args = parser.parse_args()
    text = report(args.repeat)
    sys.stdout.write(text)
    if args.out:
        Path(args.out).write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
