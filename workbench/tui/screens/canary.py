"""Canary: pick host, model, effort, script, arm and case (or type a prompt), run it and watch each call.

`c` on a row opens this screen on the row's draft (arm `@draft`: the wording being edited, applied
in the run's plugin copy only). The host runs in a thread worker that only posts messages; the
pane folds events into a RunState and redraws on a timer; the verdict line is the scorer's answer
for the calls so far. Cancel kills the host's process group; the record is written like any
canary (a cancelled one as invalid). The context line (case, arm, host, model, moment, required
files) stays after the run ends.
"""

from __future__ import annotations

from rich.markup import escape
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Footer, Header, Input, Select, Static

from workbench.core.arms import DRAFT, WORKTREE
from workbench.core.models import Case
from workbench.core.runstate import RunState
from workbench.runner.doors import CanaryForm, Draft
from workbench.tui.data import ScriptFile, WorkspaceView
from workbench.tui.fit import shown_path
from workbench.tui.jobs import CanaryJob
from workbench.tui.keys import focus_after
from workbench.tui.messages import RunCancelled, RunFailed, RunScored
from workbench.tui.screens.live import LiveRunScreen
from workbench.tui.widgets.callpane import CallPane
from workbench.tui.widgets.runform import (
    LabelledSelect,
    chosen_effort,
    chosen_script,
    effort_select,
    host_select,
    labelled,
    model_input,
    offer_efforts,
    offer_scripts,
    picked_script,
    script_select,
)

__all__ = ["SCRIPT_CASE", "CanaryScreen"]

SCRIPT_CASE = "@script"
"""The case field's value for the case the picked script carries (a `canaries/*.json` scenario)."""


