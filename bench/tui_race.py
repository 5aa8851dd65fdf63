"""The arrow-key race under load: the tmux e2e test (draft canary, then a batch, at 80x24) N times while
busy-loop processes hold the CPUs; prints a markdown line for docs/benchmarks.md.

The race (docs/tui.md, "The draft loop"): keys typed while the row's highlight was still queued went into
an editor that the late highlight then reloaded. The e2e test types `Right Right Always: ` into the editor
and fails if any key is lost, so each pass under load is one run the race did not bite.

Usage: python bench/tui_race.py [--runs N] [--busy N] [--log FILE]
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEST = "tests/test_tui_e2e.py::test_draft_canary_then_promote_to_a_finished_batch_in_tmux_at_80x24"
BUSY = "while True: pass"


def one_run() -> tuple[bool, float, str]:
    """Run the e2e test once in a fresh pytest; whether it passed, its seconds, and its last output line."""
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x", TEST], cwd=ROOT,
                          capture_output=True, text=True)
    lines = (done.stdout + done.stderr).strip().splitlines()
    return done.returncode == 0, time.perf_counter() - t0, lines[-1] if lines else ""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--busy", type=int, default=2, help="busy-loop processes running meanwhile")
    ap.add_argument("--log", type=Path, help="append one line per run here as it ends")
    args = ap.parse_args()
    busy = [subprocess.Popen([sys.executable, "-c", BUSY]) for _ in range(args.busy)]
    passed, seconds = 0, []
    try:
        for i in range(args.runs):
            ok, secs, last = one_run()
            passed += ok
            seconds.append(secs)
            line = f"run {i + 1}/{args.runs}: {'pass' if ok else 'FAIL'} in {secs:.0f} s · {last}"
            print(line, file=sys.stderr, flush=True)
            if args.log:
                with args.log.open("a", encoding="utf-8") as fh:
                    fh.write(line + "\n")
    finally:
        for p in busy:
            p.kill()
            p.wait()
    print(f"| tmux e2e (draft canary + batch, 80x24) under {args.busy} busy loops | {passed}/{args.runs} passed "
          f"| median {sorted(seconds)[len(seconds) // 2]:.0f} s per run | {platform.machine()}, "
          f"{os.cpu_count()} cores |")


if __name__ == "__main__":
    main()
