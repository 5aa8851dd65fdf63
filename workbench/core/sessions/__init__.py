"""Past sessions: each host's own session files, read into the same calls the stream parsers give.

Pure functions over text handed in (the runner finds, bounds and reads the files): `read_session`
takes the text of one session's files (the main file first, then its subagents or child rollouts)
and returns a `SessionRun` whose `parsed` is a `ParsedRun` like a live run's, so THE scorer judges
it. The formats and their traps: docs/sessions.md. Nothing here raises on bad input: a line that
cannot be used is counted in `parsed.skipped_count`, like a stream line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from workbench.core.errors import InputError
from workbench.core.events import ParsedRun
from workbench.core.hostinfo import SESSION_HOSTS
from workbench.core.models import MAIN_READER, Call
from workbench.core.parsers.common import MAX_LINE

MAIN = MAIN_READER
"""`read_by` of a call the main agent issued (a subagent's is `subagent:<its file's name>`)."""


@dataclass(frozen=True)
class SessionFile:
    """One file of a session as handed in: its name (for warnings and `read_by`) and its text."""

    name: str
    text: str


@dataclass
class SessionRun:
    """One past session, read: its calls (in issue order, turns, statuses) and what it offered.

    `context` is the text the host put before the model (instructions, skill listings): used only
    to tell whether a row was offered, never kept in a record."""

    host: str
    session_id: str | None
    parsed: ParsedRun
    read_by: list[str] = field(default_factory=list)
    """Per call index: `main`, or `subagent:<file>` for a call a subagent or child rollout issued."""
    host_version: str | None = None
    model: str | None = None
    cwd: str | None = None
    started_at: str | None = None
    finished_at: str | None = None
    offered_skills: list[str] = field(default_factory=list)
    context: str = ""
    warnings: list[str] = field(default_factory=list)
    """One line per file part that could not be used (a file of another format, a skipped line)."""

    def saw_time(self, timestamp: str | None) -> None:
        """Widen the session's span to TIMESTAMP (ISO 8601 strings of one host order as times)."""
        if timestamp:
            self.started_at = min(self.started_at or timestamp, timestamp)
            self.finished_at = max(self.finished_at or timestamp, timestamp)

    def offers(self, skill: str | None, phrases: Sequence[str] = ()) -> bool | None:
        """Whether the session offered a row: its entry SKILL was listed, or one of PHRASES (the row's
        trigger) is in the session's context. None: nothing to look for, or the session says nothing
        about what it offered."""
        if not skill and not any(phrases):
            return None
        if skill and any(skill in (s, s.rsplit(":", 1)[-1]) for s in self.offered_skills):
            return True
        text = _squash(self.context)
        if any(p and _squash(p) in text for p in phrases):
            return True
        return False if (self.offered_skills or self.context) else None


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def json_lines(text: str) -> Iterator[tuple[int, dict[str, Any] | None]]:
    """(line number, object or None when the line is not a JSON object) for each non-empty line."""
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        if len(line) > MAX_LINE:
            yield number, None
            continue
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError):
            yield number, None
            continue
        yield number, obj if isinstance(obj, dict) else None


@dataclass
class Part:
    """The calls one file of a session gave, each with the time it was issued (to merge files)."""

    name: str
    calls: list[Call]
    stamps: dict[int, str]
    """Call index (in this part) -> ISO time its issuing line was written; missing: unknown."""


def merge_parts(parts: Sequence[Part]) -> tuple[list[Call], list[str]]:
    """The calls of a main file and its subagents in one issue order (by the time each was issued; a
    call without a time follows the one before it in its own file), renumbered, with each part's turns
    kept apart; and who issued each (`read_by`)."""
    keyed: list[tuple[str, int, int, Call]] = []
    for p, part in enumerate(parts):
        last = ""
        for i, call in enumerate(part.calls):
            last = part.stamps.get(i, last)
            keyed.append((last, p, i, call))
    keyed.sort(key=lambda k: (k[0], k[1], k[2]))
    turns: dict[tuple[int, int | None], int] = {}
    calls: list[Call] = []
    read_by: list[str] = []
    for _, p, i, call in keyed:
        key = (p, call.turn if call.turn is not None else -1 - i)
        turn = turns.setdefault(key, len(turns))
        calls.append(call.model_copy(update={"index": len(calls), "turn": turn if call.turn is not None else None}))
        read_by.append(MAIN if p == 0 else f"subagent:{parts[p].name}")
    return calls, read_by


def read_session(host: str, files: Sequence[SessionFile]) -> SessionRun:
    """One session of HOST from its files' text (the main file first). InputError for a host whose
    sessions are not read; any content is read as far as it goes."""
    from workbench.core.sessions import claude, codex, gemini, opencode

    readers = {m.HOST: m.read for m in (claude, codex, gemini, opencode)}
    if host not in readers:
        raise InputError(f"sessions of {host!r} are not read; read: {', '.join(SESSION_HOSTS)}", field="--host")
    if not files:
        raise InputError("a session needs at least its main file", field="files")
    return readers[host](files)


def with_read_by(run: SessionRun) -> SessionRun:
    """RUN's calls carrying their `read_by` (`Call.read_by`: main, or `subagent:<file name>`)."""
    run.parsed.calls = [c.model_copy(update={"read_by": r}) for c, r in zip(run.parsed.calls, run.read_by,
                                                                             strict=True)]
    return run
