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
from typing import TYPE_CHECKING, Any

from rich.markup import escape
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Checkbox, DataTable, Footer, Header, Input, ProgressBar, Select, SelectionList, Static

from workbench.core.errors import InputError
from workbench.core.models import RunRecord, StopRule
from workbench.core.summary import is_hit, overall
from workbench.tui.estimate import HostTimes, estimate_from
from workbench.tui.fields import invalid_reason
from workbench.tui.jobs import BatchJob
from workbench.tui.keys import ActsNow
from workbench.tui.messages import (
    BatchFinished,
    BatchRecordsLoaded,
    BatchRunFinished,
    BatchStarted,
    EstimateMade,
    ForecastReady,
    ProofChecked,
    WorkerFailed,
)
from workbench.tui.widgets.bars import interval_bar, rate_text
from workbench.tui.widgets.runform import LabelledSelect, chosen_script, effort_input, labelled, model_input, script_select
from workbench.tui.workers import ForwardsWorkerErrors

if TYPE_CHECKING:
    from workbench.modelstub import Script
    from workbench.tui.app import WorkbenchApp


def proof_mark(passed: bool, exit_code: int) -> str:
    """A proof check in words: a refusal the proof wanted is `refused ✓`, a run it wanted `ran ✓`."""
    if passed:
        return "[green]refused ✓[/green]" if exit_code != 0 else "[green]ran ✓[/green]"
    return "[red]NOT refused ✗[/red]" if exit_code == 0 else "[red]failed ✗[/red]"


def tally(records: list[RunRecord]) -> dict[tuple[str, str], tuple[int, int, int]]:
    """(arm, case) -> (hits, valid, invalid), hits as the summary counts them."""
    out: dict[tuple[str, str], tuple[int, int, int]] = {}
    for r in records:
        key = (r.arm or "?", r.case_id or r.target)
        hits, valid, invalid = out.get(key, (0, 0, 0))
        if r.valid:
            out[key] = (hits + is_hit(r.kind, overall(r)), valid + 1, invalid)
        else:
            out[key] = (hits, valid, invalid + 1)
    return out


