"""Evidence in tool output: which paths a command reports as missing or unreadable.

A shell call that runs `cat F` has read F only if F could be opened. Hosts report the exit code at
best, never which file failed, so the scorer needs the paths the output itself names. A write
refusal (`Read-only file system`) is not a read failure and is never reported here.
"""

from __future__ import annotations

import re

_REASONS = (
    r"No such file or directory|Permission denied|Operation not permitted|Is a directory|Not a directory"
)
_Q = "['\"\u2018\u2019`]"

_SPECIFIC = [
    # ls: cannot access 'x': ... / head: cannot open 'x' for reading: ... / stat: cannot stat 'x': ...
    re.compile(rf"cannot (?:access|open|stat|read) {_Q}?(?P<p>.+?){_Q}?(?: for reading)?: (?:{_REASONS})"),
    # sed: can't read x: ... / python3: can't open file '/x': [Errno 2] ...
    re.compile(rf"can't (?:read|open)(?: file)? {_Q}?(?P<p>.+?){_Q}?: (?:\[Errno \d+\] )?(?:{_REASONS})"),
    # FileNotFoundError: [Errno 2] No such file or directory: 'x'
    re.compile(rf"\[Errno \d+\] (?:{_REASONS}): {_Q}(?P<p>.+?){_Q}\s*$"),
    # node: ENOENT: no such file or directory, open 'x'
    re.compile(r"E(?:NOENT|ACCES|PERM|ISDIR): [^,]*, \w+ '(?P<p>[^']+)'"),
]
# cat: x: No such file / bash: line 1: x: Operation not permitted / rg: x: ... (os error 2)
_GENERIC = re.compile(rf"(?:^|: )(?P<p>[^:\n]+?): (?:{_REASONS})(?: \(os error \d+\))?\s*$")
_NOT_A_PATH = re.compile(r"^line \d+$")


def _clean(path: str) -> str:
    return path.strip().strip("'\"\u2018\u2019`").strip()


def unreadable_paths(output: str) -> list[str]:
    """The paths OUTPUT says are missing or unreadable, in order of first mention, without repeats."""
    found: list[str] = []
    for raw in output.splitlines():
        line = raw.rstrip("\r")
        match = None
        for pattern in _SPECIFIC:
            match = pattern.search(line)
            if match:
                break
        if match is None:
            match = _GENERIC.search(line)
        if match is None:
            continue
        path = _clean(match.group("p"))
        if path and not _NOT_A_PATH.match(path) and path not in found:
            found.append(path)
    return found
