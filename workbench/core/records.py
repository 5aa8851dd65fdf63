"""The records store: one RunRecord per JSON line, appended atomically, loaded with problems reported.

Appends are a single `os.write` of the whole line on an O_APPEND descriptor followed by fsync, so a
crash leaves at most a torn LAST line. Loading skips such a line (reported, never fatal); any other
bad line is an InputError naming file, line and field, unless the caller asks to be lenient.
Lines in the AgentsMD shape are recognized per line and converted by the importer.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel, ValidationError

from workbench.core import importer
from workbench.core.errors import InputError
from workbench.core.migrate import migrate
from workbench.core.models import SCHEMA_VERSION, RunRecord
from workbench.core.parsers.common import loads

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


@dataclass(frozen=True)
class Problem:
    """A line that was skipped while loading, with where and why."""

    file: str
    line: int
    message: str
    field: str | None = None

    def __str__(self) -> str:
        field_part = f"{self.field}: " if self.field else ""
        return f"{self.file}:{self.line}: {field_part}{self.message}"


@dataclass
class Loaded:
    """Records read from one or more files, plus every skipped line."""

    records: list[RunRecord] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    origins: list[tuple[str, int]] = field(default_factory=list)
    """(file, line) of each record, parallel to `records`."""


def encode(record: RunRecord) -> bytes:
    """The record as one JSON line, newline included; extra fields are kept."""
    return (record.model_dump_json() + "\n").encode("utf-8")


def append_record(path: str | os.PathLike[str], record: RunRecord) -> None:
    """Append one record durably: one write of the whole line, then fsync. Never rewrites the file.

    A write that fails or lands short (disk full) is cut off again, so the file never keeps a torn
    line; the OSError is raised for the caller to stop on. (Callers append one at a time.)"""
    data = encode(record)
    os.makedirs(os.path.dirname(os.fspath(path)) or ".", exist_ok=True)  # a fresh workspace has no records/ yet
    fd = os.open(os.fspath(path), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        size = os.fstat(fd).st_size
        try:
            written = os.write(fd, data)
            if written != len(data):
                raise OSError(errno.ENOSPC, f"short write ({written} of {len(data)} bytes)", os.fspath(path))
            os.fsync(fd)
        except OSError as err:
            with contextlib.suppress(OSError):  # a device (/dev/full) cannot be truncated: the write's error counts
                os.ftruncate(fd, size)
            raise OSError(err.errno, err.strerror, os.fspath(path)) from err
    finally:
        os.close(fd)


class NewFile:
    """A records file being created: lines written as they come, fsynced on close; `discard` removes it
    (a run that stops half-way leaves no half-written file)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self._fd: int | None = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)

    def write(self, record: RunRecord) -> None:
        assert self._fd is not None, "file already closed"
        data = encode(record)
        if os.write(self._fd, data) != len(data):
            raise OSError(errno.ENOSPC, "short write", self.path)

    def close(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            try:
                os.fsync(fd)
            finally:
                os.close(fd)

    def discard(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        with contextlib.suppress(OSError):
            os.unlink(self.path)


def create_new(path: str | os.PathLike[str]) -> NewFile:
    """Start a NEW records file; InputError when it already exists (never overwrites)."""
    try:
        return NewFile(path)
    except FileExistsError:
        raise InputError("exists; --write only creates a new file", file=os.fspath(path)) from None
    except OSError as err:
        raise InputError(f"cannot create: {err.strerror or err}", file=os.fspath(path)) from None


def write_records(path: str | os.PathLike[str], records: Iterable[RunRecord]) -> None:
    """Create a NEW file holding these records; refuses to overwrite an existing one (FileExistsError).
    If writing fails part-way the new file is removed."""
    out = NewFile(path)
    try:
        for record in records:
            out.write(record)
        out.close()
    except BaseException:
        out.discard()
        raise


def field_path(err: ValidationError) -> str:
    """The first error's location as a dotted path, e.g. `calls.3.status`."""
    errors = err.errors()
    if not errors:
        return ""
    return ".".join(str(part) for part in errors[0]["loc"])


def first_message(err: ValidationError) -> str:
    """The first error's message, with a count of the others."""
    errors = err.errors()
    if not errors:
        return str(err)
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return str(errors[0]["msg"]) + more


def parse_record(obj: Any, *, file: str, line: int) -> RunRecord:
    """One decoded JSON value as a RunRecord, converting the AgentsMD shape; InputError when invalid."""
    if not isinstance(obj, dict):
        raise InputError("a record must be a JSON object", file=file, line=line)
    try:
        if importer.is_agentsmd(obj):
            return importer.convert(obj, file=file, line=line)
        return RunRecord.model_validate(migrate(obj))
    except ValidationError as err:
        raise InputError(first_message(err), file=file, line=line, field=field_path(err)) from None


NATIVE_PREFIX = f'{{"schema_version":{SCHEMA_VERSION},'


def parse_line(text: str, *, file: str, line: int) -> RunRecord:
    """One JSONL line as a RunRecord. Our own current-version lines are validated straight from JSON
    (fast path); anything else (older versions are migrated), or a line that fails there, takes the
    general path for a precise error."""
    if text.startswith(NATIVE_PREFIX):
        try:
            return RunRecord.model_validate_json(text)
        except ValidationError:
            pass
    return parse_record(loads(text), file=file, line=line)


V = TypeVar("V", bound=BaseModel)


def parse_as(view: type[V], text: str, *, file: str, line: int, calls: bool = True) -> V | RunRecord:
    """One JSONL line as VIEW, a lean model of the record fields a reader needs: our own current lines
    straight from JSON, AgentsMD lines converted (only VIEW's fields, their calls left out unless CALLS)
    then validated as VIEW; anything else (older versions to migrate, a line that fails there) as the whole RunRecord
    `parse_record` gives, or its error naming the bad field."""
    if text.startswith(NATIVE_PREFIX):
        try:
            return view.model_validate_json(text)
        except ValidationError:
            pass
    obj = loads(text)
    if isinstance(obj, dict) and importer.is_agentsmd(obj):
        source = obj if calls else {k: v for k, v in obj.items() if k != "calls"}
        fields = importer.convert_fields(source, file=file, line=line, only=importer.view_fields(view))
        return importer.validated(view, fields, file=file, line=line)
    return parse_record(obj, file=file, line=line)


def iter_lines(path: Path) -> Iterator[tuple[int, str, bool]]:
    """(line number, text, is_last) for each non-blank line, read one line at a time (memory flat in
    the file size); is_last marks the final non-blank line (one line of look-ahead)."""
    with path.open("r", encoding="utf-8", errors="replace") as fh:
        pending: tuple[int, str] | None = None
        for number, text in enumerate(fh, 1):
            if not text.strip():
                continue
            if pending is not None:
                yield pending[0], pending[1], False
            pending = (number, text[:-1] if text.endswith("\n") else text)
        if pending is not None:
            yield pending[0], pending[1], True


class LineParser(Protocol[T_co]):
    """Turns one records line into an item, raising InputError or JSONDecodeError when it cannot."""

    def __call__(self, text: str, *, file: str, line: int) -> T_co: ...


def stream(paths: Iterable[str | os.PathLike[str]], parse: LineParser[T], *, lenient: bool = False,
           on_problem: Callable[[Problem], None] | None = None) -> Iterator[tuple[T, str, int]]:
    """(item, file, line) for each good line of each file, in order, one line in memory at a time.

    `parse(text, file=, line=)` turns a line into an item (`parse_line` -> RunRecord; a lean view for
    readers that need a few fields). A bad line never escapes as a traceback: a torn last line is
    reported to `on_problem` and skipped; any other bad line raises InputError naming file and line,
    or with `lenient` is reported and skipped. Nothing is kept per line."""
    report = on_problem if on_problem is not None else (lambda _problem: None)
    for path in paths:
        name = os.fspath(path)
        try:
            for number, text, is_last in iter_lines(Path(path)):
                try:
                    item = parse(text, file=name, line=number)
                except json.JSONDecodeError as err:
                    if is_last:
                        report(Problem(name, number, f"torn last line skipped (crash mid-write?): {err.msg}"))
                        continue
                    if lenient:
                        report(Problem(name, number, f"invalid JSON: {err.msg}"))
                        continue
                    raise InputError(f"invalid JSON: {err.msg}", file=name, line=number) from None
                except InputError as err:
                    if not lenient:
                        raise
                    report(Problem(name, number, err.message, err.field))
                    continue
                yield item, name, number
        except OSError as err:
            raise InputError(f"cannot read: {err.strerror or err}", file=name) from None


def stream_records(paths: Iterable[str | os.PathLike[str]], *, lenient: bool = False,
                   on_problem: Callable[[Problem], None] | None = None) -> Iterator[tuple[RunRecord, str, int]]:
    """(RunRecord, file, line) for each good line: `stream` with `parse_line`."""
    return stream(paths, parse_line, lenient=lenient, on_problem=on_problem)


def load_file(path: str | os.PathLike[str], *, lenient: bool = False, into: Loaded | None = None) -> Loaded:
    """Load one records file into memory (see `stream` for the rules; prefer `stream` for big files)."""
    out = into if into is not None else Loaded()
    for record, name, number in stream_records([path], lenient=lenient, on_problem=out.problems.append):
        out.records.append(record)
        out.origins.append((name, number))
    return out


def load_files(paths: Iterable[str | os.PathLike[str]], *, lenient: bool = False) -> Loaded:
    """Load several records files into one result, in order."""
    out = Loaded()
    for path in paths:
        load_file(path, lenient=lenient, into=out)
    return out



@dataclass
class _Tail:
    inode: int | None = None
    offset: int = 0
    line: int = 0


class Follower:
    """Reads records files and then what is appended to them (records are append-only).

    The first `poll()` returns every record so far; each later one the records of the complete lines
    appended since (a line still being written waits for its newline). None: a file was replaced,
    shrank or vanished, and its reader must start over with a new Follower. Bad lines are skipped
    and counted in `skipped`, as a lenient load does."""

    def __init__(self, paths: Iterable[str | os.PathLike[str]]) -> None:
        self._tails = {Path(p): _Tail() for p in paths}
        self.skipped = 0

    def follow(self, paths: Iterable[str | os.PathLike[str]]) -> None:
        """Follow PATHS too, from their start (a records file created after the first poll)."""
        for p in paths:
            self._tails.setdefault(Path(p), _Tail())

    def poll(self) -> list[RunRecord] | None:
        """Records appended since the last poll, in file order; None: start over."""
        out: list[RunRecord] = []
        for path, tail in self._tails.items():
            try:
                st = path.stat()
            except OSError:
                if tail.inode is not None:
                    return None
                continue
            if tail.inode is None:
                tail.inode = st.st_ino
            elif st.st_ino != tail.inode or st.st_size < tail.offset:
                return None
            if st.st_size > tail.offset:
                self._read(path, tail, out)
        return out

    def _read(self, path: Path, tail: _Tail, out: list[RunRecord]) -> None:
        with path.open("rb") as fh:
            fh.seek(tail.offset)
            for raw in fh:
                if not raw.endswith(b"\n"):
                    break  # being written: read again once whole
                tail.offset += len(raw)
                tail.line += 1
                text = raw.decode("utf-8", errors="replace").strip()
                if not text:
                    continue
                try:
                    out.append(parse_line(text, file=os.fspath(path), line=tail.line))
                except (InputError, json.JSONDecodeError):
                    self.skipped += 1
