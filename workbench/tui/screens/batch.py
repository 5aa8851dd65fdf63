"""Batch: promote a row's wording — baseline vs this arm over cases, hosts and runs — confined and live.

Layout: two form rows (what: arms, hosts, model, script; how: runs, jobs, effort, confined — the
`#batch-options` row is where further run options go), then the cases list beside the results
table, then the estimate, proof, progress and status lines. On start the worker builds and checks
the plan (arms, login, binaries), reads the plan's records already in the records file (so resume
and re-runs show the file's true totals), shows the proof check by check ("refused ✓"), then the
table fills in as runs end. The first runs of a host all invalid for one reason stop the batch
and say why. Abort stops launching, kills runs in flight and keeps every record already written.
"until decided" stops each host/row comparison once the anytime-valid paired test decides (runs =
the maximum); the forecast (`core.forecast`, from a worker as `ForecastReady`) shows before start.
The batch itself is `workbench.runner.batch`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.markup import escape
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Checkbox, DataTable, Footer, Header, Input, ProgressBar, Select, SelectionList, Static

from workbench.core.errors import InputError
from workbench.core.models import RunRecord
from workbench.core.summary import case_rows, summarize
from workbench.runner.doors import BatchForm, batch_caps, confirm_above, whole_number
from workbench.tui.data import WorkspaceView
from workbench.tui.fields import invalid_reason
from workbench.tui.fit import shown_path
from workbench.tui.jobs import ABORTED_AT_START, BatchJob
from workbench.tui.keys import ActsNow, focus_after
from workbench.tui.messages import (
    BatchFinished,
    BatchRecordsLoaded,
    BatchRunFinished,
    BatchStarted,
    ForecastReady,
    ProofChecked,
    WorkerFailed,
)
from workbench.tui.screens.confirm import ConfirmScreen
from workbench.tui.widgets.bars import interval_bar, rate_text
from workbench.tui.widgets.runform import (
    LabelledSelect,
    chosen_effort,
    chosen_script,
    effort_select,
    labelled,
    model_input,
    offer_efforts,
    offer_scripts,
    script_select,
)
from workbench.tui.widgets.table import Table
from workbench.tui.widgets.toggles import Box, Choices
from workbench.tui.workers import ForwardsWorkerErrors

if TYPE_CHECKING:
    from workbench.modelstub import Script


FIELDS = {"hosts": "#hosts", "model": "#model", "arm": "#arm", "baseline": "#baseline", "runs": "#runs",
          "jobs": "#jobs", "effort": "#effort", "script": "#script", "cases": "#cases", "alpha": "#alpha"}
"""Form field name (as errors name it) -> its widget: a refused batch puts the keys there."""


def proof_mark(passed: bool, exit_code: int) -> str:
    """A proof check in words: a refusal the proof wanted is `refused ✓`, a run it wanted `ran ✓`."""
    if passed:
        return "[green]refused ✓[/green]" if exit_code != 0 else "[green]ran ✓[/green]"
    return "[red]NOT refused ✗[/red]" if exit_code == 0 else "[red]failed ✗[/red]"


class BatchScreen(ActsNow, ForwardsWorkerErrors, Screen[None]):
    """The promote form, the proof, progress and the plan's results from its records file."""

    BINDINGS = [Binding("ctrl+r", "start", "start batch"), Binding("x", "abort", "abort batch")]

    def __init__(self, view: WorkspaceView, label: str = "") -> None:
        super().__init__()
        self.view = view
        """The workspace as the app read it (passed down; the screen never reaches into the app)."""
        self.label = label
        self.job: BatchJob | None = None
        self.records: list[RunRecord] = []
        """The plan's records: those already in the records file, then each run as it ends."""
        self.record_path: str | None = None
        self.row_id: str | None = None
        self.script: Script | None = None
        """A scripted model for the next batches (tests, bench): overrides the script field."""
        self.forecast_cost: float | None = None
        """The latest forecast's cost (None: unknown), for the confirmation of a large plan."""

    def compose(self) -> ComposeResult:
        view = self.view
        yield Header()
        with Horizontal(classes="form"):
            yield labelled(LabelledSelect([], prompt="baseline", id="baseline"), "baseline")
            yield labelled(LabelledSelect([], prompt="arm", id="arm"), "arm")
            yield labelled(Input(placeholder="hosts (a,b)", id="hosts"), "hosts")
            yield model_input("model", view.ws.config.defaults.models)
        with Horizontal(classes="form", id="batch-options"):
            yield script_select("script", view.scripts)
            yield effort_select("effort", list(view.ws.config.defaults.hosts))
            caps = batch_caps()
            yield labelled(Input("3", placeholder="runs per cell", id="runs"), f"runs ≤{caps['runs']}")
            yield labelled(Input("2", placeholder="jobs", id="jobs"), f"jobs ≤{caps['jobs']}")
            yield Box("confined", True, id="confined")
        with Horizontal(classes="form", id="batch-decide"):
            yield Box("until decided (runs = the maximum)", False, id="until-decided")
            yield labelled(Input("0.05", placeholder="alpha", id="alpha"), "alpha")
        with Horizontal(id="batch-body"):
            yield labelled(Choices(id="cases"), "cases")
            yield labelled(Table(id="batch-results", zebra_stripes=True), "results")
        with Vertical(id="batch-info"):
            yield Static("", id="batch-status")  # first: the run's outcome is never the line cut off
            yield ProgressBar(id="progress", show_eta=True)
            yield Static("", id="proof")
            yield Static("", id="estimate")
            yield Static("forecast: …", id="forecast")
        yield Footer()

    def on_mount(self) -> None:
        from workbench.runner.doors import can_confine

        self.title = "Batch"
        self.sub_title = self.label
        self.query_one("#hosts", Input).value = ",".join(self.view.ws.config.defaults.hosts)
        self.query_one("#confined", Checkbox).value = can_confine()
        table = self.query_one("#batch-results", DataTable)
        table.add_columns("host", "arm", "hits/valid [95% CI]", "invalid", "case", "0% ─ rate ─ 100%")  # CI at 80 cols
        self.query_one("#progress", ProgressBar).display = False  # shown once a batch runs
        self.refresh_choices()

    def on_screen_resume(self) -> None:
        if self.job is None:
            self.refresh_choices(self.row_id, keep=True)

    def arms_changed(self) -> None:
        """The workspace's arms were read again (`WorkbenchApp.arms_known`): offered, keeping what is
        picked (the defaults when nothing is yet)."""
        if self.job is None:
            picked = any(self.query_one(s, Select).value not in (Select.NULL, None) for s in ("#baseline", "#arm"))
            self.refresh_choices(self.row_id, keep=picked)

    def view_changed(self) -> None:
        """The workspace was read again (`WorkbenchApp.workspace_read`): its cases and scripts are offered."""
        if self.job is None:
            self.scripts_changed()
            self.refresh_choices(self.row_id, keep=True)

    @on(Input.Changed, "#hosts")
    def hosts_typed(self) -> None:
        """The effort field offers the levels every listed host's CLI takes."""
        hosts = [h.strip() for h in self.query_one("#hosts", Input).value.split(",") if h.strip()]
        offer_efforts(self.query_one("#effort", Select), hosts)

    def scripts_changed(self) -> None:
        """The canaries folder changed (`WorkbenchApp.scripts_read`): its scripts are offered."""
        offer_scripts(self.query_one("#script", Select), self.view.scripts)

    def ready(self, action: str) -> bool:
        return self.job is not None if action == "abort" else self.job is None if action == "start" else True

    @property
    def busy(self) -> bool:
        return self.job is not None

    def stop_work(self) -> None:
        if self.job is not None:
            self.job.abort()

    def refresh_choices(self, row_id: str | None = None, arm: str | None = None, keep: bool = False) -> None:
        """Arms and cases for ROW: baseline vs ARM (default: the row's newest arm; none: the arm is left
        blank and the status says so, never another row's arm). KEEP: keep the arms already picked."""
        view = self.view
        arms = [(a.name, a.name) for a in view.arms() if a.sha]
        before = [self.query_one(s, Select).value for s in ("#baseline", "#arm")]
        for sel in ("#baseline", "#arm"):
            self.query_one(sel, Select).set_options(arms)
        names = {v for _, v in arms}
        if keep:
            for sel, value in zip(("#baseline", "#arm"), before, strict=True):
                if value in names:
                    self.query_one(sel, Select).value = value
        elif arms:
            self.query_one("#baseline", Select).value = "baseline"
            mine = [a.name for a in view.arms_of(row_id)] if row_id else []
            pick = arm if arm in names else (mine[-1] if mine else None if row_id else arms[-1][1])
            if pick is not None:
                self.query_one("#arm", Select).value = pick
        if not keep:
            chosen = {c.id for c in (view.promote_cases(row_id) if row_id else view.cases)}
            cases = self.query_one("#cases", SelectionList)
            cases.clear_options()
            cases.add_options([(f"{c.id} ({c.kind})", c.id, c.id in chosen) for c in view.cases])
        self.update_estimate()

    def promote(self, row_id: str, arm: str | None = None) -> None:
        """Set the form up for ROW: baseline vs ARM (default the row's newest arm), its positives and all
        negatives. A row with no arm says so and leaves no results of an earlier batch on screen."""
        if self.job is not None:
            self.notify("a batch is running: x aborts it first", severity="warning")
            return
        self.row_id = row_id
        self.records, self.record_path = [], None
        self.query_one("#batch-results", DataTable).clear()
        self.query_one("#proof", Static).update("")
        self.query_one("#progress", ProgressBar).update(total=None, progress=0)
        self.refresh_choices(row_id, arm)
        status = self.query_one("#batch-status", Static)
        if self.query_one("#arm", Select).value in (Select.NULL, None):
            status.update(f"[yellow]row [b]{escape(row_id)}[/b] has no arm yet: edit it on Rows (e) and press b "
                          "to save the draft as an arm[/yellow]")
        else:
            status.update(f"promote row [b]{escape(row_id)}[/b]: baseline vs "
                          f"{escape(str(self.query_one('#arm', Select).value))} · ctrl+r starts")

    def form(self) -> BatchForm:
        """The batch door's form from the widgets (`runner.doors.batch_config` does the rest); InputError
        names the bad field."""
        caps = batch_caps()

        def number(field: str) -> int:
            return whole_number(self.query_one(f"#{field}", Input).value, field, caps[field])

        hosts = [h.strip() for h in self.query_one("#hosts", Input).value.split(",") if h.strip()]
        if not hosts:
            raise InputError("name at least one host", field="hosts")
        values = [self.query_one(s, Select).value for s in ("#baseline", "#arm")]
        if Select.NULL in values or None in values:
            raise InputError("pick a baseline and an arm (a row's arm: Rows, edit, b)", field="arm")
        cases = list(self.query_one("#cases", SelectionList).selected)
        if not cases:
            raise InputError("select at least one case", field="cases")
        model = self.query_one("#model", Input).value.strip() or None
        until = self.query_one("#until-decided", Checkbox).value
        alpha = None
        arms = list(dict.fromkeys(str(v) for v in values))
        if until:
            try:
                alpha = float(self.query_one("#alpha", Input).value.strip())
            except ValueError:
                alpha = -1.0
            if not 0 < alpha < 1:
                raise InputError("must be a number between 0 and 1", field="alpha")
            if len(set(arms)) < 2:
                raise InputError("until decided compares two different arms", field="arm")
        runs, jobs = number("runs"), number("jobs")
        planned = len(cases) * len(hosts) * len(arms) * runs
        if planned > caps["planned"]:
            raise InputError(f"{planned:,} planned runs is above the cap of {caps['planned']:,}", field="runs")
        return BatchForm(arms=tuple(arms), cases=tuple(cases), hosts=tuple(hosts), runs=runs, jobs=jobs,
                         model=model, effort=chosen_effort(self.query_one("#effort", Select)),
                         script=chosen_script(self.query_one("#script", Select), self.script), resume=True,
                         unconfined=not self.query_one("#confined", Checkbox).value, until_decided=until,
                         alpha=alpha, max_runs=runs if until else None)

    @on(Input.Changed)
    @on(Select.Changed)
    @on(SelectionList.SelectedChanged)
    @on(Checkbox.Changed)
    def update_estimate(self) -> None:
        try:
            f = self.form()
        except InputError as exc:
            self.query_one("#estimate", Static).update(f"[yellow]{escape(str(exc))}[/yellow]")
            return
        self.query_one("#estimate", Static).update(
            f"plan: {len(f.cases)} case(s) × {f.runs} runs × {len(f.hosts)} host(s) × {len(f.arms)} arm(s) · "
            f"{f.jobs} at once · ≤{batch_caps()['planned']:,} runs")
        self.forecast_job(f, self.view.ws.records_dir)

    @work(thread=True, exclusive=True, group="forecast", exit_on_error=False)
    def forecast_job(self, f: BatchForm, records: Path) -> None:
        """The form's forecast (the runner's, as the CLI batch prints it) from the workspace's earlier
        records, posted as ForecastReady."""
        from workbench.runner.preview import form_forecast, load_history

        outlook = form_forecast(list(f.cases), list(f.hosts), f.runs or 1, len(f.arms), f.model,
                                f.script is not None, load_history([records]))
        lines = outlook.lines()
        if f.until_decided:
            lines[0] = lines[0].replace("forecast:", "forecast (at most, until decided):", 1)
        self.post_message(ForecastReady(lines, outlook.cost_usd.total))

    @on(ForecastReady)
    def show_forecast(self, message: ForecastReady) -> None:
        self.forecast_cost = message.cost_usd
        self.query_one("#forecast", Static).update(escape("\n".join(message.lines)))

    def action_start(self) -> None:
        if self.job is not None:
            self.notify("a batch is running: x aborts it", severity="warning")
            return
        try:
            f = self.form()
        except InputError as exc:
            self.query_one("#batch-status", Static).update(f"[red]not started: {escape(str(exc))}[/red]")
            focus_after(self, FIELDS, "#hosts", str(exc))
            return
        planned = len(f.cases) * len(f.hosts) * len(f.arms) * (f.runs or 1)
        why = confirm_above(planned, None if f.script is not None else self.forecast_cost)
        if why is None:
            self.launch(f)
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.launch(f)
            else:
                self.query_one("#batch-status", Static).update("not started: you declined the plan")

        self.app.push_screen(ConfirmScreen(f"This batch plans {why}. Start it?"), answered)

    def launch(self, f: BatchForm) -> None:
        """Start the batch of form F in a worker."""
        if self.job is not None:
            return
        self.records, self.record_path = [], None
        self.query_one("#batch-results", DataTable).clear()
        self.query_one("#proof", Static).update("")
        self.query_one("#batch-status", Static).update("starting: plan, login and binaries, then the proof …")
        self.job = BatchJob(self.view.ws, f)
        self.set_focus(None)  # x aborts now, it never types into a field
        self.refresh_bindings()
        self.run_job(self.job)

    @work(thread=True, exclusive=True, group="batch", exit_on_error=False)
    def run_job(self, job: BatchJob) -> None:
        job.run(self.post_message)

    def action_abort(self) -> None:
        if self.job is None:
            self.notify("no batch is running")
            return
        self.query_one("#batch-status", Static).update("aborting: no new runs; stopping runs in flight …")
        if self.job.abort():  # still starting: over at once (the start-up ends by itself, launching nothing)
            self.post_message(BatchFinished(None, ABORTED_AT_START))
        # else the runner stops the groups in flight; the records already written stay

    @on(BatchRecordsLoaded)
    def records_loaded(self, message: BatchRecordsLoaded) -> None:
        self.records = list(message.records)
        self.record_path = message.path
        self.show_results()
        self.query_one("#batch-status", Static).update(
            f"{len(self.records)}/{message.planned} of this plan already in {escape(message.path)}; "
            "proof and self-checks …")

    @on(ProofChecked)
    def proof(self, message: ProofChecked) -> None:
        if not message.confined:
            text = "[b red]UNCONFINED[/b red]: no proof; records say unconfined"
        else:
            marks = "  ".join(f"{escape(r.name)} {proof_mark(r.passed, r.exit_code)}" for r in message.results)
            ok = all(r.passed for r in message.results)
            text = f"proof of confinement: {'[green]passed[/green]' if ok else '[red]FAILED[/red]'} · {marks}"
        self.query_one("#proof", Static).update(text)

    def shown_record(self) -> str | None:
        """The records file this plan writes, as the status names it (relative to the workspace)."""
        return shown_path(self.record_path, self.view.ws.root) if self.record_path else None

    @on(BatchStarted)
    def started(self, message: BatchStarted) -> None:
        p = message.progress
        self.query_one("#progress", ProgressBar).display = True
        self.query_one("#progress", ProgressBar).update(total=p.planned, progress=p.skipped)
        self.query_one("#batch-status", Static).update(f"running: {p.planned} planned, {p.skipped} already recorded "
                                                       f"· records: {escape(self.shown_record() or '?')}")

    @on(BatchRunFinished)
    def run_finished(self, message: BatchRunFinished) -> None:
        p = message.progress
        record = message.outcome.record
        self.records.append(record)
        self.query_one("#progress", ProgressBar).update(total=p.planned, progress=p.skipped + p.done)
        last = "" if record.valid else f" · last invalid: [red]{escape(invalid_reason(record))}[/red]"
        self.query_one("#batch-status", Static).update(
            f"{p.skipped + p.done}/{p.planned} · invalid {p.invalid} · tokens {p.tokens:,} · ${p.cost:.2f}{last}")
        self.show_results()

    def show_results(self) -> None:
        table = self.query_one("#batch-results", DataTable)
        table.clear()
        for row in case_rows(summarize(self.records, pairs=False)):
            table.add_row(row.host, row.arm, rate_text(row.hits, row.valid), str(row.invalid), row.case,
                          interval_bar(row.hits, row.valid))

    @on(WorkerFailed)
    def worker_error(self, message: WorkerFailed) -> None:
        self.job = None
        self.refresh_bindings()
        self.query_one("#batch-status", Static).update(f"[b red]batch stopped[/b red]: {escape(message.error)}")
        focus_after(self, FIELDS, "#batch-results", message.error)

    @on(BatchFinished)
    def finished(self, message: BatchFinished) -> None:
        self.job = None
        self.update_estimate()  # the new runs inform the next forecast
        self.refresh_bindings()
        colour = "red" if message.note.startswith(("not started", "stopped")) else "b"
        where = f" · {len(self.records)} record(s) of this plan in {escape(self.shown_record() or '')}" \
            if self.record_path else ""
        self.query_one("#batch-status", Static).update(f"[{colour}]batch ended: {escape(message.note)}[/{colour}]"
                                                       + where)
        failed = message.note.startswith(("not started", "stopped"))
        focus_after(self, FIELDS, "#batch-results", message.note if failed else None)