class CanaryScreen(LiveRunScreen):
    """The canary form, the live call pane and the forming verdict."""

    BINDINGS = [
        Binding("ctrl+r", "run", "run canary"),
        Binding("x", "cancel", "cancel run"),
    ]

    FIELDS = {"host": "#host", "model": "#model", "effort": "#effort", "script": "#script", "arm": "#arm",
              "case": "#case", "prompt": "#prompt"}

    def __init__(self, view: WorkspaceView, label: str = "") -> None:
        super().__init__()
        self.view = view
        """The workspace as the app read it (passed down; the screen never reaches into the app)."""
        self.label = label
        self.job: CanaryJob | None = None
        self.script: object | None = None
        """A scripted model for the next runs (tests, bench): overrides the script field."""
        self.draft: Draft | None = None
        """The row draft `@draft` runs (set by `c` on a row)."""
        self.run_id = 0
        self.last_record: object | None = None
        self.hint = ""
        """The picked script's note on the case it runs (kept on the status line after the run)."""
        self.before_script: object = Select.NULL
        """The case picked before a script with its own case took the field (given back when it goes)."""
        self.arms_at_launch: set[str] = set()
        """The draft's row's arms when the run started: a new one means the draft was saved since."""

    def compose(self) -> ComposeResult:
        view = self.view
        yield Header()
        with Horizontal(id="canary-form"):
            yield host_select("host")
            yield model_input("model", view.ws.config.defaults.models)
            yield effort_select("effort", ["sim"])
            yield script_select("script", view.scripts)
        with Horizontal(classes="form"):
            yield labelled(LabelledSelect([("@worktree", WORKTREE)], value=WORKTREE, allow_blank=False, id="arm"), "arm")
            yield labelled(LabelledSelect([], prompt="case", id="case"), "case")
            yield labelled(Input(placeholder="replaces the case's", id="prompt"), "prompt (optional)")
        yield Static("pick a case and press ctrl+r, or press c on a row", id="context")
        yield Static("", id="canary-status")
        yield Static("", id="activity")
        yield CallPane(id="pane")
        yield Static("", id="verdict")
        yield Footer()

    def on_mount(self) -> None:
        super().on_mount()
        self.title = "Canary"
        self.sub_title = self.label
        self.refresh_choices()
        self.query_one(CallPane).on_flush = self.show_verdict

    def on_screen_resume(self) -> None:
        if not self.running:
            self.refresh_choices()

    def arms_changed(self) -> None:
        """The workspace's arms were read again (`WorkbenchApp.arms_known`): a draft saved since is no
        longer called unsaved on the context line."""
        if not self.running:
            self.refresh_choices()
        if self.draft is not None and {a.name for a in self.view.arms_of(self.draft.row_id)} - self.arms_at_launch:
            context = self.query_one("#context", Static)
            context.update(str(context.content).replace(f"draft of {self.draft.row_id} (unsaved)",
                                                        f"draft of {self.draft.row_id} (saved since as an arm)"))

    def ready(self, action: str) -> bool:
        return self.running if action == "cancel" else not self.running if action == "run" else True

    @property
    def busy(self) -> bool:
        return self.running

    def stop_work(self) -> None:
        if self.job is not None and self.running:
            self.job.cancel()

    def view_changed(self) -> None:
        """The workspace was read again (`WorkbenchApp.workspace_read`): its cases and scripts are offered."""
        if not self.running:
            self.scripts_changed()

    def scripts_changed(self) -> None:
        """The canaries folder changed (`WorkbenchApp.scripts_read`): its scripts are offered, and a
        picked script's own case is read again."""
        offer_scripts(self.query_one("#script", Select), self.view.scripts)
        self.refresh_cases()

    @on(Select.Changed, "#host")
    def host_picked(self) -> None:
        """The effort field offers what the picked host's CLI takes."""
        offer_efforts(self.query_one("#effort", Select), [str(self.query_one("#host", Select).value)])

    @on(Select.Changed, "#script")
    def script_picked(self) -> None:
        """A script that carries its own case (a canary file) runs it: the case field picks it."""
        scenario = self.scenario()
        if scenario is not None and self.query_one("#case", Select).value != SCRIPT_CASE:
            self.refresh_cases(pick=True)
        else:
            self.refresh_cases()

    def scenario(self) -> ScriptFile | None:
        """The picked script when it carries its own case."""
        picked = picked_script(self.query_one("#script", Select), self.view.scripts)
        return picked if picked is not None and picked.case is not None else None

    def refresh_cases(self, pick: bool = False) -> None:
        """The case field's choices: the picked script's own case first (PICK: select it), then the
        workspace's cases; what is chosen stays chosen while it is offered."""
        cases = self.query_one("#case", Select)
        chosen = cases.value
        scenario = self.scenario()
        own = [(f"{scenario.name} (the script's own case)", SCRIPT_CASE)] if scenario is not None else []
        options = own + [(c.id, c.id) for c in self.view.cases]
        cases.set_options(options)
        if pick and own:
            self.before_script = chosen if chosen != SCRIPT_CASE else self.before_script
            cases.value = SCRIPT_CASE
        elif any(v == chosen for _, v in options):
            cases.value = chosen
        elif chosen == SCRIPT_CASE and any(v == self.before_script for _, v in options):
            cases.value = self.before_script

    def refresh_choices(self) -> None:
        view = self.view
        self.refresh_cases()
        arm = self.query_one("#arm", Select)
        before = arm.value
        draft = [(f"draft of {self.draft.row_id}", DRAFT)] if self.draft is not None else []
        options = [("@worktree", WORKTREE), *draft] + [(a.name, a.name) for a in view.arms() if a.sha]
        arm.set_options(options)
        arm.value = before if any(v == before for _, v in options) else WORKTREE

    def case(self) -> Case | None:
        chosen = self.query_one("#case", Select).value
        scenario = self.scenario()
        if chosen == SCRIPT_CASE and scenario is not None:
            case = scenario.case
        else:
            case = next((c for c in self.view.cases if c.id == chosen), None)
        prompt = self.query_one("#prompt", Input).value.strip()
        if case is not None and prompt:
            case = case.model_copy(update={"id": "ad-hoc", "prompt": prompt})
        return case

    def form(self, case: Case) -> CanaryForm:
        """The canary door's form from the widgets (`runner.doors.canary_request` does the rest)."""
        arm_name = str(self.query_one("#arm", Select).value)
        return CanaryForm(case=case, host=str(self.query_one("#host", Select).value),
                          model=self.query_one("#model", Input).value.strip() or None,
                          effort=chosen_effort(self.query_one("#effort", Select)),
                          script=chosen_script(self.query_one("#script", Select), self.script), arm=arm_name,
                          draft=self.draft if arm_name == DRAFT else None)

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
            focus_after(self, self.FIELDS, "#case", "case: none")
            return
        if self.running:
            self.notify("a canary is running: x cancels it", severity="warning")
            return
        form = self.form(case)
        self.run_id += 1
        self.job = CanaryJob(self.run_id, self.view.ws, form)
        arm_name, host, model, script = form.arm, form.host, form.model, form.script
        state = RunState(kind=case.kind, required=list(case.required), moment=case.moment)
        self.query_one(CallPane).reset(state)
        self.query_one("#verdict", Static).update("")
        self._verdict = ""
        arm_label = f"draft of {self.draft.row_id} (unsaved)" if arm_name == DRAFT and self.draft else arm_name
        self.arms_at_launch = {a.name for a in self.view.arms_of(self.draft.row_id)} if self.draft else set()
        who = "scripted" if script is not None else model or ("sim policy" if host == "sim" else "no model")
        self.query_one("#context", Static).update(
            f"[b]{escape(case.id)}[/b] ({case.kind}) · arm {escape(arm_label)} · {escape(host)} · {escape(who)} · "
            f"moment {escape(case.moment)} · required {escape(', '.join(case.required))}\n"
            f"[dim]{escape(case.prompt)}[/dim]")
        scenario = self.scenario()
        self.hint = "" if scenario is None or scenario.case == case else \
            (f"[yellow]note: script {escape(scenario.name)} carries its own case; it runs on {escape(case.id)} "
             "as picked, where its reads may find no file[/yellow]")
        self.status(self.hint)
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
        where = shown_path(message.path, self.view.ws.root)
        self.status(f"recorded in {escape(where)}" + (f" · {escape(message.note)}" if message.note else "")
                    + (f" · {self.hint}" if self.hint else ""))

    @on(RunCancelled)
    def cancelled(self, message: RunCancelled) -> None:
        if message.run_id == self.run_id:
            self.notify("cancelled: the host's process group was stopped")

    @on(RunFailed)
    def failed(self, message: RunFailed) -> None:
        if message.run_id == self.run_id:
            self.end()
            self.query_one("#activity", Static).update("")
            self.query_one("#verdict", Static).update("")
            self.status(f"[red]could not run: {escape(message.error)}[/red]")
            focus_after(self, self.FIELDS, "#pane", message.error)
