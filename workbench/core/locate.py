"""Where a validation error points in a TOML/JSON file: the field as a path and, for TOML, its line.

Every loader of a user-written file (cases, workspace, scripts) reports bad input the same way:
file, line and field (`parse_toml` for a file that is not TOML at all). The line comes from a walk
of the TOML text that knows tables, arrays of tables (`[[branches]]`), dotted keys, inline tables
and arrays, so `('branches', 1, 'name')` is the SECOND branch's `name`, not the first `name =`.
"""

from __future__ import annotations

import bisect
import contextlib
import re
import tomllib
from typing import Any

from workbench.core.errors import InputError

Loc = tuple[int | str, ...]

_BARE = re.compile(r"[A-Za-z0-9_-]+")
_WS = " \t"


def field_name(loc: Loc) -> str:
    """`('branches', 0, 'name')` -> `branches[0].name`."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else ("." if out else "") + str(part)
    return out


def key_line(text: str, loc: Loc) -> int | None:
    """The line of TEXT where LOC (or its longest prefix that the file sets) is set; None if no part is."""
    lines = key_lines(text)
    for end in range(len(loc), 0, -1):
        found = lines.get(tuple(loc[:end]))
        if found is not None:
            return found
    return None


def key_lines(text: str) -> dict[Loc, int]:
    """Every key path the TOML TEXT sets -> the line (1-based) where it is set, array items by index.

    A best-effort walk: on text that is not valid TOML it returns what it found before the problem."""
    walk = _Walk(text)
    with contextlib.suppress(_Stop, RecursionError):  # RecursionError: absurdly deep inline nesting
        walk.document()
    return walk.found


def parse_toml(text: str, *, file: str) -> dict[str, Any]:
    """TEXT as TOML; not TOML -> InputError naming FILE, the line and the field the error is in."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise toml_syntax_error(exc, text, file=file) from None


def toml_syntax_error(exc: Exception, text: str, *, file: str) -> InputError:
    """The InputError for a TOML parser's error EXC on TEXT (tomllib's or tomlkit's)."""
    line = getattr(exc, "line", None)
    if not isinstance(line, int):
        found = re.search(r"line (\d+)", str(exc))
        line = int(found.group(1)) if found else text.count("\n") + (not text.endswith("\n")) or 1
    return InputError(f"invalid TOML: {exc}", file=file, line=line, field=field_near(text, line))


def field_near(text: str, line: int | None) -> str | None:
    """The field a TOML syntax error at LINE is in: the last key or table the text sets at or before it."""
    if line is None:
        return None
    before = [(at, len(loc), loc) for loc, at in key_lines(text).items() if at <= line]
    if not before:
        return None
    loc = max(before)[2]
    while loc and isinstance(loc[-1], int):  # an item of an array value: name the key
        loc = loc[:-1]
    return field_name(loc) or None


class _Stop(Exception):
    """The text ended or is not TOML the walk understands."""


