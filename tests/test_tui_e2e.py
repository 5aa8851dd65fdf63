"""End to end: the real `workbench` command in a pseudo-terminal of 120x40 — rows, select, `c`, verdict."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import sys
import time
from pathlib import Path

import pexpect
from tui_support import make_workspace

VERDICT = re.compile(r"verdict:\s+(fired|skip|read-noaction|skip-noaction|opened|clean|no-output)")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][0-9A-Za-z]|\x1b[=>]")


def screen_until(child: pexpect.spawn, pattern: re.Pattern[str], cap: float) -> re.Match[str]:
    """Read the terminal stream until PATTERN shows in its text (escapes removed); fail after CAP s."""
    seen = ""
    end = time.monotonic() + cap
    while time.monotonic() < end:
        with contextlib.suppress(pexpect.TIMEOUT):
            seen += child.read_nonblocking(65536, timeout=0.5)
        found = pattern.search(ANSI.sub("", seen))
        if found:
            return found
    raise AssertionError(f"{pattern.pattern!r} not on screen; last text: {ANSI.sub('', seen)[-400:]!r}")


def test_workbench_starts_on_rows_and_c_shows_the_verdict(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    exe = shutil.which("workbench", path=str(Path(sys.executable).parent))
    assert exe is not None
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "120", "LINES": "40"}
    child = pexpect.spawn(exe, cwd=str(ws.root), env=env, dimensions=(40, 120), encoding="utf-8", timeout=60)
    try:
        child.expect("Rows")
        child.expect("pull-request")
        child.send("\x1b[B")  # down: select the next row
        child.send("\x1b[A")  # and back up to the first row with a positive case
        child.send("c")
        child.expect("Canary")
        verdict = screen_until(child, VERDICT, 120).group(1)
        child.send("q")
        child.expect(pexpect.EOF, timeout=20)
    finally:
        child.close(force=True)
    assert verdict in {"fired", "skip", "read-noaction", "skip-noaction"}
    assert (ws.records_dir / "canary.jsonl").is_file()
