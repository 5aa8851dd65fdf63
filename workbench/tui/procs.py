"""Cancel: find the host process groups a run started under its folder and stop them, TERM then KILL.

The runner starts every host in its own session (`start_new_session=True`), so each host is a
direct child of this process whose process-group id is its own pid. A run is recognized by its
working directory lying under the run folder. Linux /proc only; elsewhere nothing is found.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path


def _stat(pid: int) -> tuple[int, int] | None:
    """(ppid, pgid) of PID from /proc/PID/stat."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = raw[raw.rfind(")") + 2:].split()
    return int(fields[1]), int(fields[2])


def _alive(pid: int) -> bool:
    """True while PID exists and is not a zombie waiting to be reaped."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return raw[raw.rfind(")") + 2:].split()[0] != "Z"


def host_groups(folder: Path) -> list[int]:
    """Process groups led by children of this process whose cwd is inside FOLDER."""
    root = os.path.realpath(folder)
    found = []
    for entry in Path("/proc").iterdir() if Path("/proc").is_dir() else ():
        if not entry.name.isdigit():
            continue
        pid = int(entry.name)
        st = _stat(pid)
        if st is None or st[0] != os.getpid() or st[1] != pid:
            continue
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            continue
        if cwd == root or cwd.startswith(root + os.sep):
            found.append(pid)
    return found


def kill_groups(groups: list[int], grace: float = 2.0) -> int:
    """SIGTERM each group, SIGKILL what is left after GRACE seconds; the number of groups signalled."""
    sent = 0
    for pgid in groups:
        try:
            os.killpg(pgid, signal.SIGTERM)
            sent += 1
        except ProcessLookupError:
            continue
    deadline = time.monotonic() + grace
    for pgid in groups:
        while time.monotonic() < deadline:
            if not _alive(pgid):
                break
            time.sleep(0.05)
        else:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pgid, signal.SIGKILL)
    return sent


def stop_runs(folder: Path) -> int:
    """Stop every host process group running under FOLDER; how many were signalled."""
    return kill_groups(host_groups(folder))
