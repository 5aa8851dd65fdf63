"""run_process's cancel hook: setting the event stops the whole process group and the result says so."""

from __future__ import annotations

import threading
from pathlib import Path

from workbench.runner.process import run_process


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_cancel_stops_the_group_including_a_background_child(tmp_path: Path) -> None:
    cancel = threading.Event()
    pidfile = tmp_path / "child.pid"
    script = f"sleep 120 & echo $! > {pidfile}; echo started; wait"

    def on_line(line: str) -> None:
        if line == "started":
            cancel.set()  # the caller's Cancel, seen by the read loop

    result = run_process(["sh", "-c", script], env={"PATH": "/usr/bin:/bin"}, cwd=tmp_path,
                         stdout_path=tmp_path / "out", stderr_path=tmp_path / "err", on_line=on_line,
                         timeout=60, grace=2.0, cancel=cancel)
    assert result.cancelled and result.timed_out is None
    assert result.exit_code < 0, "the shell was stopped by a signal, not left to finish"
    child = int(pidfile.read_text())
    for _ in range(100):
        if not alive(child):
            break
        threading.Event().wait(0.05)
    assert not alive(child), "the background sleep in the same group was stopped too"


def test_an_unset_event_changes_nothing(tmp_path: Path) -> None:
    result = run_process(["sh", "-c", "echo one; echo two"], env={"PATH": "/usr/bin:/bin"}, cwd=tmp_path,
                         stdout_path=tmp_path / "out", stderr_path=tmp_path / "err", timeout=60,
                         cancel=threading.Event())
    assert not result.cancelled and result.exit_code == 0 and result.lines == 2


def test_a_run_cancelled_during_set_up_is_never_started(tmp_path: Path) -> None:
    """The cancel came before the host's start (the fixture, the copy, the proof): nothing is spawned."""
    cancel = threading.Event()
    cancel.set()
    marker = tmp_path / "started"
    result = run_process(["sh", "-c", f"touch {marker}; sleep 60"], env={"PATH": "/usr/bin:/bin"}, cwd=tmp_path,
                         stdout_path=tmp_path / "out", stderr_path=tmp_path / "err", timeout=60, cancel=cancel)
    assert result.cancelled and result.lines == 0
    assert not marker.exists(), "the host was started after the cancel"


def test_a_group_that_ignores_sigterm_does_not_hold_the_cancel_for_the_whole_grace(tmp_path: Path) -> None:
    """A host that traps SIGTERM is killed after the cancel's short grace, not the watchdog's (10 s here)."""
    cancel = threading.Event()

    def on_line(line: str) -> None:
        if line == "started":
            cancel.set()

    result = run_process(["sh", "-c", "trap '' TERM; echo started; while :; do sleep 0.05; done"],
                         env={"PATH": "/usr/bin:/bin"}, cwd=tmp_path, stdout_path=tmp_path / "out",
                         stderr_path=tmp_path / "err", on_line=on_line, timeout=60, grace=10.0, cancel=cancel)
    assert result.cancelled and result.exit_code == -9, result
    assert result.duration < 10.0, f"the cancel waited out the grace: {result.duration:.1f} s"
