"""What every screen that watches one live run shares: the call pane fed by the run's messages, the
verdict line forming as calls arrive, and the final verdict. Messages of an older run are ignored."""

from __future__ import annotations

from rich.markup import escape
from textual import on
from textual.screen import Screen
from textual.widgets import Static

from workbench.core.models import RunRecord
from workbench.core.runstate import RunState
from workbench.tui.messages import HostEventsSeen, RunPathsKnown, WorkerFailed
from workbench.tui.widgets.callpane import CallPane
from workbench.tui.workers import ForwardsWorkerErrors


class LiveRunScreen(ForwardsWorkerErrors, Screen[None]):
    """A screen with a CallPane and a `#verdict` Static showing the run numbered `run_id`."""

    run_id = 0
    _verdict = ""

    @on(RunPathsKnown)
    def paths_known(self, message: RunPathsKnown) -> None:
        if message.run_id == self.run_id:
            self.query_one(CallPane).set_paths(message.paths)

    @on(HostEventsSeen)
    def events_seen(self, message: HostEventsSeen) -> None:
        if message.run_id == self.run_id:
            self.query_one(CallPane).feed_all(message.take())

    @on(WorkerFailed)
    def worker_error(self, message: WorkerFailed) -> None:
        """The run's worker raised: the run is over; its status line says why."""
        self.running = False
        self.query_one("#canary-status", Static).update(f"[red]could not run: {escape(message.error)}[/red]")

    running = False

    def show_verdict(self, state: RunState) -> None:
        """The forming verdict (called by the pane); a Static update re-lays out the screen: only on change."""
        line = f"[b]{escape(state.verdict_line(final=False))}[/b]"
        if line != self._verdict:
            self._verdict = line
            self.query_one("#verdict", Static).update(line)

    def show_final(self, record: RunRecord) -> None:
        """Flush the pane and show the scorer's final verdict line with the record's overall verdict."""
        pane = self.query_one(CallPane)
        pane.flush(complete=True)
        line = pane.state.verdict_line(final=True) if pane.state is not None else ""
        gate = "" if record.valid else f" [red](INVALID: {escape(record.invalid_reason or '')})[/red]"
        self._verdict = f"[b]{escape(line)}[/b]   verdict: [reverse b] {record.overall} [/]{gate}"
        self.query_one("#verdict", Static).update(self._verdict)
