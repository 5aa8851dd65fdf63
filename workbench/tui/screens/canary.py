"""Canary: pick host, model, effort, script, arm and case (or type a prompt), run it and watch each call.

`c` on a row opens this screen on the row's draft (arm `@draft`: the wording being edited, applied
in the run's plugin copy only). The host runs in a thread worker that only posts messages; the
pane folds events into a RunState and redraws on a timer; the verdict line is the scorer's answer
for the calls so far. Cancel kills the host's process group; the record is written like any
canary (a cancelled one as invalid). The context line (case, arm, host, model, moment, required
files) stays after the run ends.
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
from workbench.tui.jobs import DRAFT, WORKTREE, CanaryJob, Draft
from workbench.tui.messages import RunCancelled, RunFailed, RunScored
from workbench.tui.screens.live import LiveRunScreen
from workbench.tui.widgets.callpane import CallPane
from workbench.tui.widgets.runform import (
    HOSTS,
    LabelledSelect,
    chosen_script,
    effort_input,
    host_select,
    labelled,
    model_input,
    script_select,
)

if TYPE_CHECKING:
    from workbench.tui.app import WorkbenchApp

__all__ = ["HOSTS", "CanaryScreen"]


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
        """A scripted model for the next runs (tests, bench): overrides the script field."""
        self.draft: Draft | None = None
        """The row draft `@draft` runs (set by `c` on a row)."""
        self.run_id = 0
        self.last_record: object | None = None

    def compose(self) -> ComposeResult:
        view = self.app.view
        yield Header()
        with Horizontal(id="canary-form"):
            yield host_select("host")
            yield model_input("model", view.ws.config.defaults.models)
            yield effort_input("effort")
            yield script_select("script", view.scripts)
        with Horizontal(classes="form"):
            yield labelled(LabelledSelect([("@worktree", WORKTREE)], value=WORKTREE, allow_blank=False, id="arm"), "arm")
            yield labelled(LabelledSelect([], prompt="case", id="case"), "case")
            yield labelled(Input(placeholder="typed prompt (optional: replaces the case's)", id="prompt"), "prompt")
        yield Static("pick a case and press ctrl+r, or press c on a row", id="context")
        yield Static("", id="canary-status")
        yield Static("", id="activity")
        yield CallPane(id="pane")
        yield Static("", id="verdict")
        yield Footer()

    def on_mount(self) -> None:
        super().on_mount()
        self.title = "Canary"
        self.sub_title = self.app.workspace_label
        self.refresh_choices()
        self.query_one(CallPane).on_flush = self.show_verdict

    def on_screen_resume(self) -> None:
        if not self.running:
            self.refresh_choices()

    def arms_changed(self) -> None:
        """The workspace's arms were read again (`WorkbenchApp.arms_known`)."""
        if not self.running:
            self.refresh_choices()

    def ready(self, action: str) -> bool:
        return self.running if action == "cancel" else not self.running if action == "run" else True

    @property
    def busy(self) -> bool:
        return self.running

    def stop_work(self) -> None:
        if self.job is not None and self.running:
            self.job.cancel()

    def refresh_choices(self) -> None:
        view = self.app.view
        cases = self.query_one("#case", Select)
        chosen = cases.value
        cases.set_options([(c.id, c.id) for c in view.cases])
        if chosen not in (Select.NULL, None) and any(c.id == chosen for c in view.cases):
            cases.value = chosen
        arm = self.query_one("#arm", Select)
        before = arm.value
        draft = [(f"draft of {self.draft.row_id}", DRAFT)] if self.draft is not None else []
        options = [("@worktree", WORKTREE), *draft] + [(a.name, a.name) for a in view.arms() if a.sha]
        arm.set_options(options)
        arm.value = before if any(v == before for _, v in options) else WORKTREE

    def case(self) -> Case | None:
        chosen = self.query_one("#case", Select).value
        case = next((c for c in self.app.view.cases if c.id == chosen), None)
        prompt = self.query_one("#prompt", Input).value.strip()
        if case is not None and prompt:
            case = case.model_copy(update={"id": "ad-hoc", "prompt": prompt})
        return case

    def launch(self, case: Case, draft: Draft | None = None) -> None:
        """Select CASE and run it with the current form on DRAFT (the rows screen's `c`; None: the
        row's wording as in the file, @worktree)."""
        self.draft = draft
        self.refresh_choices()
        self.query_one("#arm", Select).value = DRAFT if draft is not None else WORKTREE
        self.query_one("#case", Select).value = case.id
        self.query_one("#prompt", Input).value = ""
        self.action_run()

    def action_run(self) -> None:
        case = self.case()
        if case is None:
            self.status("[yellow]case: pick a case first[/yellow]")
            return
        if self.running:
            self.notify("a canary is running: x cancels it", severity="warning")
            return
        arm_name = str(self.query_one("#arm", Select).value)
        host = str(self.query_one("#host", Select).value)
        model = self.query_one("#model", Input).value.strip() or None
        script = chosen_script(self.query_one("#script", Select), self.script)
        self.run_id += 1
        self.job = CanaryJob(self.run_id, self.app.view.ws, case, host=host, model=model, arm=arm_name,
                             draft=self.draft if arm_name == DRAFT else None,
                             effort=self.query_one("#effort", Input).value.strip() or None, script=script)
        state = RunState(kind=case.kind, required=list(case.required), moment=case.moment)
        self.query_one(CallPane).reset(state)
        self.query_one("#verdict", Static).update("")
        self._verdict = ""
        arm_label = f"draft of {self.draft.row_id} (unsaved)" if arm_name == DRAFT and self.draft else arm_name
        who = "scripted" if script is not None else model or ("sim policy" if host == "sim" else "no model")
        self.query_one("#context", Static).update(
            f"[b]{escape(case.id)}[/b] ({case.kind}) · arm {escape(arm_label)} · {escape(host)} · {escape(who)} · "
            f"moment {escape(case.moment)} · required {escape(', '.join(case.required))}\n"
            f"[dim]{escape(case.prompt[:150])}[/dim]")
        self.status("")
        self.begin()
        self.run_job(self.job)

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
            self.end()
            self.query_one("#activity", Static).update("")
            self.status(f"[red]could not run: {escape(message.error)}[/red]")
