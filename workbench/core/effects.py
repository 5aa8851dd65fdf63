"""Effect evidence: what changed in the throwaway repo during a run, and which call did it.

The runner's `RepoWatcher` records effects (a file created, modified, deleted or moved; a new
commit, merge, tag or branch) with the monotonic time it saw them; `run_process` stamps every
stdout line with the same clock, and `CallClock` turns the parser's call events into spans (when
each call's start and result lines arrived). `attribute` then gives every effect to the call in
flight when it happened. Pure: no I/O, no clock of its own (docs/scoring.md, "Effect evidence").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from workbench.core.events import CallFinished, CallStarted, Event

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
    basis: Literal["in-flight", "late-start", "ambiguous"]
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
              turns: Mapping[int, str] | None = None) -> list[Attribution]:
    """Every first change (`first_changes`) given to a call; an effect after the last result (the host
    itself, not a call) or with no call at all is left out. TURNS (call index -> model turn id), when
    known, widens `ambiguous` to the calls of the same turn."""
    found = (_attribute_one(spans, e, turns or {}) for e in first_changes(effects))
    return [a for a in found if a is not None]


def effects_by_call(spans: Sequence[CallSpan], effects: Iterable[Effect],
                    turns: Mapping[int, str] | None = None) -> dict[int, list[Effect]]:
    """Call index -> the first changes attributed to it (calls without any are absent)."""
    out: dict[int, list[Effect]] = {}
    for a in attribute(spans, effects, turns):
        out.setdefault(a.call, []).append(a.effect)
    return out


def first_effect_call(spans: Sequence[CallSpan], effects: Iterable[Effect],
                      turns: Mapping[int, str] | None = None) -> int | None:
    """The lowest index of a call a first change is attributed to (the effect moment), or None.

    The scorer's moment is the earlier of this and the pattern moment; when only this one exists,
    the record says `moment_basis: effect`."""
    return min((a.call for a in attribute(spans, effects, turns)), default=None)
