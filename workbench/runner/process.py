"""Run one host process under watchdogs: its own process group, stdout line by line, stderr to a file.

Two limits: a total timeout and a silence timeout (no stdout line for that long). Either one
terminates the WHOLE process group (hosts spawn shells, sandboxes and node helpers), then kills it
after a grace period. The callback sees every stdout line as it arrives (live panes, canaries);
`on_timed_line` also gets the line's arrival time (time.monotonic() when the reader thread got it),
the clock the repo watcher stamps effects with (effect attribution, core/effects.py).
A `cancel` event (the TUI's Cancel) stops the group the same way; the result says `cancelled`.
"""

from __future__ import annotations

import fcntl
import os
import queue
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Literal

from workbench.core.parsers.common import capped_lines

TimeoutReason = Literal["total", "silence"]
QUEUE_LINES = 4096
"""Stdout lines buffered between the reader and the consumer; a host writing faster waits on its pipe."""
CANCEL_POLL = 0.1
"""Seconds between two looks at the cancel event while the host is silent."""
CANCEL_GRACE = 0.3
"""Seconds a cancelled group gets between SIGTERM and SIGKILL (the run is recorded invalid anyway; the
user asked it to stop, so a host that takes its time over SIGTERM does not hold the cancel up)."""


@dataclass(frozen=True)
class ProcessResult:
    """How the process ended: exit code (negative: killed by that signal), which watchdog fired, if any."""

    exit_code: int
    timed_out: TimeoutReason | None
    duration: float
    lines: int
    cancelled: bool = False
    """The caller's cancel event was set: the group was stopped (TERM, then KILL after the grace)."""


def _pump(stream: IO[bytes], out: queue.Queue[tuple[bytes, float] | None],
          before_stamp: Callable[[], None] | None = None) -> None:
    """Reader thread: every stdout line (an overlong one cut, see `capped_lines`) with its arrival time
    into the queue, then None. BEFORE_STAMP runs after a line is read and before it is stamped."""
    try:
        for raw in capped_lines(stream):
            if before_stamp is not None:
                before_stamp()
            out.put((raw, time.monotonic()))
    finally:
        out.put(None)