class _Walk:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.found: dict[Loc, int] = {}
        self.arrays: dict[Loc, int] = {}
        """Array-of-tables path (indexes resolved) -> how many elements so far."""

    # ---- positions -------------------------------------------------------------------------------

    def line(self, pos: int | None = None) -> int:
        return bisect.bisect_right(self.starts, self.pos if pos is None else pos)

    def mark(self, path: Loc, pos: int) -> None:
        self.found.setdefault(path, self.line(pos))

    def peek(self, n: int = 1) -> str:
        return self.text[self.pos:self.pos + n]

    def skip(self, newlines: bool) -> None:
        """Spaces and comments (and newlines when NEWLINES, as inside arrays)."""
        while self.pos < len(self.text):
            c = self.text[self.pos]
            if c in _WS or (newlines and c in "\r\n"):
                self.pos += 1
            elif c == "#":
                end = self.text.find("\n", self.pos)
                self.pos = len(self.text) if end < 0 else end
            else:
                return

    def expect(self, s: str) -> None:
        if not self.text.startswith(s, self.pos):
            raise _Stop
        self.pos += len(s)

    # ---- document --------------------------------------------------------------------------------

    def document(self) -> None:
        table: Loc = ()
        while True:
            self.skip(newlines=True)
            if self.pos >= len(self.text):
                return
            start = self.pos
            if self.text.startswith("[[", self.pos):
                self.pos += 2
                keys = self.keys()
                self.skip(newlines=False)
                self.expect("]]")
                parent = self.resolve(keys[:-1])
                path = (*parent, keys[-1])
                index = self.arrays.get(path, 0)
                self.arrays[path] = index + 1
                self.mark(path, start)
                table = (*path, index)
                self.mark(table, start)
            elif self.peek() == "[":
                self.pos += 1
                keys = self.keys()
                self.skip(newlines=False)
                self.expect("]")
                table = (*self.resolve(keys[:-1]), keys[-1])
                self.mark(table, start)
            else:
                self.keyval(table)
            self.end_of_line()

    def resolve(self, keys: list[str]) -> Loc:
        """Key parts of a header -> the path, each array of tables standing for its last element."""
        path: Loc = ()
        for key in keys:
            path = (*path, key)
            if path in self.arrays:
                path = (*path, self.arrays[path] - 1)
        return path

    def end_of_line(self) -> None:
        self.skip(newlines=False)
        if self.pos < len(self.text) and self.text[self.pos] not in "\r\n":
            raise _Stop

    # ---- keys and values -------------------------------------------------------------------------

    def keys(self) -> list[str]:
        """A dotted key: its parts."""
        parts: list[str] = []
        while True:
            self.skip(newlines=False)
            c = self.peek()
            if c == '"':
                parts.append(self.basic_string())
            elif c == "'":
                parts.append(self.literal_string())
            else:
                bare = _BARE.match(self.text, self.pos)
                if bare is None:
                    raise _Stop
                parts.append(bare.group())
                self.pos = bare.end()
            self.skip(newlines=False)
            if self.peek() != ".":
                return parts
            self.pos += 1

    def keyval(self, base: Loc) -> None:
        start = self.pos
        keys = self.keys()
        path = (*base, *keys)
        for end in range(len(base) + 1, len(path) + 1):
            self.mark(path[:end], start)
        self.skip(newlines=False)
        self.expect("=")
        self.skip(newlines=False)
        self.value(path)

    def value(self, path: Loc) -> None:
        c = self.peek()
        if c == "{":
            self.pos += 1
            while True:
                self.skip(newlines=True)  # TOML 1.1 allows newlines; harmless for 1.0 text
                if self.peek() == "}":
                    self.pos += 1
                    return
                self.keyval(path)
                self.skip(newlines=True)
                if self.peek() == ",":
                    self.pos += 1
        elif c == "[":
            self.pos += 1
            index = 0
            while True:
                self.skip(newlines=True)
                if self.peek() == "]":
                    self.pos += 1
                    return
                self.mark((*path, index), self.pos)
                self.value((*path, index))
                index += 1
                self.skip(newlines=True)
                if self.peek() == ",":
                    self.pos += 1
        elif c == '"':
            self.basic_string()
        elif c == "'":
            self.literal_string()
        else:
            scalar = re.compile(r"[^,\]\}\s#]+").match(self.text, self.pos)
            if scalar is None:
                raise _Stop
            self.pos = scalar.end()
            # a date-time may hold one space: `1979-05-27 07:32:00`
            more = re.compile(r" \d{2}:\d{2}[^,\]\}\s#]*").match(self.text, self.pos)
            if more is not None:
                self.pos = more.end()

    def basic_string(self) -> str:
        if self.text.startswith('"""', self.pos):
            end = self.text.find('"""', self.pos + 3)
            while end >= 0 and _escaped(self.text, end):
                end = self.text.find('"""', end + 1)
            if end < 0:
                raise _Stop
            while self.text.startswith('"', end + 3):  # up to two quotes may end the body
                end += 1
            body, self.pos = self.text[self.pos + 3:end], end + 3
            return body
        self.pos += 1
        out = []
        while self.pos < len(self.text):
            c = self.text[self.pos]
            if c == "\\":
                out.append(self.text[self.pos:self.pos + 2])
                self.pos += 2
                continue
            if c == '"':
                self.pos += 1
                return _unescape("".join(out))
            if c == "\n":
                break
            out.append(c)
            self.pos += 1
        raise _Stop

    def literal_string(self) -> str:
        quote = "'''" if self.text.startswith("'''", self.pos) else "'"
        end = self.text.find(quote, self.pos + len(quote))
        if end < 0 or (quote == "'" and "\n" in self.text[self.pos:end]):
            raise _Stop
        if quote == "'''":
            while self.text.startswith("'", end + 3):
                end += 1
        body, self.pos = self.text[self.pos + len(quote):end], end + len(quote)
        return body


def _escaped(text: str, at: int) -> bool:
    """Whether the character at AT is preceded by an odd number of backslashes."""
    n = 0
    while at - n - 1 >= 0 and text[at - n - 1] == "\\":
        n += 1
    return n % 2 == 1


def _unescape(raw: str) -> str:
    """A quoted key's text (escapes are rare in keys; unknown ones are kept as written)."""
    simple = {'\\"': '"', "\\\\": "\\", "\\n": "\n", "\\t": "\t", "\\r": "\r", "\\b": "\b", "\\f": "\f"}

    def one(m: re.Match[str]) -> str:
        escape = m.group()
        if escape[1] in "uU" and len(escape) > 2 and int(escape[2:], 16) <= 0x10FFFF:
            return chr(int(escape[2:], 16))
        return simple.get(escape, escape)

    return re.sub(r"\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8}|\\.", one, raw)
