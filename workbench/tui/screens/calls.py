"""A recorded run's call list in the same call pane, with the record's stored verdict beside the scorer's."""

from __future__ import annotations

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from workbench.core.models import RunRecord
from workbench.core.runstate import RunState
from workbench.tui.widgets.callpane import CallPane


class CallsScreen(Screen[None]):
    """One record's calls (kept up to and including the moment), marked as in a live canary."""

    BINDINGS = [Binding("escape", "app.pop_screen", "back")]

    def __init__(self, record: RunRecord) -> None:
        super().__init__()
        self.record = record

    def compose(self) -> ComposeResult:
        r = self.record
        yield Header()
        yield Static(f"[b]{escape(r.case_id or r.target)}[/b] · {escape(r.host)} · arm {escape(r.arm or '-')} · "
                     f"run {r.run} · stored verdict [reverse b] {r.overall} [/]"
                     + ("" if r.valid else f" [red]INVALID: {escape(r.invalid_reason or '')}[/red]")
                     + f"\n[dim]{r.tool_calls if r.tool_calls is not None else '?'} calls in the run; "
                       "the record keeps those up to the moment[/dim]", id="canary-status")
        yield CallPane(id="pane")
        yield Static("", id="verdict")
        yield Footer()

    def on_mount(self) -> None:
        r = self.record
        self.title = "Run calls"
        state = RunState.from_calls(r.calls, kind=r.kind, required=list(r.required), moment=r.moment or "edit")
        pane = self.query_one(CallPane)
        pane.reset(state)
        pane.flush(complete=True)
        self.query_one("#verdict", Static).update(f"[b]{escape(state.verdict_line(final=True))}[/b] (rescored now)")