class BatchScreen(ActsNow, ForwardsWorkerErrors, Screen[None]):
    """The promote form, the proof, progress and the plan's results from its records file."""

    BINDINGS = [Binding("ctrl+r", "start", "start batch"), Binding("x", "abort", "abort batch")]

    app: WorkbenchApp

    def __init__(self) -> None:
        super().__init__()
        self.job: BatchJob | None = None
        self.records: list[RunRecord] = []
        """The plan's records: those already in the records file, then each run as it ends."""
        self.record_path: str | None = None
        self.row_id: str | None = None
        self.script: Script | None = None
        """A scripted model for the next batches (tests, bench): overrides the script field."""
        self.times: dict[str, HostTimes] | None = None
        """Earlier runs' durations and costs per host (read in a worker; None until read)."""

    def compose(self) -> ComposeResult:
        view = self.app.view
        yield Header()
        with Horizontal(classes="form"):
            yield labelled(LabelledSelect([], prompt="baseline", id="baseline"), "baseline")
            yield labelled(LabelledSelect([], prompt="arm", id="arm"), "arm")
            yield labelled(Input(placeholder="hosts (a,b)", id="hosts"), "hosts")
            yield model_input("model", view.ws.config.defaults.models)
        with Horizontal(classes="form", id="batch-options"):
            yield script_select("script", view.scripts)
            yield effort_input("effort")
            yield labelled(Input("3", placeholder="runs per cell", id="runs", type="integer"), "runs")
            yield labelled(Input("2", placeholder="jobs", id="jobs", type="integer"), "jobs")
            yield Checkbox("confined", True, id="confined")
        with Horizontal(classes="form", id="batch-decide"):
            yield Checkbox("until decided (runs = the maximum)", False, id="until-decided")
            yield labelled(Input("0.05", placeholder="alpha", id="alpha"), "alpha")
        with Horizontal(id="batch-body"):
            yield labelled(SelectionList[str](id="cases"), "cases")
            yield labelled(DataTable(id="batch-results", zebra_stripes=True), "results")
        with Vertical(id="batch-info"):
            yield Static("", id="batch-status")  # first: the run's outcome is never the line cut off
            yield ProgressBar(id="progress", show_eta=True)
            yield Static("", id="proof")
            yield Static("", id="estimate")
            yield Static("forecast: …", id="forecast")
        yield Footer()

    def on_mount(self) -> None:
        from workbench.runner.confine import bwrap_path

        self.title = "Batch"
        self.sub_title = self.app.workspace_label
        self.query_one("#hosts", Input).value = ",".join(self.app.view.ws.config.defaults.hosts)
        self.query_one("#confined", Checkbox).value = bwrap_path() is not None
        table = self.query_one("#batch-results", DataTable)
        table.add_columns("arm", "case", "hits/valid [95% CI]", "invalid", "0% ─ rate ─ 100%")
        self.query_one("#progress", ProgressBar).display = False  # shown once a batch runs
        self.refresh_choices()
        self.read_times()

    def on_screen_resume(self) -> None:
        if self.job is None:
            self.refresh_choices(self.row_id, keep=True)

    def arms_changed(self) -> None:
        """The workspace's arms were read again (`WorkbenchApp.arms_known`): offered, keeping what is
        picked (the defaults when nothing is yet)."""
        if self.job is None:
            picked = any(self.query_one(s, Select).value not in (Select.NULL, None) for s in ("#baseline", "#arm"))
            self.refresh_choices(self.row_id, keep=picked)

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
        view = self.app.view
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

    def form(self) -> dict[str, Any]:
        """The form's values, checked; InputError names the bad field."""
        def number(field: str) -> int:
            raw = self.query_one(f"#{field}", Input).value.strip()
            if not raw.isdigit() or int(raw) < 1:
                raise InputError("must be a whole number of at least 1", field=field)
            return int(raw)

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
        return {"hosts": hosts, "model": model, "arms": arms, "cases": cases,
                "runs": number("runs"), "jobs": number("jobs"), "confined": self.query_one("#confined", Checkbox).value,
                "until_decided": until, "alpha": alpha,
                "effort": self.query_one("#effort", Input).value.strip() or None,
                "script": chosen_script(self.query_one("#script", Select), self.script)}

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
        runs = len(f["cases"]) * f["runs"] * len(f["hosts"]) * len(f["arms"])
        if self.times is None:
            self.query_one("#estimate", Static).update(f"estimate: {runs} runs · reading earlier records …")
        else:
            self.query_one("#estimate", Static).update(
                f"estimate: {estimate_from(runs, f['hosts'], f['jobs'], self.times).text()}")
        self.forecast_job(f, self.app.view.ws.records_dir)

    @work(thread=True, exclusive=True, group="estimate", exit_on_error=False)
    def read_times(self) -> None:
        """Earlier records' durations and costs, read once in a worker (a keystroke never waits on disk)."""
        from workbench.tui.data import record_files
        from workbench.tui.estimate import host_times

        self.post_message(EstimateMade(host_times(record_files(self.app.view.ws))))

    @on(EstimateMade)
    def estimate_made(self, message: EstimateMade) -> None:
        self.times = message.times
        self.update_estimate()

    @work(thread=True, exclusive=True, group="forecast", exit_on_error=False)
    def forecast_job(self, f: dict[str, Any], records: Path) -> None:
        """The form's forecast from the workspace's earlier records, posted as ForecastReady."""
        from workbench.runner.preview import form_forecast, load_history

        scripted = f.get("script") is not None or self.script is not None
        outlook = form_forecast(f["cases"], f["hosts"], f["runs"], len(f["arms"]), f["model"], scripted,
                                load_history([records]))
        lines = outlook.lines()
        if f["until_decided"]:
            lines[0] = lines[0].replace("forecast:", "forecast (at most, until decided):", 1)
        self.post_message(ForecastReady(lines))

    @on(ForecastReady)
    def show_forecast(self, message: ForecastReady) -> None:
        self.query_one("#forecast", Static).update(escape("\n".join(message.lines)))

    def config(self, f: dict[str, Any]) -> Any:
        """The runner's BatchConfig for the form, built and checked as the CLI batch's (arms by the one
        resolver, guard, the one confinement rule, the pre-flight checks). Runs in the batch's worker."""
        from workbench.runner.arms import resolve
        from workbench.runner.batch import BatchConfig, check_plan
        from workbench.runner.guard import Guard
        from workbench.runner.request import confinement_for
        from workbench.tui.widgets.runform import load

        view = self.app.view
        ws = view.ws
        arms = [resolve(ws, name) for name in f["arms"]]
        record = ws.records_dir / "batch.jsonl"
        home = Path.home()
        guard = Guard.for_home(home, [ws.root, *(a.repo_root for a in arms)],
                               own=[record, record.with_name(record.name + ".torn")])
        confinement = confinement_for("batch", unconfined=not f["confined"], home=home, checkouts=guard.checkouts)
        cases = [c for c in view.cases if c.id in f["cases"]]
        script = load(f.get("script", self.script))
        stop = (StopRule(rule="until-decided", max_runs=f["runs"], alpha=f["alpha"], compare=f["arms"][:2])
                if f.get("until_decided") else None)
        cfg = BatchConfig(cases=cases, hosts=f["hosts"], arms=arms, runs=f["runs"], record=record, jobs=f["jobs"],
                          model=f["model"], effort=f.get("effort"), resume=True, confinement=confinement, guard=guard,
                          script=script, fixture=ws.base_fixture if ws.base_fixture.is_dir() else None, real_home=home,
                          stop=stop)
        cfg.binaries = check_plan(cfg)
        return cfg

    def action_start(self) -> None:
        if self.job is not None:
            self.notify("a batch is running: x aborts it", severity="warning")
            return
        try:
            f = self.form()
        except InputError as exc:
            self.query_one("#batch-status", Static).update(f"[red]not started: {escape(str(exc))}[/red]")
            return
        self.records, self.record_path = [], None
        self.query_one("#batch-results", DataTable).clear()
        self.query_one("#proof", Static).update("")
        self.query_one("#batch-status", Static).update("starting: plan, login and binaries, then the proof …")
        self.job = BatchJob(lambda: self.config(f))
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
        self.job.abort()  # the runner stops the groups in flight; the records already written stay

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

    @on(BatchStarted)
    def started(self, message: BatchStarted) -> None:
        p = message.progress
        self.query_one("#progress", ProgressBar).display = True
        self.query_one("#progress", ProgressBar).update(total=p.planned, progress=p.skipped)
        self.query_one("#batch-status", Static).update(f"running: {p.planned} planned, {p.skipped} already recorded "
                                                       f"· records: {escape(self.record_path or '?')}")

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
        for (arm, case), (hits, valid, invalid) in sorted(tally(self.records).items(), key=lambda kv: (kv[0][1],
                                                                                                        kv[0][0])):
            table.add_row(arm, case, rate_text(hits, valid), str(invalid), interval_bar(hits, valid))

    @on(WorkerFailed)
    def worker_error(self, message: WorkerFailed) -> None:
        self.job = None
        self.refresh_bindings()
        self.query_one("#batch-status", Static).update(f"[b red]batch stopped[/b red]: {escape(message.error)}")

    @on(BatchFinished)
    def finished(self, message: BatchFinished) -> None:
        self.job = None
        self.read_times()  # the new runs inform the next estimate
        self.refresh_bindings()
        colour = "red" if message.note.startswith(("not started", "stopped")) else "b"
        where = f" · {len(self.records)} record(s) of this plan in {escape(self.record_path)}" if self.record_path \
            else ""
        self.query_one("#batch-status", Static).update(f"[{colour}]batch ended: {escape(message.note)}[/{colour}]"
                                                       + where)
