"""The live state of one run, as the canary pane draws it: call cards, required reads, moment, verdict.

Pure and Textual-free so it is unit-tested without an event loop. It consumes the normalized
events a host parser emits (`CallStarted` / `CallFinished` / `TextSeen` / `UsageSeen` /
`RunEnded`, and `CallsReset` when the final parse replaced the calls), merging a call's start and
finish into one card keyed by the host's call id (else its index). Verdicts come only from
`workbench.core.scoring.score()`: the state asks the scorer about the calls seen so far and
describes its answer ("read at #2 · moment at #4 → fired"); it never judges a read or a moment itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from workbench.core.events import (
    CallFinished,
    CallsReset,
    CallStarted,
    Event,
    InitSeen,
    RunEnded,
    TextSeen,
    UsageSeen,
)
from workbench.core.models import Call, CaseKind, Score, ScoreSpec, Usage
from workbench.core.scoring import score
from workbench.core.shell import analyze


@dataclass
class Card:
    """One call as the pane shows it; `version` changes whenever the card must be redrawn."""

    key: str
    call: Call
    finished: bool = False
    version: int = 0


@dataclass
class RunState:
    """Calls of one run merged by id, with the scorer's live answer for the case's spec.

    `required` and `moment` come from the case; `entry_skill` / `entry_file` only feed the
    scorer's entry-loaded index. The state keeps every call (the scorer needs them all); the pane
    caps what it mounts.
    """

    kind: CaseKind
    required: list[str]
    moment: str = "edit"
    entry_skill: str | None = None
    entry_file: str | None = None
    cards: dict[str, Card] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    init: InitSeen | None = None
    ended: RunEnded | None = None
    _by_index: dict[int, str] = field(default_factory=dict)
    _score: Score | None = None
    _scored_version: int = -1
    _version: int = 0

    @property
    def spec(self) -> ScoreSpec:
        return ScoreSpec(kind=self.kind, required=list(self.required), moment=self.moment,
                         entry_skill=self.entry_skill, entry_file=self.entry_file)

    def _key(self, call: Call) -> str:
        known = self._by_index.get(call.index)
        if known is not None:
            return known
        key = f"id:{call.call_id}" if call.call_id else f"#{call.index}"
        if key in self.cards:  # a host reusing an id for a new index: keep both cards
            key = f"{key}@{call.index}"
        self._by_index[call.index] = key
        return key

    def consume(self, event: Event) -> str | None:
        """Fold one event in; return the key of the card it created or changed (None: no card)."""
        if isinstance(event, CallStarted | CallFinished):
            key = self._key(event.call)
            card = self.cards.get(key)
            if card is None:
                card = self.cards[key] = Card(key, event.call)
                self.order.append(key)
            else:
                card.call = event.call
            card.finished = card.finished or isinstance(event, CallFinished)
            card.version += 1
            self._version += 1
            return key
        if isinstance(event, CallsReset):  # the final parse replaces every card
            self.cards.clear()
            self.order.clear()
            self._by_index.clear()
            for call in event.calls:
                self.consume(CallFinished(call))
            self._version += 1
            return None
        if isinstance(event, TextSeen):
            self.texts.append(event.text)
        elif isinstance(event, UsageSeen):
            self.usage = event.usage
        elif isinstance(event, InitSeen):
            self.init = event
        elif isinstance(event, RunEnded):
            self.ended = event
            self._version += 1
        return None

    def consume_all(self, events: Iterable[Event]) -> list[str]:
        """Fold many events; the keys changed, each once, in first-change order."""
        changed: dict[str, None] = {}
        for event in events:
            key = self.consume(event)
            if key is not None:
                changed[key] = None
        return list(changed)

    @classmethod
    def from_calls(cls, calls: Sequence[Call], **spec: object) -> RunState:
        """A finished state from recorded calls (a record's call list)."""
        state = cls(**spec)  # type: ignore[arg-type]
        state.consume_all(CallFinished(c) for c in calls)
        return state

    @property
    def version(self) -> int:
        """Grows whenever a card or the run's end changes (a view redraws or rescores on change)."""
        return self._version

    def key_at(self, index: int) -> str | None:
        """The card key of call INDEX, if seen."""
        return self._by_index.get(index)

    @property
    def calls(self) -> list[Call]:
        """Calls in run order (by index), as the scorer wants them."""
        return sorted((self.cards[k].call for k in self.order), key=lambda c: c.index)

    def score(self) -> Score:
        """The scorer's answer for the calls so far (cached until the next call change)."""
        if self._score is None or self._scored_version != self._version:
            self._score = score(self.spec, self.calls)
            self._scored_version = self._version
        return self._score

    def read_keys(self, index: int) -> list[str]:
        """Required files (record keys) whose first successful read is call INDEX."""
        return [key for key, at in self.score().reads.items() if at == index]

    def conflicts_at(self, index: int) -> list[str]:
        """What the scorer says disagrees at call INDEX: the required file (command vs content evidence)
        or `moment` (the repo watcher saw the call act, no moment pattern matched)."""
        return [(c.required or "?") if c.evidence == "content" else "moment"
                for c in self.score().conflicts if c.call == index]

    @staticmethod
    def failed_read(call: Call) -> bool:
        """A read attempt that was refused or failed (a Read tool, or a shell command that reads files):
        drawn marked; the scorer never counts it as a read."""
        if call.unreadable:
            return True
        if call.status == "ok":
            return False
        if call.kind == "read":
            return True
        return call.kind == "shell" and call.command is not None and bool(analyze(call.command).reads)

    @property
    def finished(self) -> bool:
        return self.ended is not None

    def verdict_line(self, *, final: bool | None = None) -> str:
        """`read at #2 · moment at #4 → fired`; the arrow part only once the verdict can no longer move."""
        result = self.score()
        done = self.finished if final is None else final
        parts = []
        for key, at in result.reads.items():
            name = key if len(result.reads) > 1 else ""
            parts.append(f"read {name} at #{at}".replace("  ", " ") if at is not None
                         else f"{name} not read".strip() if name else "not read")
        moment = result.moment_at
        if moment is None:
            parts.append("no moment yet" if not done else "no moment")
        elif moment >= len(self.order):
            parts.append("moment at end")
        else:
            parts.append(f"moment at #{moment}")
        settled = done or (self.kind == "positive" and moment is not None and moment < len(self.order)) \
            or result.overall == "opened"
        verdict = f" → {result.overall}" if settled else " → …"
        return " · ".join(parts) + verdict
