"""Post-install check: one run against the user's LIVE install (real HOME and config), with the guard.

The run is the live-install door of `runner/execute.py` (as `workbench postinstall`), streamed live
into the same call pane as a canary (`on_event`); the guard's result shows beside the verdict.
"""

from __future__ import annotations

from pathlib import Path

from rich.markup import escape
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Footer, Header, Input, Select, Static

from workbench.core.errors import InputError
from workbench.core.models import Case
from workbench.core.runstate import RunState
from workbench.runner.doors import PostinstallForm
from workbench.tui.data import WorkspaceView
from workbench.tui.fit import shown_path
from workbench.tui.jobs import PostinstallJob
from workbench.tui.keys import focus_after
from workbench.tui.messages import CaseRead, RunFailed, RunScored
from workbench.tui.screens.live import LiveRunScreen
from workbench.tui.widgets.callpane import CallPane
from workbench.tui.widgets.runform import (
    chosen_effort,
    chosen_script,
    effort_select,
    host_select,
    labelled,
    model_input,
    offer_efforts,
    offer_scripts,
    script_select,
)


class PostinstallScreen(LiveRunScreen):
    """Pick a host (and model), run the post-install canary on the live install, see calls and guard."""

    BINDINGS = [Binding("ctrl+r", "run", "run check")]
    FIELDS = {"host": "#pi-host", "model": "#pi-model", "effort": "#pi-effort", "script": "#pi-script",
              "case": "#pi-case"}

    def __init__(self, view: WorkspaceView, label: str = "") -> None:
        super().__init__()
        self.view = view
        """The workspace as the app read it (passed down; the screen never reaches into the app)."""
        self.label = label
        self.home = Path.home()
        """The live HOME the host runs with (tests: a fake one)."""
        self.script: object | None = None
        """A scripted model for the next runs (tests, bench): overrides the script field."""
        self.run_id = 0
        self.job: PostinstallJob | None = None

    def compose(self) -> ComposeResult:
        view = self.view
        yield Header()
        with Horizontal(classes="form"):
            yield host_select("pi-host")
            yield model_input("pi-model", view.ws.config.defaults.models)
            yield effort_select("pi-effort", ["sim"])
            yield script_select("pi-script", view.scripts)
        yield labelled(Input(placeholder="case file or id", id="pi-case"), "case")
        yield Static("runs against your REAL home and config; the guard reports any change outside the run. "
                     "ctrl+r runs.", id="canary-status")
        yield Static("", id="activity")
        yield CallPane(id="pane")
        yield Static("", id="verdict")
        yield Footer()

    def ready(self, action: str) -> bool:
        return not self.running if action == "run" else True

    @on(Select.Changed, "#pi-host")
    def host_picked(self) -> None:
        """The effort field offers what the picked host's CLI takes."""
        offer_efforts(self.query_one("#pi-effort", Select), [str(self.query_one("#pi-host", Select).value)])

    def scripts_changed(self) -> None:
        """The canaries folder changed (`WorkbenchApp.scripts_read`): its scripts are offered."""
        offer_scripts(self.query_one("#pi-script", Select), self.view.scripts)

    def on_mount(self) -> None:
        from workbench.runner.live import DEFAULT_CASE

        super().on_mount()
        self.title = "Post-install check"
        self.sub_title = self.label
        self.query_one("#pi-case", Input).value = str(self.view.ws.root / DEFAULT_CASE)
        self.query_one(CallPane).on_flush = self.show_verdict

    def action_run(self) -> None:
        """Start a check: the case is read in a worker (a file or an id: disk I/O), then `case_read` runs it."""
        if self.running:
            self.notify("a check is running", severity="warning")
            return
        self.run_id += 1
        self._verdict = ""
        self.query_one("#verdict", Static).update("")
        self.query_one("#canary-status", Static).update("reading the case …")
        self.begin()
        self.read_case_job(self.run_id, self.query_one("#pi-case", Input).value.strip())

    @work(thread=True, exclusive=True, group="postinstall-case", exit_on_error=False)
    def read_case_job(self, run_id: int, ref: str) -> None:
        from workbench.core.cases import find_case

        try:
            case = find_case(ref, self.view.ws.cases_dir)
        except (InputError, OSError) as exc:
            self.post_message(RunFailed(run_id, f"case: {exc}"))
            return
        self.post_message(CaseRead(run_id, case))

    @on(CaseRead)
    def case_read(self, message: CaseRead) -> None:
        if message.run_id != self.run_id or not self.running:
            return
        case = message.case
        self.job = PostinstallJob(self.run_id, self.view.ws, self.form(case))
        self.query_one(CallPane).reset(RunState(kind=case.kind, required=list(case.required), moment=case.moment))
        self.query_one("#canary-status", Static).update(f"running [b]{escape(case.id)}[/b] on the live install of "
                                                        f"{escape(self.job.form.host)} …")
        self.run_check(self.job)

    def form(self, case: Case) -> PostinstallForm:
        """The post-install door's form from the widgets (`runner.doors.postinstall_request` does the rest)."""
        return PostinstallForm(case=case, host=str(self.query_one("#pi-host", Select).value),
                               model=self.query_one("#pi-model", Input).value.strip() or None,
                               effort=chosen_effort(self.query_one("#pi-effort", Select)), home=self.home,
                               script=chosen_script(self.query_one("#pi-script", Select), self.script))

    @work(thread=True, exclusive=True, group="postinstall", exit_on_error=False)
    def run_check(self, job: PostinstallJob) -> None:
        job.run(self.post_message)

    @on(RunScored)
    def scored(self, message: RunScored) -> None:
        if message.run_id != self.run_id:
            return
        self.show_final(message.record)
        colour = "green" if "no change" in message.note else "red"
        self.query_one("#canary-status", Static).update(f"[{colour}]{escape(message.note)}[/{colour}] · recorded in "
                                                        f"{escape(shown_path(message.path, self.view.ws.root))}")

    @on(RunFailed)
    def failed(self, message: RunFailed) -> None:
        if message.run_id == self.run_id:
            self.end()
            self.query_one("#activity", Static).update("")
            self.query_one("#verdict", Static).update("")
            self.query_one("#canary-status", Static).update(f"[red]could not run: {escape(message.error)}[/red]")
            focus_after(self, self.FIELDS, "#pane", message.error)
