"""Effect evidence: what changed in the throwaway repo during a run, and which call did it.

The runner's `RepoWatcher` records effects (a file created, modified, deleted or moved; a new
commit, merge, tag or branch) with the monotonic time it saw them; `run_process` stamps every
stdout line with the same clock, and `CallClock` turns the parser's call events into spans (when
each call's start and result lines arrived). `attribute` then gives every effect to the call in
flight when it happened. Pure: no I/O, no clock of its own (docs/scoring.md, "Effect evidence").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from workbench.core.events import CallFinished, CallStarted, Event
from workbench.core.models import MAIN_READER, Call

EffectKind = Literal["created", "modified", "deleted", "moved", "commit", "merge", "tag", "branch", "ref", "index"]
FILE_KINDS: frozenset[str] = frozenset({"created", "modified", "deleted", "moved"})
GIT_KINDS: frozenset[str] = frozenset({"commit", "merge", "tag", "branch"})
"""The git effects that are moments; `ref` (a reset, checkout or fast-forward to commits that already
existed) and `index` (`git add`, but also `git status` refreshing stat data) are recorded, never moments."""


LINE_SLACK = 0.25
"""Seconds a stream line may arrive after the host printed it (the reader thread waiting for the
GIL in a busy process: a TUI run of the sim, whose calls follow each other within milliseconds,
showed lines arriving over 50 ms late on two shared cores).
A call whose start line arrived up to this long after an effect could have made it too: it is
listed as `ambiguous`, so the scorer sees it as a candidate."""


@dataclass(frozen=True)
class Effect:
    """One change the watcher saw: when (monotonic seconds), where (repo-relative path, or the ref's
    name for git kinds) and what. `detail` is a move's target or a ref's new sha."""

    t: float
    path: str
    kind: EffectKind
    detail: str | None = None

    def to_record(self) -> dict[str, str]:
        """The effect as a record stores it per call: path and kind (a git effect also its sha), no time."""
        out = {"path": self.path, "kind": self.kind}
        if self.detail is not None and self.kind in GIT_KINDS:
            out["sha"] = self.detail
        return out

    @property
    def moment(self) -> bool:
        """Whether this effect is an attempt at the action a moment stands for (a write or new history)."""
        return self.kind in FILE_KINDS or self.kind in GIT_KINDS


@dataclass(frozen=True)
class CallSpan:
    """When one call's start line and result line arrived (monotonic seconds; None: never seen)."""

    index: int
    started: float | None
    finished: float | None
    call_id: str | None = None


class CallClock:
    """Folds (event, arrival time) pairs into one `CallSpan` per call, keyed by index and call id."""

    def __init__(self) -> None:
        self._started: dict[int, float] = {}
        self._finished: dict[int, float] = {}
        self._ids: dict[int, str | None] = {}

    def see(self, event: Event, t: float) -> None:
        """Note EVENT's arrival at T: the first CallStarted and the first CallFinished of each call count."""
        if isinstance(event, CallStarted):
            self._started.setdefault(event.call.index, t)
            self._ids.setdefault(event.call.index, event.call.call_id)
        elif isinstance(event, CallFinished):
            self._finished.setdefault(event.call.index, t)
            self._started.setdefault(event.call.index, t)  # a host that reports a call only when done
            self._ids[event.call.index] = event.call.call_id or self._ids.get(event.call.index)

    def spans(self) -> list[CallSpan]:
        """Every call seen, in index order."""
        return [CallSpan(i, self._started.get(i), self._finished.get(i), self._ids.get(i))
                for i in sorted(self._started.keys() | self._finished.keys())]


def turn_spans(call_turns: Sequence[int | None], asked: Iterable[tuple[int, float]]) -> list[CallSpan]:
    """Spans from the scripted model server's clock instead of the host's stdout: ASKED holds
    (model turn, arrival time) of each request the server answered. A call of turn K ran after the
    request for turn K arrived and before the request for turn K+1 did (its result was in it); the
    server syncs the repo watcher before it stamps an arrival, so every effect of turn K's calls is
    stamped inside that window. CALL_TURNS is each call's turn (the parser's 0-based turn number,
    one per model message, as the server counts them). For hosts that print their calls only at
    exit (Grok CLI); calls of one turn share a window, so the attribution names them all."""
    first: dict[int, float] = {}
    for asked_turn, t in sorted(asked, key=lambda a: a[1]):
        first.setdefault(asked_turn, t)
    ends: dict[int, float | None] = {}  # turn -> the earliest request for a later turn
    later: float | None = None
    for turn in sorted(first, reverse=True):
        ends[turn] = later
        later = first[turn] if later is None else min(later, first[turn])
    return [CallSpan(index, first[turn], ends[turn]) for index, turn in enumerate(call_turns)
            if turn is not None and turn in first]


