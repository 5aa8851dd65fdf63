"""The live call pane: one card per call, keyed by call id, redrawn on a timer, history capped.

Events are folded into a pure `RunState` as they arrive (cheap); a timer flushes the changed cards
to the screen at most `FLUSH_HZ` times a second, so a burst of thousands of calls costs a few
redraws. A card is re-rendered only when its fingerprint (version, marks, expanded) changed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from rich.markup import escape
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.reactive import reactive
from textual.widgets import Static

from workbench.core.events import Event
from workbench.core.runstate import Card, RunState

FLUSH_HZ = 30
MAX_CARDS = 300
"""Cards kept mounted; older ones are dropped from the pane (the state and the record keep them)."""


def trim(text: str, width: int) -> str:
    """One line of at most WIDTH characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[:width - 1] + "…"


class CallCard(Static, can_focus=True):
    """One call: index, tool, target, status, marks; the tool result, expandable with enter."""

    BINDINGS = [Binding("enter", "expand", "expand result", show=False)]
    expanded: reactive[bool] = reactive(False)

    def __init__(self, key: str, **kwargs: Any) -> None:
        super().__init__("", **kwargs)
        self.key = key
        self.fingerprint: tuple[object, ...] = ()
        self.body: tuple[Card, list[str], bool, str, Callable[[str], str]] | None = None

    def show(self, card: Card, hits: list[str], moment: bool, moment_spec: str, clean: Callable[[str], str]) -> bool:
        """Set what the card draws; False when nothing changed (no redraw)."""
        fingerprint = (card.version, tuple(hits), moment, self.expanded)
        if fingerprint == self.fingerprint:
            return False
        self.fingerprint = fingerprint
        self.body = (card, hits, moment, moment_spec, clean)
        self.set_class(bool(hits), "-hit")
        self.set_class(moment, "-moment")
        self.set_class(RunState.failed_read(card.call), "-refused")
        self.update(self.render_card())
        return True

    def render_card(self) -> Text:
        assert self.body is not None
        card, hits, moment, spec, clean = self.body
        call = card.call
        target = clean(call.path or call.command or call.skill or "")
        status = call.status if card.finished else "…"
        colour = {"ok": "green", "error": "red", "denied": "magenta"}.get(status, "dim")
        marks = []
        if hits:
            marks.append(f"[b reverse green] READ {escape(', '.join(hits))} [/]")
        if RunState.failed_read(call):
            word = "REFUSED" if call.status == "denied" or call.unreadable else "FAILED"
            marks.append(f"[b reverse red] {word} [/]")
        line = (f"[b]#{call.index:<3}[/b] {escape(call.tool):<14} {escape(trim(target, 60)):<60} "
                f"[{colour}]{status:<6}[/] {' '.join(marks)}")
        if call.result:
            result = clean(call.result)
            shown = result if self.expanded else trim(result, 100)
            more = "" if self.expanded or len(result) <= 100 else "  [dim](enter: more)[/dim]"
            line += f"\n      [dim]{escape(shown)}[/dim]{more}"
        if moment:
            line += f"\n[b yellow]{'━' * 30} moment ({escape(spec)}) {'━' * 30}[/]"
        return Text.from_markup(line)

    def action_expand(self) -> None:
        self.expanded = not self.expanded

    def on_click(self) -> None:
        self.expanded = not self.expanded

    def watch_expanded(self) -> None:
        if self.body is not None:
            self.fingerprint = ()
            self.update(self.render_card())


class CallPane(VerticalScroll):
    """Cards for a RunState, flushed on a timer; `trace` records when each card was first drawn."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.state: RunState | None = None
        self.dirty: dict[str, None] = {}
        self.widgets: dict[str, CallCard] = {}
        self.dropped = 0
        self.clean: Callable[[str], str] = lambda s: s
        self.trace: dict[str, float] | None = None
        self.on_flush: Callable[[RunState], None] | None = None
        self._marked: set[str] = set()
        self._seen_version = -1

    def compose(self) -> ComposeResult:
        yield Static("", id="earlier", classes="dim")

    def on_mount(self) -> None:
        self.set_interval(1 / FLUSH_HZ, self.flush)

    def reset(self, state: RunState | None) -> None:
        """Start over with STATE (None: empty)."""
        self.state = state
        self.dirty.clear()
        for widget in self.widgets.values():
            widget.remove()
        self.widgets.clear()
        self.dropped = 0
        self._marked.clear()
        self.query_one("#earlier", Static).update("")
        if state is not None:
            self.dirty.update(dict.fromkeys(state.order))

    def set_paths(self, paths: Mapping[str, str]) -> None:
        """Show run paths by their labels."""
        pairs = sorted(((k, v) for k, v in paths.items() if k), key=lambda kv: -len(kv[0]))

        def clean(text: str) -> str:
            for path, label in pairs:
                text = text.replace(path, label)
            return text

        self.clean = clean

    def feed(self, event: Event) -> None:
        """Fold one event into the state; the card is drawn at the next flush."""
        if self.state is None:
            return
        key = self.state.consume(event)
        if key is not None:
            self.dirty[key] = None

    def flush(self) -> None:
        """Draw the cards that changed since the last flush (and the cards whose marks moved)."""
        state = self.state
        if state is None or (not self.dirty and state._version == self._seen_version):
            return
        self._seen_version = state._version
        result = state.score()
        hits: dict[int, list[str]] = {}
        for key, at in result.reads.items():
            if at is not None:
                hits.setdefault(at, []).append(key)
        moment_key = None
        if result.moment_at is not None and result.moment_at < len(state.order):
            moment_key = state._by_index.get(result.moment_at)
        marked = {state._by_index[i] for i in hits if i in state._by_index} | ({moment_key} if moment_key else set())
        keys = list(self.dirty) + [k for k in marked ^ self._marked if k not in self.dirty]
        self._marked = marked
        self.dirty.clear()
        follow = self.max_scroll_y - self.scroll_y < 3
        new: list[CallCard] = []
        now = time.perf_counter()
        fresh = [k for k in keys if k not in self.widgets]
        skip = set(fresh[:-MAX_CARDS]) if len(fresh) > MAX_CARDS else set()
        if skip:  # a burst larger than the pane: count them, never mount them
            self.dropped += len(skip)
            if self.trace is not None:
                for key in skip:
                    self.trace.setdefault(key, now)
        for key in keys:
            if key in skip:
                continue
            card = state.cards.get(key)
            if card is None:
                continue
            widget = self.widgets.get(key)
            if widget is None:
                widget = self.widgets[key] = CallCard(key, classes="call")
                new.append(widget)
                if self.trace is not None:
                    self.trace.setdefault(key, now)
            widget.show(card, hits.get(card.call.index, []), key == moment_key, state.moment, self.clean)
        if new:
            self.mount_all(new)
        excess = len(self.widgets) - MAX_CARDS
        if excess > 0:
            for key in list(self.widgets)[:excess]:
                self.widgets.pop(key).remove()
            self.dropped += excess
        if self.dropped:
            self.query_one("#earlier", Static).update(f"… {self.dropped} earlier calls not shown (kept in the record)")
        if follow and new:
            self.scroll_end(animate=False)
        if self.on_flush is not None:
            self.on_flush(state)
