"""Word-level difference between two wordings of a routing row, readable without colour.

`word_diff` marks removed words `[-old-]` and added words `{+new+}` (git's `--word-diff=plain`
form), so a terminal without colour, a screen reader or a copied log line still shows the change.
Pure: no I/O, no Textual; the TUI only displays what it returns.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

_TOKEN = re.compile(r"\s+|\w+|[^\w\s]")


@dataclass(frozen=True)
class Piece:
    """One run of the diff: `same`, `removed` or `added` text (whitespace kept as written)."""

    kind: str
    text: str


def pieces(old: str, new: str) -> list[Piece]:
    """The runs that turn OLD into NEW, word by word (whitespace and each punctuation mark are tokens of their own)."""
    a, b = _TOKEN.findall(old), _TOKEN.findall(new)
    out: list[Piece] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            out.append(Piece("same", "".join(a[i1:i2])))
            continue
        if op in ("replace", "delete"):
            out.append(Piece("removed", "".join(a[i1:i2])))
        if op in ("replace", "insert"):
            out.append(Piece("added", "".join(b[j1:j2])))
    return out


def word_diff(old: str, new: str) -> str:
    """OLD vs NEW as one text: unchanged words as they are, `[-removed-]`, `{+added+}`; equal
    wordings give OLD unchanged."""
    marks = {"same": "{}", "removed": "[-{}-]", "added": "{{+{}+}}"}
    return "".join(marks[p.kind].format(p.text) for p in pieces(old, new))


def changed(old: str, new: str) -> bool:
    """Whether NEW differs from OLD in anything but surrounding blank lines."""
    return old.strip("\n") != new.strip("\n")
