"""Reading what a run left behind, from outside the sandbox, without trusting it.

Everything under a run's folder was writable by the agent: a path may be a symlink to another
session's files, a FIFO that blocks a reader forever, a device, or a huge file. So files are opened
component by component with O_NOFOLLOW (a link anywhere on the path is refused, not followed), only
regular files are read (O_NONBLOCK, then fstat: a FIFO is refused before any read), up to a size cap
and a deadline. Refusals are reported, never raised into the caller's run.
"""

from __future__ import annotations

import contextlib
import os
import stat
import time
from collections.abc import Iterator
from pathlib import Path

MAX_BYTES = 64 * 1024 * 1024
"""Largest file read back from a run (a Codex rollout of a long run is a few MB)."""
DEADLINE = 10.0
"""Seconds a read back may take."""
_DIR = os.O_RDONLY | os.O_NOFOLLOW | os.O_DIRECTORY | os.O_CLOEXEC
_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


class Refused(OSError):
    """A path from a run that is not a plain regular file reached without links, or is too big or slow."""


@contextlib.contextmanager
def _dir_fd(root: Path, parts: tuple[str, ...]) -> Iterator[int]:
    """An fd of ROOT/PARTS..., each component opened with O_NOFOLLOW relative to the previous one."""
    fd = os.open(root, _DIR)
    try:
        for part in parts:
            if part in ("", ".", ".."):
                raise Refused(f"path component {part!r} refused")
            nxt = os.open(part, _DIR, dir_fd=fd)
            os.close(fd)
            fd = nxt
        yield fd
    finally:
        os.close(fd)


def read_bytes(root: Path, rel: str | Path, *, limit: int = MAX_BYTES, deadline: float = DEADLINE) -> bytes:
    """The bytes of ROOT/REL (ROOT itself trusted, REL not): no link on the way, a regular file only,
    at most LIMIT bytes within DEADLINE seconds; `Refused` otherwise."""
    parts = Path(rel).parts
    if not parts or Path(rel).is_absolute():
        raise Refused(f"not a relative path: {rel}")
    try:
        with _dir_fd(root, parts[:-1]) as dfd:
            fd = os.open(parts[-1], _FILE, dir_fd=dfd)
    except OSError as exc:
        raise Refused(f"{rel}: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise Refused(f"{rel}: not a regular file")
        if info.st_size > limit:
            raise Refused(f"{rel}: {info.st_size} bytes, over the cap of {limit}")
        os.set_blocking(fd, True)
        chunks, total, end = [], 0, time.monotonic() + deadline
        while chunk := os.read(fd, 1 << 20):
            total += len(chunk)
            if total > limit:
                raise Refused(f"{rel}: grew over the cap of {limit} bytes")
            if time.monotonic() > end:
                raise Refused(f"{rel}: reading took over {deadline} s")
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def regular_files(root: Path, rel: str | Path, pattern: str) -> list[tuple[str, float]]:
    """(path relative to ROOT, mtime) of the regular files matching PATTERN (a name glob) under
    ROOT/REL, walking without following any link; a link or missing folder on the way gives []."""
    import fnmatch

    out: list[tuple[str, float]] = []
    base = Path(rel)
    try:
        with _dir_fd(root, base.parts) as top:
            stack: list[tuple[int, Path]] = [(os.dup(top), base)]
            while stack:
                fd, where = stack.pop()
                try:
                    for entry in os.scandir(fd):
                        info = entry.stat(follow_symlinks=False)
                        if stat.S_ISDIR(info.st_mode):
                            with contextlib.suppress(OSError):
                                stack.append((os.open(entry.name, _DIR, dir_fd=fd), where / entry.name))
                        elif stat.S_ISREG(info.st_mode) and fnmatch.fnmatch(entry.name, pattern):
                            out.append((str(where / entry.name), info.st_mtime))
                finally:
                    os.close(fd)
    except OSError:
        return []
    return out
