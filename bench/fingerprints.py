"""Benchmark of content evidence (not a timed test): prints a markdown report for docs/benchmarks.md.

The bundled plugin's procedures are fingerprinted once; then a 10,000-call run is matched call by
call, as the runner's event path does: a third of the calls print a procedure (with `cat -n`
line-number prefixes), the rest print unrelated text (a 40-line listing, a 2 KB log, every 50th a
60 KB build log). Reported: the one-off fingerprint cost, the whole run, and the per-call cost
(median, p99, max) against a 16 ms UI frame.

Usage: python bench/fingerprints.py [--calls N]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

from workbench.core.fingerprints import Fingerprints, call_evidence
from workbench.core.models import Call
from workbench.runner.procedures import load_procedures

ROOT = Path(__file__).resolve().parent.parent


def outputs(procedures: dict[str, str]) -> list[tuple[str, str]]:
    """(command, output) samples: procedures shown, and unrelated text of three sizes."""
    shown = [(f"cat -n {path}", "\n".join(f"{n:6}\t{line}" for n, line in enumerate(text.splitlines(), 1)))
             for path, text in procedures.items()]
    listing = "\n".join(f"-rw-r--r-- 1 user user {n * 37:6} Dec  1 12:{n % 60:02} file_{n}.py" for n in range(40))
    log = "\n".join(f"commit {n:040x}\nAuthor: A <a@example.com>\n\n    change number {n}\n" for n in range(20))
    build = "\n".join(f"[{n:5}/9999] Compiling module_{n} (release) in {n % 7}.{n % 10}s" for n in range(1500))
    return shown + [("ls -la", listing), ("git log -20", log), ("make build", build)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=10_000)
    args = parser.parse_args()
    procedures = load_procedures(ROOT / "plugin")
    started = time.perf_counter()
    fingerprints = Fingerprints(procedures)
    build_ms = (time.perf_counter() - started) * 1000
    samples = outputs(procedures)
    shown, other = samples[:len(procedures)], samples[len(procedures):]
    calls: list[Call] = []
    for i in range(args.calls):
        if i % 50 == 49:
            command, output = other[2]
        elif i % 3 == 0:
            command, output = shown[i % len(shown)]
        else:
            command, output = other[i % 2]
        calls.append(Call(index=i, tool="Bash", kind="shell", command=command, output=output))
    per_call: list[float] = []
    started = time.perf_counter()
    for call in calls:
        t0 = time.perf_counter()
        call_evidence(fingerprints, call)
        per_call.append((time.perf_counter() - t0) * 1000)
    total = time.perf_counter() - started
    per_call.sort()
    distinctive = sum(len(v) for v in fingerprints.distinctive.values())
    print(f"Measured on {platform.machine()}, {os.cpu_count()} cores, Python {sys.version.split()[0]}.\n")
    print("| procedures | distinctive lines | fingerprints ms | calls | whole run s | per call p50 ms "
          "| p99 ms | max ms |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    print(f"| {len(procedures)} | {distinctive} | {build_ms:.2f} | {len(calls)} | {total:.3f} "
          f"| {statistics.median(per_call):.3f} | {per_call[int(len(per_call) * 0.99)]:.3f} | {per_call[-1]:.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
