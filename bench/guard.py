"""Benchmark of the guard (not a timed test): snapshots of a workspace holding N ignored files in one
of several layouts; the first snapshot (which learns the folders git need not walk) and the median of
the R - 1 after it, which is what each run of a batch pays. Target: under 50 ms at N = 10,000,
whatever N and whatever the layout.

Layouts: `nested` (`.venv/` ignored, files 100 to a folder), `flat` (`.venv/` ignored, every file
directly in it), `pattern` (`.venv/*` ignored: git lists each entry), `scattered` (`*.pyc` ignored,
files among tracked sources, 100 to a folder), `node` (`node_modules` ignored, 50 to a folder).

Usage: python bench/guard.py [--files N] [--runs R] [--layout NAME ...]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from workbench.runner.guard import Guard  # noqa: E402

LAYOUTS: dict[str, tuple[str, Callable[[int], str]]] = {
    "nested": (".venv/\n", lambda i: f".venv/lib/pkg{i // 100}/m{i}.py"),
    "flat": (".venv/\n", lambda i: f".venv/m{i}.py"),
    "pattern": (".venv/*\n", lambda i: f".venv/m{i}.py"),
    "scattered": ("*.pyc\n", lambda i: f"src/pkg{i // 100}/m{i}.pyc"),
    "node": ("node_modules\n", lambda i: f"node_modules/p{i // 50}/lib/f{i}.js"),
}
"""Layout name -> (.gitignore text, path of ignored file I)."""


def workspace(root: Path, files: int, layout: str = "nested") -> Path:
    ignore, path_of = LAYOUTS[layout]
    ws = root / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / ".gitignore").write_text(ignore + "*.log\n", encoding="utf-8")
    (ws / "src" / "app.py").write_text("print('hi')\n", encoding="utf-8")
    for i in range(files):
        p = ws / path_of(i)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("x = 1\n", encoding="utf-8")
    for argv in (["git", "init", "-q"], ["git", "add", "."], ["git", "-c", "user.name=b", "-c", "user.email=b@b",
                                                               "commit", "-qm", "ws"]):
        subprocess.run(argv, cwd=ws, check=True)
    return ws


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--layout", nargs="*", choices=sorted(LAYOUTS), default=list(LAYOUTS))
    args = ap.parse_args()
    for layout in args.layout:
        with tempfile.TemporaryDirectory() as tmp:
            home = Path(tmp) / "home"
            home.mkdir()
            ws = workspace(Path(tmp), args.files, layout)
            guard = Guard.for_home(home, [ws])
            times, git_times = [], []
            for _ in range(args.runs):
                t = time.perf_counter()
                snap = guard.snapshot()
                times.append((time.perf_counter() - t) * 1000)
                t = time.perf_counter()
                subprocess.run(["git", "status", "--porcelain", "--ignored=matching", "--untracked-files=all"],
                               cwd=ws, check=True, capture_output=True)
                git_times.append((time.perf_counter() - t) * 1000)
            entries = len(next(iter(snap.checkouts.values())).entries)
            later = times[1:]
            print(f"guard snapshot, {layout:9s} {args.files} ignored files: first {times[0]:6.1f} ms, then median "
                  f"{statistics.median(later):6.1f} (min {min(later):.1f}, max {max(later):.1f}); a full git status "
                  f"{statistics.median(git_times):.1f}; {entries} entries; {args.runs} runs")


if __name__ == "__main__":
    main()