def reindex(spans: Sequence[CallSpan], call_ids: Sequence[str | None]) -> list[CallSpan]:
    """SPANS renumbered to a final call list given by its call ids (Codex is parsed again after exit
    with its rollout log, which can add calls): a span keeps its time and takes the index of the
    final call with its id; spans without an id keep their index."""
    where = {cid: i for i, cid in enumerate(call_ids) if cid}
    out = [CallSpan(where.get(s.call_id, s.index) if s.call_id else s.index, s.started, s.finished, s.call_id)
           for s in spans]
    return sorted(out, key=lambda s: s.index)


@dataclass(frozen=True)
class Attribution:
    """Which call an effect is given to, and on what ground.

    `basis`: `in-flight` (started before the effect, result not yet arrived); `late-start` (no call in
    flight: the first call whose result arrived after the effect, for hosts that print a call's start
    late or only once it is done); `ambiguous` (other calls could have made it too, listed in `others`:
    several in flight, or, with turn ids, calls of the same turn whose result had not arrived yet; the
    one named is the last started, or for `late-start` the first to report)."""

    effect: Effect
    call: int
    basis: Literal["in-flight", "late-start", "ambiguous", "named"]
    others: tuple[int, ...] = ()


def _open_at(span: CallSpan, t: float) -> bool:
    """Whether SPAN's result had not arrived by T (so the call may still have been running)."""
    return span.finished is None or span.finished >= t


def _attribute_one(spans: Sequence[CallSpan], effect: Effect, turns: Mapping[int, str],
                   slack: float = LINE_SLACK) -> Attribution | None:
    t = effect.t
    flying = [s for s in spans if s.started is not None and s.started <= t and _open_at(s, t)]
    if flying:
        chosen = max(flying, key=lambda s: (s.started, s.index))
        basis: Literal["in-flight", "late-start"] = "in-flight"
    else:
        later = [s for s in spans if s.finished is not None and s.finished >= t]
        if not later:
            return None
        chosen = min(later, key=lambda s: (s.finished, s.index))
        basis = "late-start"
    turn = turns.get(chosen.index)
    others = {s.index for s in flying if s is not chosen}
    others |= {s.index for s in spans if s is not chosen and s.started is not None and t < s.started <= t + slack
               and _open_at(s, t)}
    if turn is not None:
        others |= {s.index for s in spans if s is not chosen and turns.get(s.index) == turn and _open_at(s, t)}
    if others:
        return Attribution(effect, chosen.index, "ambiguous", tuple(sorted(others)))
    return Attribution(effect, chosen.index, basis)


def first_changes(effects: Iterable[Effect]) -> list[Effect]:
    """The effects that can be moments, only the first per file and per git kind, in time order."""
    seen: set[tuple[str, str]] = set()
    out: list[Effect] = []
    for effect in sorted(effects, key=lambda e: e.t):
        if not effect.moment:
            continue
        key = ("git", effect.kind) if effect.kind in GIT_KINDS else ("file", effect.path)
        if key not in seen:
            seen.add(key)
            out.append(effect)
    return out


def attribute(spans: Sequence[CallSpan], effects: Iterable[Effect],
              turns: Mapping[int, str] | None = None, slack: float = LINE_SLACK) -> list[Attribution]:
    """Every first change (`first_changes`) given to a call; an effect after the last result (the host
    itself, not a call) or with no call at all is left out. TURNS (call index -> model turn id), when
    known, widens `ambiguous` to the calls of the same turn. SLACK is how late a stamp may be
    (`LINE_SLACK` for stdout lines; 0 for `turn_spans`, stamped by the server itself)."""
    found = (_attribute_one(spans, e, turns or {}, slack) for e in first_changes(effects))
    return [a for a in found if a is not None]


READ_ONLY_KINDS: frozenset[str] = frozenset({"read", "skill"})
"""Call kinds that cannot change the repo (a read tool, a skill load): never a candidate for an effect."""


def _names(call: Call, path: str) -> bool:
    """Whether CALL's input names PATH: its file name as a whole word of a path (`b` is not in `cp a bb`)."""
    text = " ".join(t for t in (call.command, call.path) if t)
    name = re.escape(path.rsplit("/", 1)[-1])
    return bool(text) and re.search(rf"(?<![\w.-]){name}(?![\w.-])", text) is not None


