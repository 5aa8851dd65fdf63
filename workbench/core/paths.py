"""Path normalization and suffix matching on path-segment boundaries.

Required files are given as path suffixes (`writing.md`, `references/context.md`) and runs report
paths in many shapes (absolute, anonymized `<plugin>/...`, relative to a tracked `cd`, globs).
Matching by whole segments keeps `writing.md` from matching `rewriting.md`.
"""

from __future__ import annotations

import fnmatch
import re
from functools import lru_cache

_PLACEHOLDER = re.compile(r"^<[A-Za-z][\w.-]*>$")
GLOB_CHARS = frozenset("*?[")
_GLOB_CHARS = GLOB_CHARS
HOME = "<home>"


def is_placeholder(segment: str) -> bool:
    """True for an anonymized root such as `<plugin>`, `<repo>` or `<home>`."""
    return bool(_PLACEHOLDER.match(segment))


def is_rooted(path: str) -> bool:
    """True when the path does not depend on the working directory."""
    if path.startswith(("/", "~")):
        return True
    first = path.split("/", 1)[0]
    return is_placeholder(first) or first.startswith("$")


def join(cwd: str | None, path: str) -> str:
    """Resolve `path` against a tracked working directory (unknown cwd: leave it relative)."""
    if cwd is None or not path or is_rooted(path):
        return normalize(path)
    return normalize(cwd.rstrip("/") + "/" + path)


def normalize(path: str) -> str:
    """Collapse `./`, `a/x/../b`, doubled slashes and `~` / `$HOME` into one spelling."""
    if path == "~" or path.startswith("~/"):
        path = HOME + path[1:]
    for home in ("${HOME}", "$HOME"):
        if path == home or path.startswith(home + "/"):
            path = HOME + path[len(home):]
    absolute = path.startswith("/")
    out: list[str] = []
    for seg in path.split("/"):
        if seg in ("", "."):
            continue
        if seg == ".." and out and out[-1] != "..":
            out.pop()
            continue
        if seg == ".." and absolute and not out:
            continue
        out.append(seg)
    joined = "/".join(out)
    return ("/" + joined) if absolute else joined


@lru_cache(maxsize=65536)
def segments(path: str) -> tuple[str, ...]:
    """The normalized path split into segments (a leading `/` is dropped); cached: scoring asks often."""
    return tuple(s for s in normalize(path).split("/") if s)


def _seg_match(actual: str, wanted: str) -> bool:
    """One segment of a seen path against one of a required path; the seen one may be a glob."""
    if actual == wanted:
        return True
    return bool(_GLOB_CHARS.intersection(actual)) and fnmatch.fnmatchcase(wanted, actual)


def _window_match(have: tuple[str, ...], want: tuple[str, ...]) -> bool:
    """Segment-wise match; a glob only counts when a literal segment also matched, because a bare
    `tests/*` says nothing about WHICH directory a base-name-only required file lives in."""
    if not all(_seg_match(a, w) for a, w in zip(have, want, strict=True)):
        return False
    globbed = any(_GLOB_CHARS.intersection(a) for a in have)
    return not globbed or any(a == w and not is_placeholder(a) for a, w in zip(have[:-1], want[:-1], strict=True))


@lru_cache(maxsize=8192)
def suffix_match(path: str, required: str) -> bool:
    """True when `required`'s segments end `path` (globs in `path` match with fnmatch).

    A required file that starts with a placeholder (`<plugin>/x.md`) also matches an absolute,
    un-anonymized path that ends with the rest (`/home/u/plugins/p/x.md`). Pure, so remembered.
    """
    have = segments(path)
    want = segments(required)
    if not want or not have:
        return False
    if want and is_placeholder(want[0]) and path.startswith("/") and len(have) > len(want) - 1:
        rest = want[1:]
        if not rest:
            return False
        return _window_match(have[-len(rest):], tuple(rest))
    if len(have) < len(want):
        return False
    return _window_match(have[-len(want):], want)


@lru_cache(maxsize=8192)
def either_suffix(a: str, b: str) -> bool:
    """True when one path is a segment suffix of the other (evidence paths come in both shapes);
    remembered, as `suffix_match` is: a run and a file of records ask about the same few pairs."""
    return suffix_match(a, b) or suffix_match(b, a)
