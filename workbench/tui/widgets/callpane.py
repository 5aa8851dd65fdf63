"""The live call pane: a virtual list of call cards (Line API), keyed by call id, flushed on a timer.

Events queue up cheaply (`feed`); a timer flush folds them into the pure `RunState` within a time
budget, updates the line model (card heights, prefix offsets) and refreshes the widget. Only the
visible lines are ever rendered (`render_line`), from a per-card cache keyed by the card's
fingerprint, so a burst of 10,000 calls costs a few cheap flushes, never 10,000 widgets. Asking the
scorer is throttled by its own cost (it rescans every call); the final flush always asks. History
is capped at `MAX_CARDS` cards (older ones are counted; the state and the record keep them).
"""

from __future__ import annotations

import bisect
import itertools
import time
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from workbench.core.events import CallsReset, Event
from workbench.core.runstate import RunState
from workbench.tui.widgets.cardtext import card_lines, collapsed_height

FLUSH_HZ = 30
MAX_CARDS = 5000
"""Cards the pane keeps; older ones are dropped from the pane (the state and the record keep them)."""
FOLD_BUDGET = 0.012
"""Seconds a flush may spend folding queued events (the rest wait for the next flush)."""
FOLD_SLICE = 256
"""Events folded between two looks at the clock."""
SCORE_SHARE = 10.0
"""After asking the scorer took t seconds, ask again no sooner than SCORE_SHARE * t later."""


