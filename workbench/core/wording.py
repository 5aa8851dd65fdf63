"""Wording -> new file text: a routing row's replacement, checked, as pure text operations.

`edit_row` turns a row's new wording into the routing file's whole new text: a table, list or
prose row has its one line replaced; a `description` row is edited structurally in the YAML front
matter (a folded `description: >` stays a block scalar, other keys and the body are untouched).
`row_problems` says why the edited text is not a usable arm: the line is no routing row any more,
or it links a file that does not exist. The git commit of an arm is made by
`workbench.authoring.arms`; this module writes nothing.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable
from pathlib import Path

import yaml

from workbench.core.errors import InputError
from workbench.core.markdown import front_matter
from workbench.core.routing import Link, Row, parse_text

_BLOCK = re.compile(r"^(?P<key>[A-Za-z_][\w.-]*)\s*:\s*(?P<style>[>|][+-]?\d*)\s*(?:#.*)?$")


def _pipes(line: str) -> list[int]:
    """Positions of the cell-separating pipes of a table LINE: every pipe not escaped (GFM splits
    cells there even inside a code span)."""
    return [m.end() - 1 for m in re.finditer(r"(?<!\\)(?:\\\\)*\|", line)]


def _cells(line: str) -> list[tuple[int, int]]:
    """(start, end) of each cell of a table LINE, leading and trailing pipes excluded."""
    pipes = _pipes(line)
    bounds = [-1, *pipes, len(line)]
    cells = [(a + 1, b) for a, b in zip(bounds, bounds[1:], strict=False)]
    if cells and not line[:cells[0][1]].strip():
        cells = cells[1:]
    if cells and not line[cells[-1][0]:].strip():
        cells = cells[:-1]
    return cells


def _plain(text: str) -> str:
    return " ".join(re.sub(r"[*_`]", "", text).split())


def _outside_labels(text: str, needle: str) -> int:
    """The first index of NEEDLE in TEXT that is not inside a link label `[...]`, else -1."""
    start = text.find(needle)
    while start >= 0:
        if text[:start].count("[") <= text[:start].count("]"):
            return start
        start = text.find(needle, start + 1)
    return -1


def _table_line(row: Row, trigger: str) -> str | None:
    """ROW's table line with the trigger cell's wording replaced by TRIGGER (its padding and the
    other cells kept byte for byte), else None when no cell holds the trigger."""
    line = row.text
    cells = [(a, b) for a, b in _cells(line) if "](" not in line[a:b]]
    for a, b in cells:
        inner = line[a:b]
        if inner.strip() == row.trigger or _plain(inner) == _plain(row.trigger):
            lead = inner[:len(inner) - len(inner.lstrip())]
            tail = inner[len(inner.rstrip()):]
            return line[:a] + lead + trigger + tail + line[b:]
    for a, b in _cells(line):
        index = _outside_labels(line[a:b], row.trigger)
        if index >= 0:
            return line[:a + index] + trigger + line[a + index + len(row.trigger):]
    return None


def new_line(row: Row, *, text: str | None = None, trigger: str | None = None) -> str:
    """The row's new line: TEXT as the whole line, or the row with its trigger replaced by TRIGGER
    (in a table, the trigger's cell: a link-first table keeps its link cell and its pipes)."""
    if text is not None:
        if "\n" in text:
            raise InputError("a row's text is one line", field="--text")
        return text
    if trigger is None:
        raise InputError("give --text or --trigger", field="--text")
    found = _table_line(row, trigger) if row.kind == "table" else None
    if found is not None:
        return found
    index = _outside_labels(row.text, row.trigger)
    if index < 0:
        raise InputError(f"cannot find the trigger of row {row.id!r} in its line", field="ROW")
    return row.text[:index] + trigger + row.text[index + len(row.trigger):]


def replace_line(text: str, line: int, replacement: str) -> str:
    """TEXT with 1-based LINE replaced, line endings kept."""
    lines = text.splitlines(keepends=True)
    old = lines[line - 1]
    ending = old[len(old.rstrip("\r\n")):]
    lines[line - 1] = replacement + ending
    return "".join(lines)


def _scalar(key: str, value: str) -> list[str]:
    dumped = yaml.safe_dump({key: value}, width=10**6, allow_unicode=True, default_flow_style=False)
    return dumped.rstrip("\n").split("\n")


def edit_front_matter(text: str, key: str, value: str) -> str:
    """TEXT with front matter KEY set to VALUE; a block scalar (`>`, `|-`) keeps its style and indent,
    every other line of the file is kept byte for byte."""
    fm = front_matter(text)
    lines = text.split("\n")
    if key not in fm.lines:
        if not fm.data and not (lines and lines[0].strip() == "---"):
            raise InputError("the file has no YAML front matter", field="--text")
        close = fm.offset - 1  # 0-based index of the closing `---`
        return "\n".join(lines[:close] + _scalar(key, value) + lines[close:])
    first, last = fm.lines[key]
    block = _BLOCK.match(lines[first - 1])
    if block:
        body = [ln for ln in lines[first:last] if ln.strip()]
        indent = re.match(r"\s*", body[0]).group(0) if body else "  "  # type: ignore[union-attr]
        style = block.group("style")
        if style.startswith(">"):
            wrapped = textwrap.wrap(" ".join(value.split()), width=max(40, 100 - len(indent))) or [""]
        else:
            wrapped = value.split("\n")
        new = [f"{key}: {style}"] + [indent + ln if ln else "" for ln in wrapped]
    else:
        new = _scalar(key, value)
    out = "\n".join(lines[:first - 1] + new + lines[last:])
    got = front_matter(out).data.get(key)
    if not isinstance(got, str) or " ".join(got.split()) != " ".join(value.split()):
        raise InputError(f"front matter {key!r} would not read back as the new text", field="--text")
    return out


def edit_row(file_text: str, row: Row, *, text: str | None = None, trigger: str | None = None) -> str:
    """The routing file's whole new text with ROW's new wording (see the module docstring)."""
    if row.kind == "description":
        value = trigger if trigger is not None else text
        if value is None:
            raise InputError("give --text or --trigger", field="--text")
        value = re.sub(r"^\s*description\s*:\s*", "", value) if trigger is None else value
        return edit_front_matter(file_text, "description", value)
    return replace_line(file_text, row.line, new_line(row, text=text, trigger=trigger))


def edited_row(new_text: str, row: Row, *, plugin: Path | None = None) -> Row | None:
    """The row at ROW's place in NEW_TEXT (the description, or the row on its line), else None."""
    if row.file is None:
        return None
    rows = parse_text(new_text, row.file, plugin=plugin, problems=[])  # broken front matter: the body still edits
    if row.kind == "description":
        return next((r for r in rows if r.kind == "description"), None)
    return next((r for r in rows if r.line == row.line), None)


def row_problems(new_text: str, row: Row, exists: Callable[[Link], bool], *,
                 plugin: Path | None = None) -> list[str]:
    """Why NEW_TEXT does not hold a usable version of ROW: no row there, or links to missing files."""
    edited = edited_row(new_text, row, plugin=plugin)
    if edited is None:
        line = new_text.split("\n")[row.line - 1] if 0 < row.line <= new_text.count("\n") + 1 else ""
        return [f"the new text is not a routing row ({line.strip()[:80]!r}: no link to a procedure with a "
                "clause saying when)"]
    return [f"it links {link.target}, which does not exist" for link in edited.links if not exists(link)]


def without_row(text: str, row: Row) -> str:
    """TEXT with ROW removed (the no-row control): a description emptied to the skill's name (front
    matter edited structurally), any other row's line deleted."""
    if row.kind == "description":
        return edit_row(text, row, text=row.skill or "")
    lines = text.splitlines(keepends=True)
    del lines[row.line - 1]
    return "".join(lines)

