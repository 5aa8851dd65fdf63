"""Memory of a flood of junk (not a timed test): peak RSS while a host prints MB of short junk lines.

The host is a process printing N MB of 20-byte non-JSON lines; it runs through `run_process` with the
live parser fed line by line (as `run_host` does), then the stream file is parsed again from disk (the
Codex path). Each measurement runs in a fresh interpreter; the baseline is the same with 0 MB.

Usage: python bench/memory.py [--mb 300]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import os, resource, sys, tempfile
from pathlib import Path
sys.path.insert(0, sys.argv[2])
from workbench.core.events import ParsedRun
from workbench.core.parsers import make_parser, parse_lines
from workbench.runner.hostrun import _lines
from workbench.runner.process import run_process
mb = int(sys.argv[1])
blocks = mb * 1024 * 1024 // len(b'junk-junk-junk-junk\n') // 50000
junk = ("import sys\nline = b'junk-junk-junk-junk\\n'\nblock = line * 50000\n"
        "for _ in range(%d):\n    sys.stdout.buffer.write(block)\n" % blocks)
tmp = Path(tempfile.mkdtemp())
parser, run = make_parser("claude"), ParsedRun()
def feed(line):
    for e in parser.feed(line):
        run.apply(e)
res = run_process([sys.executable, "-c", junk], env=dict(os.environ), cwd=tmp, stdout_path=tmp / "out",
                  stderr_path=tmp / "err", on_line=feed, timeout=3600)
again = parse_lines("codex", _lines(tmp / "out"))
print(res.lines, run.skipped_count, again.skipped_count, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
"""


def measure(mb: int) -> tuple[int, int, int, int]:
    out = subprocess.run([sys.executable, "-c", CHILD, str(mb), str(ROOT)], capture_output=True, text=True, check=True)
    lines, live, again, rss = map(int, out.stdout.split())
    return lines, live, again, rss


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=int, default=300)
    args = ap.parse_args()
    base = measure(0)[3]
    lines, live, again, rss = measure(args.mb)
    print(f"| {args.mb} MB of 20-byte junk lines | {lines:,} lines | skipped counted live {live:,}, "
          f"from the file {again:,} | peak RSS {rss} MB (baseline {base} MB) |")


if __name__ == "__main__":
    main()
