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
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from workbench.core import importer
from workbench.core.errors import InputError
from workbench.core.migrate import migrate
from workbench.core.models import SCHEMA_VERSION, RunRecord


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


def write_records(path: str | os.PathLike[str], records: Iterable[RunRecord]) -> None:
    """Create a NEW file holding these records; refuses to overwrite an existing one."""
    fd = os.open(os.fspath(path), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        for record in records:
            data = encode(record)
            if os.write(fd, data) != len(data):
                raise OSError(f"short write to {os.fspath(path)}")
        os.fsync(fd)
    finally:
        os.close(fd)


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
    return parse_record(json.loads(text), file=file, line=line)


def iter_lines(path: Path) -> Iterator[tuple[int, str, bool]]:
    """(line number, text, is_last) for each non-blank line; is_last marks the final non-blank line."""
    with path.open("r", encoding="utf-8", errors="replace") as fh:
        lines = fh.read().split("\n")
    numbered = [(i + 1, text) for i, text in enumerate(lines) if text.strip()]
    for pos, (number, text) in enumerate(numbered):
        yield number, text, pos == len(numbered) - 1


def load_file(path: str | os.PathLike[str], *, lenient: bool = False, into: Loaded | None = None) -> Loaded:
    """Load one records file. A torn last line is reported and skipped; other bad lines raise
    InputError, or with `lenient` are reported and skipped."""
    out = into if into is not None else Loaded()
    p = Path(path)
    name = os.fspath(path)
    try:
        lines = list(iter_lines(p))
    except OSError as err:
        raise InputError(f"cannot read: {err.strerror or err}", file=name) from None
    for number, text, is_last in lines:
        try:
            record = parse_line(text, file=name, line=number)
        except json.JSONDecodeError as err:
            if is_last:
                message = f"torn last line skipped (crash mid-write?): {err.msg}"
                out.problems.append(Problem(name, number, message))
                continue
            if lenient:
                out.problems.append(Problem(name, number, f"invalid JSON: {err.msg}"))
                continue
            raise InputError(f"invalid JSON: {err.msg}", file=name, line=number) from None
        except InputError as err:
            if not lenient:
                raise
            out.problems.append(Problem(name, number, err.message, err.field))
            continue
        out.records.append(record)
        out.origins.append((name, number))
    return out


def load_files(paths: Iterable[str | os.PathLike[str]], *, lenient: bool = False) -> Loaded:
    """Load several records files into one result, in order."""
    out = Loaded()
    for path in paths:
        load_file(path, lenient=lenient, into=out)
    return out
