"""The watchdog process runner, driven by small Python child processes."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from workbench.runner.process import run_process

PY = sys.executable


def start(tmp_path: Path, code: str, **kw):  # type: ignore[no-untyped-def]
    lines: list[str] = []
    result = run_process([PY, "-c", code], env=dict(os.environ), cwd=tmp_path, stdout_path=tmp_path / "out",
                         stderr_path=tmp_path / "err", on_line=lines.append, **kw)
    return result, lines


def test_lines_callback_stderr_and_exit_code(tmp_path: Path) -> None:
    code = "import sys\nprint('one'); print('two', flush=True)\nsys.stderr.write('oops\\n'); sys.exit(3)"
    result, lines = start(tmp_path, code)
    assert lines == ["one", "two"] and result.lines == 2
    assert (result.exit_code, result.timed_out) == (3, None)
    assert (tmp_path / "out").read_text() == "one\ntwo\n" and (tmp_path / "err").read_text() == "oops\n"


def test_silence_timeout_kills_the_whole_group(tmp_path: Path) -> None:
    # The child starts a grandchild that would outlive it, prints once, then goes silent.
    code = ("import subprocess, sys, time\n"
            "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
            "open('grandchild.pid', 'w').write(str(p.pid))\n"
            "print('started', flush=True)\n"
            "time.sleep(600)")
    result, lines = start(tmp_path, code, silence_timeout=4.0, timeout=120.0, grace=1.0)  # room for a slow start
    assert lines == ["started"] and result.timed_out == "silence"
    assert result.exit_code < 0  # ended by a signal
    grandchild = int((tmp_path / "grandchild.pid").read_text())
    assert not _alive(grandchild)


def test_total_timeout_while_talking(tmp_path: Path) -> None:
    code = "import time\nwhile True:\n    print('tick', flush=True); time.sleep(0.05)"
    result, lines = start(tmp_path, code, silence_timeout=30.0, timeout=1.0, grace=1.0)
    assert result.timed_out == "total" and lines and set(lines) == {"tick"}


def test_term_ignored_then_killed(tmp_path: Path) -> None:
    code = "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nprint('x', flush=True)\ntime.sleep(600)"
    result, _ = start(tmp_path, code, silence_timeout=4.0, grace=0.5)  # SIG_IGN is set before it fires
    assert result.timed_out == "silence" and result.exit_code == -9


def test_undecodable_bytes_are_replaced(tmp_path: Path) -> None:
    result, lines = start(tmp_path, "import sys\nsys.stdout.buffer.write(b'a\\xffb\\n')")
    assert lines == ["a\ufffdb"] and result.exit_code == 0


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split()[2] != "Z"
    except FileNotFoundError:
        return False
