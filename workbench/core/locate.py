"""Where a validation error points in a TOML/JSON file: the field as a path and, for TOML, its line.

Every loader of a user-written file (cases, workspace, scripts) reports bad input the same way:
file, line and field.
"""

from __future__ import annotations

import re


def field_name(loc: tuple[int | str, ...]) -> str:
    """`('branches', 0, 'name')` -> `branches[0].name`."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else ("." if out else "") + str(part)
    return out


def key_line(text: str, loc: tuple[int | str, ...]) -> int | None:
    """The line of TEXT where the innermost string key of LOC is set (`key =`, `[a.key]`, `[[key]]`)."""
    names = [p for p in loc if isinstance(p, str)]
    lines = text.splitlines()
    for name in reversed(names):
        pattern = re.compile(rf"^\s*(\[\[?\s*([\w.\"'-]+\.)?)?[\"']?{re.escape(name)}[\"']?\s*(=|\]|\.)")
        for number, line in enumerate(lines, start=1):
            if pattern.match(line):
                return number
    return None
