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
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from workbench.core.errors import InputError
from workbench.core.markdown import front_matter
from workbench.core.routing import Link, Row, parse_text

BRANCH_PREFIX = "workbench/arm/"
BASELINE = "baseline"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_BLOCK = re.compile(r"^(?P<key>[A-Za-z_][\w.-]*)\s*:\s*(?P<style>[>|][+-]?\d*)\s*(?:#.*)?$")


@dataclass(frozen=True)
class ArmInfo:
    """An arm as listed: name, ref, resolved sha (None if the ref is missing), env, and the row it edits."""

    name: str
    ref: str
    sha: str | None
    env: dict[str, str] = field(default_factory=dict)
    row: str | None = None


def check_arm_name(name: str) -> None:
    """An InputError unless NAME can name an arm (and a branch)."""
    if not _NAME.match(name) or name == BASELINE:
        raise InputError(f"arm name {name!r}: use letters, digits, '.', '_' or '-' (not 'baseline')",
                         field="--name")


def new_line(row: Row, *, text: str | None = None, trigger: str | None = None) -> str:
    """The row's new line: TEXT as the whole line, or the row with its trigger replaced by TRIGGER."""
    if text is not None:
        if "\n" in text:
            raise InputError("a row's text is one line", field="--text")
        return text
    if trigger is None:
        raise InputError("give --text or --trigger", field="--text")
    index = row.text.find(row.trigger)
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
    rows = parse_text(new_text, row.file, plugin=plugin)
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

