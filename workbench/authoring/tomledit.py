"""Edit a TOML file the user owns through tomlkit, so every comment, blank line and key order survives.

`editing(path)` yields the parsed document; what the block changes is written back atomically (a
temporary file renamed over the old one), and nothing is written when nothing changed. A file that
is not TOML is bad input naming the file, the line and the field, like every loader's.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping, MutableMapping
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.exceptions import ParseError
from tomlkit.items import InlineTable, Table
from tomlkit.toml_document import TOMLDocument

from workbench.core.errors import InputError
from workbench.core.locate import parse_toml, toml_syntax_error


def parse(text: str, *, file: Path) -> TOMLDocument:
    """TEXT as a tomlkit document; not TOML -> InputError naming FILE, line and field."""
    try:
        return tomlkit.parse(text)
    except ParseError as exc:
        parse_toml(text, file=str(file))  # tomllib's message names the problem better, when it sees one
        raise toml_syntax_error(exc, text, file=str(file)) from None


@contextlib.contextmanager
def editing(path: Path) -> Iterator[TOMLDocument]:
    """The document at PATH (empty when absent) to change in place; written back if it changed."""
    try:
        text = path.read_text(encoding="utf-8") if path.is_file() else ""
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read TOML file: {exc}", file=str(path)) from None
    doc = parse(text, file=path)
    yield doc
    new = doc.as_string()
    if _newlines_at_end(new) > max(_newlines_at_end(text), 1):
        new = new.rstrip("\r\n") + "\n"  # a table added last brings no blank line to the end
    if new != text:
        write_atomically(path, new)


def _newlines_at_end(text: str) -> int:
    return len(text) - len(text.rstrip("\r\n"))


def write_atomically(path: Path, text: str) -> None:
    """Write TEXT to PATH through a temporary file in the same folder (no torn file on a crash)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def table(items: Mapping[str, object]) -> Table:
    """A new `[table]` holding ITEMS (a mapping becomes an inline table), ending with a blank line."""
    out = tomlkit.table()
    for key, value in items.items():
        out[key] = _inline(value) if isinstance(value, Mapping) else value
    out.add(tomlkit.nl())
    return out


def update(target: MutableMapping[str, Any], values: Mapping[str, object]) -> None:
    """Set each of VALUES that differs in TARGET, delete those that are None: an equal value keeps its bytes."""
    for key, value in values.items():
        if value is None:
            target.pop(key, None)
        elif target.get(key) != value:
            target[key] = _inline(value) if isinstance(value, Mapping) else value


def _inline(value: Mapping[str, object]) -> InlineTable:
    out = tomlkit.inline_table()
    out.update(value)
    return out
