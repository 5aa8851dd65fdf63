"""Evidence in tool output: which paths a command reports as missing or unreadable.

A shell call that runs `cat F` has read F only if F could be opened. Hosts report the exit code at
best, never which file failed, so the scorer needs the paths the output itself names. A write
refusal (`Read-only file system`) is not a read failure and is never reported here.

Some errors name no path at all (`No such file or directory` alone, or `cat: No such file or
directory`): `shell_unreadable` then gives the one file the command reads when reading it is all
the command does; otherwise the message cannot be pinned on a file and content evidence decides.
"""

from __future__ import annotations

import functools
import re
from pathlib import PurePosixPath

from workbench.core.shell import analyze

_REASONS = (
    r"No such file or directory|Permission denied|Operation not permitted|Is a directory|Not a directory"
)
_Q = "['\"\u2018\u2019`]"
_ANY_REASON = re.compile(rf"{_REASONS}|E(?:NOENT|ACCES|PERM|ISDIR): ")
"""Every pattern below needs one of these in the line: an output without any names no unreadable path."""

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
# No such file or directory / cat: No such file or directory / bash: line 1: Permission denied
_PATHLESS = re.compile(rf"^\s*(?:(?P<prog>[^:\s]+): )?(?:line \d+: )?(?:{_REASONS})\s*$")
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh"})
_HARMLESS = frozenset({"cd", "pushd", "true", ":"})
"""Simple commands that may stand beside the one reader without making a pathless error ambiguous."""


def _clean(path: str) -> str:
    return path.strip().strip("'\"\u2018\u2019`").strip()


def unreadable_paths(output: str) -> list[str]:
    """The paths OUTPUT says are missing or unreadable, in order of first mention, without repeats."""
    found: list[str] = []
    if not _ANY_REASON.search(output):
        return found
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


def shell_unreadable(command: str | None, output: str) -> list[str]:
    """What a shell call's OUTPUT says it could not read: the paths the output names (never a mere
    program name: `cat: No such file or directory` names none), plus, for a pathless error, the
    one file COMMAND reads when that read is its only command (`cat F`, `cd D && cat F`)."""
    if not _ANY_REASON.search(output):
        return []  # no error message: nothing unreadable, with or without a path
    analysis = analyze(command) if command else None
    programs = {_name(argv[0]) for argv in (analysis.simple_commands if analysis else []) if argv}
    found = [p for p in unreadable_paths(output) if p not in programs]
    if analysis is None or not any(_pathless(line, programs) for line in output.splitlines()):
        return found
    reads = list(dict.fromkeys(analysis.reads))
    acting = [argv for argv in analysis.simple_commands if argv and argv[0] not in _HARMLESS]
    if len(reads) == 1 and len(acting) == 1 and reads[0] not in found:
        found.append(reads[0])
    return found


@functools.lru_cache(maxsize=1024)
def _name(program: str) -> str:
    return PurePosixPath(program).name


def _pathless(line: str, programs: set[str]) -> bool:
    match = _PATHLESS.match(line.rstrip("\r"))
    prog = match.group("prog") if match else None
    return match is not None and (prog is None or prog in programs or prog in _SHELLS)
