"""Overlap = same turn, on every host: a call that starts before an earlier call's result arrived is in
that call's model turn, since no result of the open call can have shaped it.

Hosts give a turn key (a message id, a step, a call-id counter); this rule only ever MERGES the turns
they give, never splits one. It is kept per agent (`read_by`): a subagent's calls run while its
delegating call is open, and are in a conversation of their own.

Time is the host's own clock where it gives one (OpenCode's `state.time.start/end`), else the stream's
order: a result "arrived" when its line was read. A merged host turn stays merged, so the later
calls of the same model message follow the first one into the earlier turn. Turn numbers are kept
as the host gave them otherwise (a merged turn leaves a gap), so a turn number still names the
host's model request for every call that was not merged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from workbench.core.models import MAIN_READER


@dataclass
class _Turn:
    """One (merged) turn of one agent: its calls still awaiting a result, and its latest result time."""

    number: int
    open: int = 0
    last_result: float = -math.inf


@dataclass
class Overlap:
    """Merges host turns of calls that overlap in time. `timed`: the caller passes the host's times,
    and only a result time holds a turn open (a missing time is unknown: that call neither merges
    nor holds its turn open); else stream order, where a call is open until its result is read."""

    timed: bool = False
    tick: int = 0
    turns: dict[tuple[str, int], _Turn] = field(default_factory=dict)
    """(reader, host turn) -> the turn it is in (merged host turns share one)."""
    calls: dict[int, _Turn] = field(default_factory=dict)
    """Call index -> its turn, for calls whose result has not arrived."""

    def _now(self, at: float | None) -> float | None:
        if self.timed:
            return at
        self.tick += 1
        return float(self.tick)

    def started(self, index: int, turn: int | None, reader: str | None, at: float | None = None) -> int | None:
        """The turn of call INDEX the host put in TURN, issued at AT: the earliest other turn of the same
        agent still awaiting a result at that moment, else the host's."""
        now = self._now(at)
        if turn is None:
            return None
        key = (reader or MAIN_READER, turn)
        group = self.turns.get(key)
        if group is None:
            group = _Turn(turn)
            if now is not None:
                waiting = [t for (r, n), t in self.turns.items() if r == key[0] and n != turn and t is not group
                           and ((t.open > 0 and not self.timed) or t.last_result > now)]
                if waiting:
                    group = min(waiting, key=lambda t: t.number)
            self.turns[key] = group
        if now is not None:
            group.open += 1
            self.calls[index] = group
        return group.number

    def arrived(self, index: int, at: float | None = None) -> None:
        """Call INDEX's result arrived (at AT on the host's clock)."""
        now = self._now(at)
        group = self.calls.pop(index, None)
        if group is None:
            return
        group.open -= 1
        if now is not None:
            group.last_result = max(group.last_result, now)