def _group_alive(pgid: int) -> bool:
    """Whether process group PGID still has a member that is not a zombie (a zombie has already died)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    proc = Path("/proc")
    if not proc.is_dir():
        return True  # no way to tell zombies apart here; the caller's time limit bounds the wait
    for stat in proc.glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 2 and fields[2] == str(pgid) and fields[0] != "Z":
            return True
    return False


def _stop_group(proc: subprocess.Popen[bytes], grace: float, settle: float = 2.0) -> None:
    """SIGTERM the process group, then SIGKILL it if the leader is still there after GRACE seconds.

    A signal is only queued when kill() returns, so after the SIGKILL this waits (up to SETTLE
    seconds) until no member of the group is left running: the run is over only when its
    processes are gone, not merely signalled.
    """
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(grace)
            if sig == signal.SIGTERM:
                os.killpg(proc.pid, signal.SIGKILL)  # leftovers in the group (shells, helpers)
            break
        except subprocess.TimeoutExpired:
            continue
        except ProcessLookupError:
            return
    deadline = time.monotonic() + settle
    while _group_alive(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.005)


def run_process(argv: Sequence[str], *, env: Mapping[str, str], cwd: Path, stdout_path: Path, stderr_path: Path,
                on_line: Callable[[str], None] | None = None, timeout: float = 600.0,
                silence_timeout: float | None = None, grace: float = 3.0,
                cancel: threading.Event | None = None,
                on_timed_line: Callable[[str, float], None] | None = None,
                before_stamp: Callable[[], None] | None = None) -> ProcessResult:
    """Start ARGV in a new session, feed each stdout line to ON_LINE, and enforce the watchdogs.

    CANCEL, when set (checked at least every CANCEL_POLL seconds), stops the group like a watchdog.
    ON_TIMED_LINE gets each line with its monotonic arrival time, after ON_LINE. BEFORE_STAMP runs
    in the reader thread as each line is read, before its time is taken (the repo watcher's `sync`:
    a change made before the host printed the line is then stamped before it)."""
    started = time.monotonic()
    count = 0
    reason: TimeoutReason | None = None
    cancelled = False
    with stdout_path.open("wb") as out, stderr_path.open("wb") as err:
        if cancel is not None and cancel.is_set():  # cancelled while the run was set up: never start it
            return ProcessResult(-signal.SIGTERM, None, time.monotonic() - started, 0, True)
        proc = subprocess.Popen(list(argv), cwd=cwd, env=dict(env), stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=err, start_new_session=True)
        assert proc.stdout is not None
        lines: queue.Queue[tuple[bytes, float] | None] = queue.Queue(maxsize=QUEUE_LINES)  # backpressure, bounded memory
        reader = threading.Thread(target=_pump, args=(proc.stdout, lines, before_stamp), daemon=True,
                                  name="host-stdout")
        reader.start()
        last = started
        while True:
            if cancel is not None and cancel.is_set():
                cancelled = True
                break
            now = time.monotonic()
            wait = started + timeout - now
            if silence_timeout is not None:
                wait = min(wait, last + silence_timeout - now)
            if cancel is not None:
                wait = min(wait, CANCEL_POLL)
            if wait <= 0:
                reason = "total" if now - started >= timeout else "silence"
                break
            try:
                item = lines.get(timeout=wait)
            except queue.Empty:
                continue
            if item is None:
                break
            raw, arrived = item
            last = time.monotonic()
            count += 1
            out.write(raw)
            out.flush()
            if on_line is not None or on_timed_line is not None:
                text = raw.decode("utf-8", errors="replace").rstrip("\r\n")
                if on_line is not None:
                    on_line(text)
                if on_timed_line is not None:
                    on_timed_line(text, arrived)
        if reason is not None or cancelled:
            _stop_group(proc, min(grace, CANCEL_GRACE) if cancelled else grace)
        code = proc.wait()
        if reason is None and not cancelled:
            _stop_group(proc, 0.0)  # a host's stray children do not outlive the run
        reader.join(grace)
    return ProcessResult(code, reason, time.monotonic() - started, count, cancelled)


def sweep(home: Path) -> list[str]:
    """Kill every process left behind by a run whose temp HOME is HOME (its environment says so) and
    describe each as `pid N: command`. The run's process group is already gone by now, so anything found
    escaped it (setsid, a double fork, nohup). Inside bubblewrap the pid namespace ends them all: one
    still in a sandbox's namespace is being torn down, so it is killed but not reported."""
    marks = {f"HOME={home}".encode(), f"HOME={os.path.realpath(home)}".encode()}
    own_ns = os.readlink("/proc/self/ns/pid")
    found: list[str] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if not marks & set((entry / "environ").read_bytes().split(b"\0")):
                continue
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
            namespace = os.readlink(entry / "ns" / "pid")
            os.kill(int(entry.name), signal.SIGKILL)
        except (OSError, ValueError):
            continue
        if namespace == own_ns:
            found.append(f"pid {entry.name}: {command[:120]}")
    return found


OWNER_LOCK = "owner.lock"
"""In a batch's scratch folder: held (flock) by the live batch; lockable again once it died."""


def claim(root: Path) -> int:
    """Mark ROOT (a batch's scratch folder) as owned by this live process; keep the returned fd open
    for the batch's lifetime (it is not inherited by the hosts, so only this process holds it)."""
    fd = os.open(root / OWNER_LOCK, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return fd


def _homes_under(entry: Path, root: bytes) -> bool:
    try:
        return any(v.startswith(b"HOME=" + root + b"/") for v in (entry / "environ").read_bytes().split(b"\0"))
    except OSError:
        return False


def sweep_dead_batches(parent: Path, prefix: str = "wb-batch-") -> list[str]:
    """Leftovers of batches that died (kill -9) under PARENT: every process whose HOME is inside a dead
    batch's scratch folder is killed and the folder removed. A batch is dead when its owner lock can
    be taken; a live batch's folder (lock held) and folders without a lock are left alone."""
    found: list[str] = []
    for root in sorted(parent.glob(f"{prefix}*")):
        lock = root / OWNER_LOCK
        try:
            fd = os.open(lock, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                continue  # its batch is alive
            marks = {str(root).encode(), os.path.realpath(root).encode()}
            for _ in range(3):  # a dying tree may spawn while being killed: until none is left
                pids = [e for e in Path("/proc").iterdir() if e.name.isdigit() and int(e.name) != os.getpid()
                        and any(_homes_under(e, m) for m in marks)]
                if not pids:
                    break
                for entry in pids:
                    try:
                        command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                        os.kill(int(entry.name), signal.SIGKILL)
                    except (OSError, ValueError):
                        continue
                    found.append(f"pid {entry.name}: {command.strip()[:120]}")
            shutil.rmtree(root, ignore_errors=True)
        finally:
            os.close(fd)
    return found