class CallPane(ScrollView, can_focus=True):
    """Cards for a RunState; `trace` records when each card first entered the pane (benchmarks)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor(-1)", "previous call", show=False),
        Binding("down", "cursor(1)", "next call", show=False),
        Binding("home", "cursor_to(0)", "first call", show=False),
        Binding("end", "cursor_to(-1)", "last call", show=False),
        Binding("enter", "expand", "expand result"),
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {"callpane--hit", "callpane--refused", "callpane--cursor",
                                             "callpane--earlier"}
    cursor: reactive[int] = reactive(-1, always_update=True)
    """Position of the selected card in `keys` (-1: none); enter expands it."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.state: RunState | None = None
        self.trace: dict[str, float] | None = None
        self.on_flush: Callable[[RunState], None] | None = None
        self.clean: Callable[[str], str] = lambda s: s
        self.keys: list[str] = []
        """Cards in the pane, in arrival order (capped at MAX_CARDS)."""
        self.expanded: set[str] = set()
        self.dropped = 0
        self._pos: dict[str, int] = {}
        """Card key -> its arrival number in the pane (position + dropped)."""
        self._follow = True
        self._pending: deque[Event] = deque()
        self._dirty: dict[str, None] = {}
        self._heights: list[int] = []
        self._offsets: list[int] = [0]
        self._layout_stale = False
        self._hits: dict[int, list[str]] = {}
        self._conflicts: dict[int, list[str]] = {}
        self._moment_key: str | None = None
        self._cache: dict[str, tuple[tuple[object, ...], list[Strip]]] = {}
        self._scored_version = -1
        self._score_due = 0.0

    def on_mount(self) -> None:
        self.set_interval(1 / FLUSH_HZ, self.flush)

    # --- data in -------------------------------------------------------------------------------------

    def reset(self, state: RunState | None) -> None:
        """Start over with STATE (None: empty); its cards so far are drawn at the next flush."""
        self.state = state
        self._clear_lines(state)

    def _clear_lines(self, state: RunState | None) -> None:
        """Forget every drawn card; STATE's cards are drawn again at the next flush."""
        self.keys, self._heights, self._offsets, self._pos = [], [], [0], {}
        self.expanded.clear()
        self._pending.clear()
        self._cache.clear()
        self._hits, self._conflicts, self._moment_key = {}, {}, None
        self.dropped = 0
        self.cursor = -1
        self._scored_version, self._score_due = -1, 0.0
        self._dirty = dict.fromkeys(state.order) if state is not None else {}
        self._layout_stale, self._follow = True, True
        self.scroll_to(0, 0, animate=False, immediate=True)
        self.refresh()

    def set_paths(self, paths: Mapping[str, str]) -> None:
        """Show run paths by their labels, as the record does (the one redaction walker's labels)."""
        from workbench.runner.redact import Redactor

        self.clean = Redactor(paths).text
        self._cache.clear()

    def feed(self, event: Event) -> None:
        """Queue one event; it is folded into the state and drawn at the next flush."""
        if self.state is not None:
            self._pending.append(event)

    def feed_all(self, batch: list[Event]) -> None:
        """Queue many events (one HostEventsSeen's worth)."""
        if self.state is not None:
            self._pending.extend(batch)

    # --- flush: fold, lay out, score, refresh -----------------------------------------------------------

    def flush(self, *, complete: bool = False) -> None:
        """Fold queued events (within FOLD_BUDGET unless COMPLETE), update the line model and repaint.

        COMPLETE folds everything and always asks the scorer (a run's end, a recorded run)."""
        state = self.state
        if state is None:
            return
        deadline = time.perf_counter() + FOLD_BUDGET
        pending = self._pending
        while pending:  # at least one slice per flush, then while the budget lasts
            for _ in range(min(FOLD_SLICE, len(pending))):
                event = pending.popleft()
                key = state.consume(event)
                if isinstance(event, CallsReset):  # the record's calls: draw them from scratch
                    self._clear_lines(state)
                if key is not None:
                    self._dirty[key] = None
            if not complete and time.perf_counter() >= deadline:
                break
        changed = bool(self._dirty)
        if changed:
            self._take_dirty(state)
        if state.version != self._scored_version and (complete or time.perf_counter() >= self._score_due):
            self._rescore(state)
            changed = True
        if changed or self._layout_stale:
            self._relayout()
        if changed and self.on_flush is not None and self._scored_version == state.version:
            self.on_flush(state)

    def _take_dirty(self, state: RunState) -> None:
        """New cards join the line model (history capped); changed ones get their height again."""
        now = time.perf_counter()
        self._follow = self.is_vertical_scroll_end or self.max_scroll_y == 0
        for key in self._dirty:
            if key not in state.cards:
                continue
            at = self._pos.get(key)
            if at is None:
                self._pos[key] = self.dropped + len(self.keys)
                self.keys.append(key)
                self._heights.append(self._height(key))
                if self.trace is not None:
                    self.trace.setdefault(key, now)
            elif at >= self.dropped:  # still in the pane (a dropped card stays dropped)
                self._heights[at - self.dropped] = self._height(key)
        self._dirty = {}
        excess = len(self.keys) - MAX_CARDS
        if excess > 0:
            for key in self.keys[:excess]:
                self._cache.pop(key, None)
                self.expanded.discard(key)
            del self.keys[:excess]
            del self._heights[:excess]
            self.dropped += excess
            self.cursor = max(-1, self.cursor - excess)
        self._layout_stale = True

    def _rescore(self, state: RunState) -> None:
        """Ask the scorer (through the state) and move the READ marks and the moment rule."""
        t0 = time.perf_counter()
        result = state.score()
        cost = time.perf_counter() - t0
        self._scored_version = state.version
        self._score_due = time.perf_counter() + SCORE_SHARE * cost
        hits: dict[int, list[str]] = {}
        for key, at in result.reads.items():
            if at is not None:
                hits.setdefault(at, []).append(key)
        self._conflicts = {c.call: state.conflicts_at(c.call) for c in result.conflicts}
        moment_key = None
        if result.moment_at is not None and result.moment_at < len(state.order):
            moment_key = state.key_at(result.moment_at)
        old_moment, self._hits, self._moment_key = self._moment_key, hits, moment_key
        for moved in (old_moment, moment_key):  # the moment rule adds a line
            at = self._pos.get(moved, -1) if moved is not None else -1
            if moved is not None and at >= self.dropped:
                self._heights[at - self.dropped] = self._height(moved)

    def drop_marks(self) -> None:
        """An invalid run measured nothing: no READ, CONFLICT or moment rule stays on its cards."""
        old, self._hits, self._conflicts, self._moment_key = self._moment_key, {}, {}, None
        at = self._pos.get(old, -1) if old is not None else -1
        if old is not None and at >= self.dropped:
            self._heights[at - self.dropped] = self._height(old)
        self._relayout()

    def _height(self, key: str) -> int:
        assert self.state is not None
        card = self.state.cards[key]
        if key in self.expanded:
            return len(self._strips(key, self._width()))
        return collapsed_height(card, key == self._moment_key)

    def _relayout(self) -> None:
        """Prefix offsets of the cards, the virtual size, and follow the tail when it was in view."""
        self._layout_stale = False
        top = 1 if self.dropped else 0
        self._offsets = list(itertools.accumulate(self._heights, initial=top))
        self.virtual_size = Size(1, self._offsets[-1])  # lines are cut to the width: never a horizontal bar
        if self._follow:
            self.scroll_end(animate=False, immediate=True, x_axis=False, force=True)
        self.refresh()

    # --- drawing ------------------------------------------------------------------------------------------

    def _width(self) -> int:
        return max(20, self.scrollable_content_region.width)

    def _fingerprint(self, key: str) -> tuple[object, ...]:
        assert self.state is not None
        card = self.state.cards[key]
        return (card.version, tuple(self._hits.get(card.call.index, ())),
                tuple(self._conflicts.get(card.call.index, ())), key == self._moment_key,
                key in self.expanded, self._width())

    def _strips(self, key: str, width: int) -> list[Strip]:
        """The card's rendered lines at WIDTH, from the cache while its fingerprint holds."""
        assert self.state is not None
        fingerprint = self._fingerprint(key)
        cached = self._cache.get(key)
        if cached is not None and cached[0] == fingerprint:
            return cached[1]
        card = self.state.cards[key]
        hits = self._hits.get(card.call.index, [])
        texts = card_lines(card, hits, key == self._moment_key, self.state.moment, self.clean,
                           expanded=key in self.expanded, width=width,
                           conflicts=self._conflicts.get(card.call.index))
        background = Style()
        if hits:
            background = self.get_component_rich_style("callpane--hit", partial=True)
        elif RunState.failed_read(card.call):
            background = self.get_component_rich_style("callpane--refused", partial=True)
        console = self.app.console
        strips = []
        for text in texts:
            for line in text.wrap(console, width) if not text.no_wrap else [text]:
                line.truncate(width, overflow="ellipsis")
                strips.append(Strip(line.render(console), line.cell_len).apply_style(background))
        self._cache[key] = (fingerprint, strips)
        return strips

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        line = scroll_y + y
        width = self.size.width
        base = self.rich_style
        if self.dropped and line == 0:
            note = Text(f"… {self.dropped} earlier calls not shown (kept in the record)",
                        style=self.get_component_rich_style("callpane--earlier", partial=True))
            return Strip(note.render(self.app.console)).crop_extend(0, width, base).apply_style(base)
        pos = bisect.bisect_right(self._offsets, line) - 1
        if self.state is None or not 0 <= pos < len(self.keys) or line >= self._offsets[-1]:
            return Strip.blank(width, base)
        key = self.keys[pos]
        strips = self._strips(key, self._width())
        within = line - self._offsets[pos]
        if within >= len(strips):
            return Strip.blank(width, base)
        strip = strips[within]
        if pos == self.cursor and self.has_focus:
            strip = strip.apply_style(self.get_component_rich_style("callpane--cursor", partial=True))
        return strip.crop_extend(scroll_x, scroll_x + width, base).apply_style(base)

    # --- keys and mouse -------------------------------------------------------------------------------------

    def watch_cursor(self, cursor: int) -> None:
        if 0 <= cursor < len(self.keys) and len(self._offsets) > cursor + 1:
            top, bottom = self._offsets[cursor], self._offsets[cursor + 1]
            self.scroll_to_region(Region(0, top, 1, bottom - top), animate=False, immediate=True)
            self._follow = cursor == len(self.keys) - 1
        self.refresh()

    def action_cursor(self, step: int) -> None:
        if self.keys:
            self.cursor = min(len(self.keys) - 1, max(0, (self.cursor if self.cursor >= 0 else len(self.keys)) + step))

    def action_cursor_to(self, pos: int) -> None:
        if self.keys:
            self.cursor = pos if pos >= 0 else len(self.keys) - 1

    def action_expand(self) -> None:
        """Show the selected card's whole tool result (enter again: one line)."""
        if 0 <= self.cursor < len(self.keys):
            self.toggle(self.keys[self.cursor])

    def toggle(self, key: str) -> None:
        """Expand or collapse the card KEY."""
        at = self._pos.get(key, -1) - self.dropped
        if not 0 <= at < len(self.keys):
            return
        self.expanded.symmetric_difference_update({key})
        self._heights[at] = self._height(key)
        self._relayout()

    def on_click(self, event: events.Click) -> None:
        line = self.scroll_offset.y + event.y
        pos = bisect.bisect_right(self._offsets, line) - 1
        if 0 <= pos < len(self.keys) and line < self._offsets[-1]:
            self.cursor = pos
            self.toggle(self.keys[pos])

    def on_resize(self) -> None:
        self._cache.clear()
        self._layout_stale = True

