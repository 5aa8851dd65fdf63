"""Standard streams that never lose a write's tail.

Under `PYTHONUNBUFFERED=1` (common in containers) `sys.stdout`/`sys.stderr` are text wrappers
straight over the raw file: a `write()` cut short by a signal (every child's SIGCHLD) returns a short
count and the wrapper drops the rest. On a terminal that tears a Textual frame mid-character; on a
pipe it tears a stream-json line. A `BufferedWriter` in between retries until everything is written.
"""

from __future__ import annotations

import io
import sys
from typing import TextIO


def over(raw: io.RawIOBase, encoding: str, errors: str | None = None) -> TextIO:
    """A text stream on RAW that writes every byte, however short each raw write comes back."""
    return io.TextIOWrapper(io.BufferedWriter(raw), encoding=encoding, errors=errors)


def buffered(stream: TextIO) -> TextIO:
    """STREAM itself when a buffer already sits under it, else the same file through a `BufferedWriter`."""
    if not isinstance(getattr(stream, "buffer", None), io.RawIOBase):
        return stream
    stream.flush()
    raw = io.FileIO(stream.fileno(), "w", closefd=False)  # its own: the old wrapper may close its raw file
    return over(raw, stream.encoding, stream.errors)


def buffer_terminal_stream() -> None:
    """Make `sys.__stderr__` (where Textual draws) and `sys.stderr` buffered before the app starts."""
    if sys.__stderr__ is not None:
        stream = buffered(sys.__stderr__)
        setattr(sys, "__stderr__", stream)  # noqa: B010 (typeshed declares it final; Textual reads it)
        sys.stderr = stream