def _narrowed(a: Attribution, calls: Sequence[Call]) -> Attribution:
    """An ambiguous attribution without the candidates that cannot write; when exactly one of the
    writers left names the changed path in its input, it is `named` (the others are timing-only)."""
    if a.basis != "ambiguous":
        return a
    writers = [i for i in (a.call, *a.others) if i < len(calls) and calls[i].kind not in READ_ONLY_KINDS]
    if not writers:
        return a
    if len(writers) == 1:
        return Attribution(a.effect, writers[0], "in-flight")
    naming = [i for i in writers if _names(calls[i], a.effect.path)] if a.effect.kind in FILE_KINDS else []
    if len(naming) == 1:
        return Attribution(a.effect, naming[0], "named")
    chosen = a.call if a.call in writers else writers[-1]
    return Attribution(a.effect, chosen, "ambiguous", tuple(i for i in writers if i != chosen))


def _consistent(turn_clock: Sequence[CallSpan], lines: Sequence[CallSpan]) -> bool:
    """Whether the turn clock agrees with the stdout lines: no call's line arrived before the request
    for its own turn did (a call is issued only in the answer to that request). False: the host's
    turns are not numbered as the server counts them, and the turn clock is not used."""
    asked = {s.index: s.started for s in turn_clock if s.started is not None}
    return all(s.started is None or s.index not in asked or s.started >= asked[s.index] for s in lines)


def attribute_run(calls: Sequence[Call], effects: Iterable[Effect], line_spans: Sequence[CallSpan],
                  asked: Iterable[tuple[int, float]], live_stream: bool) -> list[Attribution] | None:
    """A run's first changes given to its final CALLS by the best clocks the run has.

    The scripted server's turn clock (ASKED, `turn_spans`) is exact: it names the turn whose calls
    made a change. The host's stdout lines (LINE_SPANS from `CallClock`, renumbered to CALLS) tell
    calls apart, within one turn or on a run without the turn clock, up to `LINE_SLACK`. A call
    that cannot write (`READ_ONLY_KINDS`) is never a candidate, and of several writers in flight
    the one whose input names the changed path is chosen (`named`). None: no clock times a call
    (a host that prints its calls only at exit, driven by a real model)."""
    effects = list(effects)
    turns = {i: str(c.turn) for i, c in enumerate(calls) if c.turn is not None}
    lines = reindex(line_spans, [c.call_id for c in calls]) if live_stream else []
    clock = turn_spans(server_turns(calls), asked)
    if clock and lines and not _consistent(clock, lines):
        clock = []
    if not clock and not live_stream:
        return None
    found: list[Attribution] = []
    for effect in first_changes(effects):
        a = _by_turn(clock, lines, effect, turns) if clock else _attribute_one(lines, effect, turns)
        if a is not None and a.call < len(calls):
            found.append(_narrowed(a, calls))
    return found


def server_turns(calls: Sequence[Call]) -> list[int | None]:
    """Each call's model turn as the scripted server counts them (it times the main agent's requests
    only). A run without subagent calls: its turns as they are. A delegating run's turns were numbered
    across agents (a subagent's messages, or its session merged in by time), so a subagent's call gets
    none and the main agent's turns are ranked in order."""
    if all(c.read_by == MAIN_READER for c in calls):
        return [c.turn for c in calls]
    rank = {t: i for i, t in enumerate(sorted({c.turn for c in calls
                                               if c.read_by == MAIN_READER and c.turn is not None}))}
    return [rank.get(c.turn) if c.read_by == MAIN_READER and c.turn is not None else None for c in calls]


def _by_turn(clock: Sequence[CallSpan], lines: Sequence[CallSpan], effect: Effect,
             turns: Mapping[int, str]) -> Attribution | None:
    """EFFECT given to a call of the turn whose window holds it; its lines (if any) pick the call."""
    window = [s.index for s in clock if s.started is not None and s.started < effect.t
              and (s.finished is None or effect.t <= s.finished)]
    if not window:
        return None  # before the first request or after the last result: the host's own change
    if len(window) == 1:
        return Attribution(effect, window[0], "in-flight")
    by_line = _attribute_one([s for s in lines if s.index in window], effect, turns) if lines else None
    return by_line or Attribution(effect, window[-1], "ambiguous", tuple(window[:-1]))
