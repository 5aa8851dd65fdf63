"""What every screen that watches one live run shares: the call pane fed by the run's messages, an
activity line (spinner, elapsed time, time since the last event, the model's latest text), the
verdict line forming as calls arrive, and the final verdict with every invalid run's reason.
Messages of an older run are ignored."""

from __future__ import annotations

import time
from typing import ClassVar

from rich.markup import escape
from textual import on
from textual.screen import Screen
from textual.widgets import Static

from workbench.core.models import RunRecord
from workbench.core.runstate import RunState
from workbench.tui.fields import invalid_reason
from workbench.tui.keys import ActsNow, focus_after
from workbench.tui.messages import HostEventsSeen, RunPathsKnown, WorkerFailed
from workbench.tui.widgets.callpane import CallPane
from workbench.tui.workers import ForwardsWorkerErrors

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


def last_text(state: RunState | None, width: int = 160) -> str:
    """The model's latest text, on one line."""
    if state is None or not state.texts:
        return ""
    return " ".join(state.texts[-1].split())[-width:]


class LiveRunScreen(ActsNow, ForwardsWorkerErrors, Screen[None]):
    """A screen with a CallPane, an `#activity` line and a `#verdict` Static showing run `run_id`."""

    FIELDS: ClassVar[dict[str, str]] = {}
    """Form field name (as errors name it) -> its widget; the first is where a failed run's keys go."""
    run_id = 0
    _verdict = ""
    running = False
    started = 0.0
    last_event = 0.0

    @property
    def busy(self) -> bool:
        return self.running

    def stop_work(self) -> None:
        """Stop the run (quit): subclasses cancel their job."""

    def on_mount(self) -> None:
        self.set_interval(0.5, self.tick)

    def begin(self) -> None:
        """A run started: spinner and clocks from now; keys leave the form (x cancels, not types)."""
        self.running = True
        self.started = self.last_event = time.monotonic()
        self.set_focus(None)
        self.refresh_bindings()
        self.tick()

    def end(self) -> None:
        self.running = False
        self.refresh_bindings()

    def tick(self) -> None:
        if not self.running:
            return
        now = time.monotonic()
        spin = SPINNER[int(now * 4) % len(SPINNER)]
        text = last_text(self.query_one(CallPane).state, 100)
        self.query_one("#activity", Static).update(
            f"[b]{spin}[/b] running {now - self.started:.0f}s · last event {now - self.last_event:.0f}s ago"
            + (f" · [i]{escape(text)}[/i]" if text else ""))

    @on(RunPathsKnown)
    def paths_known(self, message: RunPathsKnown) -> None:
        if message.run_id == self.run_id:
            self.query_one(CallPane).set_paths(message.paths)

    @on(HostEventsSeen)
    def events_seen(self, message: HostEventsSeen) -> None:
        if message.run_id == self.run_id:
            self.last_event = time.monotonic()
            self.query_one(CallPane).feed_all(message.take())

    @on(WorkerFailed)
    def worker_error(self, message: WorkerFailed) -> None:
        """The run's worker raised: the run is over; its status line says why, no verdict forms."""
        self.end()
        self.query_one("#activity", Static).update("")
        self.query_one("#verdict", Static).update("")
        self.query_one("#canary-status", Static).update(f"[red]could not run: {escape(message.error)}[/red]")
        focus_after(self, self.FIELDS, "#pane", message.error)

    def show_verdict(self, state: RunState) -> None:
        """The forming verdict (called by the pane); a Static update re-lays out the screen: only on change.
        Once the run ended the final line stays."""
        if not self.running:
            return
        line = f"[b]{escape(state.verdict_line(final=False))}[/b]"
        if line != self._verdict:
            self._verdict = line
            self.query_one("#verdict", Static).update(line)

    def show_final(self, record: RunRecord) -> None:
        """Flush the pane; the final line is the record's: an invalid run says why (never a verdict of
        its calls), a valid one the scorer's line ending on the record's verdict. The model's text
        and, for a run whose moment is its end, the `end` rule show on the activity line."""
        self.end()
        pane = self.query_one(CallPane)
        pane.flush(complete=True)
        pane.focus()  # up/down walk the calls at once, no Tab needed
        state = pane.state
        if not record.valid:
            pane.drop_marks()
            self._verdict = f"[b red]INVALID: no verdict[/b red] · {escape(invalid_reason(record))}"
        else:
            line = state.verdict_line(final=True) if state is not None else ""
            head = line.rsplit(" → ", 1)[0]
            self._verdict = f"[b]{escape(head)} →[/b] verdict: [reverse b] {record.overall} [/]"
        self.query_one("#verdict", Static).update(self._verdict)
        text = last_text(state)
        calls = bool(state is not None and state.order)
        at_end = (record.moment or "") == "end"
        if not calls:
            ended = "── end of run: no tool call" + (" · the moment (end) came" if at_end else "") + " ──"
        elif at_end and record.valid:
            ended = "── end of run: the moment (end) came ──"
        elif record.valid and record.moment_at is None:
            ended = f"── end of run: the moment ({escape(record.moment or 'edit')}) never came ──"
        else:
            ended = ""
        self.query_one("#activity", Static).update(
            " ".join(p for p in (f"[dim]{ended}[/dim]" if ended else "",
                                 f"model: [i]{escape(text)}[/i]" if text else "") if p))
