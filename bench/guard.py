"""Benchmark of the guard (not a timed test): one snapshot of a workspace holding an ignored folder
of N files (a `.venv`), median over R snapshots. Target: under 50 ms at N = 10,000, whatever N.

Usage: python bench/guard.py [--files N] [--runs R]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from workbench.runner.guard import Guard  # noqa: E402


def workspace(root: Path, files: int) -> Path:
    ws = root / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / ".gitignore").write_text(".venv/\n*.log\n", encoding="utf-8")
    (ws / "src" / "app.py").write_text("print('hi')\n", encoding="utf-8")
    for i in range(files):
        d = ws / ".venv" / "lib" / f"pkg{i // 100}"
        d.mkdir(parents=True, exist_ok=True)
        (d / f"m{i}.py").write_text("x = 1\n", encoding="utf-8")
    for argv in (["git", "init", "-q"], ["git", "add", "."], ["git", "-c", "user.name=b", "-c", "user.email=b@b",
                                                               "commit", "-qm", "ws"]):
        subprocess.run(argv, cwd=ws, check=True)
    return ws


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=20)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        guard = Guard.for_home(home, [workspace(Path(tmp), args.files)])
        times = []
        for _ in range(args.runs):
            t = time.perf_counter()
            guard.snapshot()
            times.append((time.perf_counter() - t) * 1000)
        print(f"guard snapshot, ignored folder of {args.files} files: median {statistics.median(times):.1f} ms "
              f"(min {min(times):.1f}, max {max(times):.1f}, {args.runs} runs)")


if __name__ == "__main__":
    main()
