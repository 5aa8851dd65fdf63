"""Standard streams under PYTHONUNBUFFERED: a short write (a signal mid-write) must not lose the tail."""

from __future__ import annotations

import io
from pathlib import Path

from workbench.stdio import buffered, over


class ShortWrites(io.RawIOBase):
    """A raw file whose every write takes at most CHUNK bytes, as a tty write interrupted by SIGCHLD does.

    A fake: a real terminal cuts a write short only when a signal lands inside it, not on demand."""

    def __init__(self, chunk: int) -> None:
        self.chunk = chunk
        self.data = bytearray()

    def writable(self) -> bool:
        return True

    def write(self, b: bytes) -> int:  # type: ignore[override]
        taken = bytes(memoryview(b)[: self.chunk])
        self.data += taken
        return len(taken)


FRAME = "\x1b[1;1H" + "─" * 5000 + "\n"


def test_a_plain_wrapper_over_the_raw_file_loses_the_tail() -> None:
    raw = ShortWrites(1000)
    plain = io.TextIOWrapper(raw, encoding="utf-8", write_through=True)  # what PYTHONUNBUFFERED gives
    plain.write(FRAME)
    plain.flush()
    assert len(raw.data) < len(FRAME.encode())  # the failure the helper exists for


def test_over_delivers_every_byte_in_order() -> None:
    raw = ShortWrites(1000)
    stream = over(raw, "utf-8")
    for _ in range(3):
        stream.write(FRAME)
    stream.flush()
    assert raw.data.decode("utf-8") == FRAME * 3


def test_buffered_outlives_the_wrapper_it_replaces(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with out.open("wb", buffering=0) as file:
        raw = io.FileIO(file.fileno(), "w", closefd=False)  # as the interpreter opens sys.stderr
        unbuffered = io.TextIOWrapper(raw, encoding="utf-8", write_through=True)
        unbuffered.write("first\n")
        stream = buffered(unbuffered)
        assert stream is not unbuffered and isinstance(stream.buffer, io.BufferedWriter)  # type: ignore[attr-defined]
        unbuffered.close()  # the replaced wrapper goes away (closing its raw file)
        stream.write(FRAME)
        stream.flush()
    assert out.read_text(encoding="utf-8") == "first\n" + FRAME


def test_an_already_buffered_stream_is_kept() -> None:
    stream = io.TextIOWrapper(io.BufferedWriter(ShortWrites(10)), encoding="utf-8")
    assert buffered(stream) is stream
