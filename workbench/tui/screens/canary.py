"""Canary: pick host, model, arm and case (or type a prompt), run it and watch each call against the moment.

The host runs in a thread worker that only posts messages; the pane folds events into a RunState
and redraws on a timer; the verdict line is the scorer's answer for the calls so far. Cancel kills
the host's process group; the record is written like any canary (a cancelled one as invalid).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.markup import escape
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Footer, Header, Input, Select, Static

from workbench.core.models import Case
from workbench.core.runstate import RunState
from workbench.tui.jobs import WORKTREE, CanaryJob
from workbench.tui.messages import RunCancelled, RunFailed, RunScored
from workbench.tui.screens.live import LiveRunScreen
from workbench.tui.widgets.callpane import CallPane

if TYPE_CHECKING:
    from workbench.tui.app import WorkbenchApp

HOSTS = ("sim", "claude", "codex", "opencode", "gemini", "grok")


class CanaryScreen(LiveRunScreen):
    """The canary form, the live call pane and the forming verdict."""

    BINDINGS = [
        Binding("ctrl+r", "run", "run canary"),
        Binding("x", "cancel", "cancel run"),
    ]

    app: WorkbenchApp

    def __init__(self) -> None:
        super().__init__()
        self.job: CanaryJob | None = None
        self.script: object | None = None
        """A scripted model for the next runs (tests); None: the host's own model or policy."""
        self.run_id = 0
        self.last_record: object | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="canary-form"):
            yield Select([(h, h) for h in HOSTS], value="sim", allow_blank=False, id="host")
            yield Input(placeholder="model (real hosts)", id="model")
            yield Select([("@worktree", WORKTREE)], value=WORKTREE, allow_blank=False, id="arm")
            yield Select([], prompt="case", id="case")
        yield Input(placeholder="typed prompt (optional: replaces the case's prompt)", id="prompt")
        yield Static("pick a case and press ctrl+r, or press c on a row", id="canary-status")
        yield CallPane(id="pane")
        yield Static("", id="verdict")
        yield Footer()

    def on_mount(self) -> None:
        self.title = "Canary"
        self.sub_title = self.app.workspace_label
        self.refresh_choices()
        self.query_one(CallPane).on_flush = self.show_verdict

    def refresh_choices(self) -> None:
        view = self.app.view
        cases = self.query_one("#case", Select)
        cases.set_options([(f"{c.id} ({c.kind}, {c.target})", c.id) for c in view.cases])
        arms = [("@worktree", WORKTREE)] + [(a.name, a.name) for a in view.arms() if a.sha]
        self.query_one("#arm", Select).set_options(arms)
        self.query_one("#arm", Select).value = WORKTREE

    def case(self) -> Case | None:
        chosen = self.query_one("#case", Select).value
        case = next((c for c in self.app.view.cases if c.id == chosen), None)
        prompt = self.query_one("#prompt", Input).value.strip()
        if case is not None and prompt:
            case = case.model_copy(update={"id": "ad-hoc", "prompt": prompt})
        return case

    def launch(self, case: Case) -> None:
        """Select CASE and run it with the current form (the rows screen's `c`)."""
        self.query_one("#case", Select).value = case.id
        self.query_one("#prompt", Input).value = ""
        self.action_run()

    def action_run(self) -> None:
        case = self.case()
        if case is None:
            self.notify("pick a case first", severity="warning")
            return
        if self.job is not None and not self.job.cancelled.is_set() and self.running:
            self.notify("a canary is running: x cancels it", severity="warning")
            return
        arm_name = str(self.query_one("#arm", Select).value)
        self.run_id += 1
        self.job = CanaryJob(self.run_id, self.app.view.ws, case, host=str(self.query_one("#host", Select).value),
                             model=self.query_one("#model", Input).value.strip() or None, arm=arm_name,
                             script=self.script)
        state = RunState(kind=case.kind, required=list(case.required), moment=case.moment)
        self.query_one(CallPane).reset(state)
        self.query_one("#verdict", Static).update("")
        self._verdict = ""
        self.status(f"[b]{escape(case.id)}[/b] on {self.job.host} · arm {escape(arm_name)} · moment "
                    f"{escape(case.moment)} · required {escape(', '.join(case.required))}\n"
                    f"[dim]{escape(case.prompt[:150])}[/dim]")
        self.running = True
        self.run_job(self.job)

    running = False

    def status(self, text: str) -> None:
        self.query_one("#canary-status", Static).update(text)

    @work(thread=True, exclusive=True, group="canary", exit_on_error=False)
    def run_job(self, job: CanaryJob) -> None:
        job.run(self.post_message)

    def action_cancel(self) -> None:
        if self.job is None or not self.running:
            self.notify("no canary is running")
            return
        self.status("cancelling: stopping the host's process group …")
        self.job.cancel()  # the runner's read loop sees it and stops the group

    @on(RunScored)
    def scored(self, message: RunScored) -> None:
        if message.run_id != self.run_id:
            return
        self.running = False
        record = message.record
        self.last_record = record
        self.show_final(record)
        self.status(f"recorded in {escape(message.path)}" + (f" · {escape(message.note)}" if message.note else ""))

    @on(RunCancelled)
    def cancelled(self, message: RunCancelled) -> None:
        if message.run_id == self.run_id:
            self.notify("cancelled: the host's process group was stopped")

    @on(RunFailed)
    def failed(self, message: RunFailed) -> None:
        if message.run_id == self.run_id:
            self.running = False
            self.status(f"[red]could not run: {escape(message.error)}[/red]")
