"""Batch: promote a row's wording — baseline vs this arm over cases, hosts and runs — confined and live.

Before start: the plan's size and a time/cost estimate from earlier records, and the forecast
(`core.forecast`, computed by a worker and posted as `ForecastReady`). "until decided" stops each
host/row comparison once the anytime-valid paired test decides (runs = the maximum). On start the
confinement proof is shown check by check, then progress and a results table (hits per arm and
case with Wilson interval bars) fill in as runs end. Abort stops launching, kills runs in flight
and keeps every record already written. The batch itself is `workbench.runner.batch`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.markup import escape
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Checkbox, DataTable, Footer, Header, Input, ProgressBar, Select, SelectionList, Static

from workbench.core.errors import InputError
from workbench.core.models import RunRecord, StopRule
from workbench.core.summary import is_hit, overall
from workbench.tui.estimate import estimate
from workbench.tui.jobs import BatchJob
from workbench.tui.messages import (
    BatchFinished,
    BatchRunFinished,
    BatchStarted,
    ForecastReady,
    ProofChecked,
    WorkerFailed,
)
from workbench.tui.widgets.bars import interval_bar, rate_text
from workbench.tui.workers import ForwardsWorkerErrors

if TYPE_CHECKING:
    from workbench.modelstub import Script
    from workbench.tui.app import WorkbenchApp


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


class BatchScreen(ForwardsWorkerErrors, Screen[None]):
    """The promote form, the proof, progress and live results."""

    BINDINGS = [Binding("ctrl+r", "start", "start batch"), Binding("x", "abort", "abort batch")]

    app: WorkbenchApp

    def __init__(self) -> None:
        super().__init__()
        self.job: BatchJob | None = None
        self.records: list[RunRecord] = []
        self.row_id: str | None = None
        self.script: Script | None = None
        """A scripted model for the next batches (tests); None: each host's own model or policy."""

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(classes="form"):
            yield Select([], prompt="baseline", id="baseline")
            yield Select([], prompt="arm", id="arm")
            yield Input(placeholder="hosts", id="hosts")
            yield Input(placeholder="model (real hosts: your login)", id="model")
            yield Input("3", placeholder="runs per cell", id="runs", type="integer")
            yield Input("2", placeholder="jobs", id="jobs", type="integer")
        yield SelectionList[str](id="cases")
        with Horizontal(classes="form"):
            yield Checkbox("confined (bubblewrap; the proof runs first)", True, id="confined")
            yield Checkbox("until decided (runs = max)", False, id="until-decided")
            yield Input("0.05", placeholder="alpha", id="alpha")
        yield Static("", id="estimate")
        yield Static("forecast: …", id="forecast")
        yield Static("", id="proof")
        yield ProgressBar(id="progress", show_eta=True)
        yield Static("", id="batch-status")
        yield DataTable(id="batch-results", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        from workbench.runner.confine import bwrap_path

        self.title = "Batch"
        self.sub_title = self.app.workspace_label
        self.query_one("#hosts", Input).value = ",".join(self.app.view.ws.config.defaults.hosts)
        self.query_one("#confined", Checkbox).value = bwrap_path() is not None
        table = self.query_one("#batch-results", DataTable)
        table.add_columns("arm", "case", "hits/valid [95% CI]", "0% ─ rate ─ 100%", "invalid")
        self.refresh_choices()

    def refresh_choices(self, row_id: str | None = None) -> None:
        view = self.app.view
        arms = [(a.name, a.name) for a in view.arms() if a.sha]
        for sel in ("#baseline", "#arm"):
            self.query_one(sel, Select).set_options(arms)
        if arms:
            self.query_one("#baseline", Select).value = "baseline"
            mine = view.arms_of(row_id) if row_id else []
            self.query_one("#arm", Select).value = mine[-1].name if mine else arms[-1][1]
        chosen = {c.id for c in (view.promote_cases(row_id) if row_id else view.cases)}
        cases = self.query_one("#cases", SelectionList)
        cases.clear_options()
        cases.add_options([(f"{c.id} ({c.kind})", c.id, c.id in chosen) for c in view.cases])
        self.update_estimate()

    def promote(self, row_id: str) -> None:
        """Set the form up for ROW: baseline vs the row's newest arm, its positives and all negatives."""
        self.row_id = row_id
        self.refresh_choices(row_id)
        self.query_one("#batch-status", Static).update(f"promote row [b]{escape(row_id)}[/b]: ctrl+r starts")

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
        arms = [str(self.query_one(s, Select).value) for s in ("#baseline", "#arm")]
        if Select.NULL in [self.query_one(s, Select).value for s in ("#baseline", "#arm")]:
            raise InputError("pick a baseline and an arm", field="arm")
        cases = list(self.query_one("#cases", SelectionList).selected)
        if not cases:
            raise InputError("select at least one case", field="cases")
        model = self.query_one("#model", Input).value.strip() or None
        until = self.query_one("#until-decided", Checkbox).value
        alpha = None
        if until:
            try:
                alpha = float(self.query_one("#alpha", Input).value.strip())
            except ValueError:
                alpha = -1.0
            if not 0 < alpha < 1:
                raise InputError("must be a number between 0 and 1", field="alpha")
            if len(set(arms)) < 2:
                raise InputError("until decided compares two different arms", field="arm")
        return {"hosts": hosts, "model": model, "arms": list(dict.fromkeys(arms)), "cases": cases,
                "runs": number("runs"), "until_decided": until, "alpha": alpha,
                "jobs": number("jobs"), "confined": self.query_one("#confined", Checkbox).value}

    @on(Input.Changed)
    @on(Select.Changed)
    @on(SelectionList.SelectedChanged)
    @on(Checkbox.Changed)
    def update_estimate(self) -> None:
        from workbench.tui.data import record_files

        try:
            f = self.form()
        except InputError as exc:
            self.query_one("#estimate", Static).update(f"[yellow]{escape(str(exc))}[/yellow]")
            return
        runs = len(f["cases"]) * f["runs"] * len(f["hosts"]) * len(f["arms"])
        est = estimate(runs, f["hosts"], f["jobs"], record_files(self.app.view.ws))
        self.query_one("#estimate", Static).update(f"estimate: {est.text()}")
        self.forecast_job(f, self.app.view.ws.records_dir)

    @work(thread=True, exclusive=True, group="forecast", exit_on_error=False)
    def forecast_job(self, f: dict[str, Any], records: Path) -> None:
        """The form's forecast from the workspace's earlier records, posted as ForecastReady."""
        from workbench.runner.preview import form_forecast, load_history

        outlook = form_forecast(f["cases"], f["hosts"], f["runs"], len(f["arms"]), f["model"], self.script is not None,
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
        resolver, guard, the one confinement rule, the pre-flight checks)."""
        from workbench.runner.arms import resolve
        from workbench.runner.batch import BatchConfig, check_plan
        from workbench.runner.guard import Guard
        from workbench.runner.request import confinement_for

        view = self.app.view
        ws = view.ws
        arms = [resolve(ws, name) for name in f["arms"]]
        record = ws.records_dir / "batch.jsonl"
        home = Path.home()
        guard = Guard.for_home(home, [ws.root, *(a.repo_root for a in arms)],
                               own=[record, record.with_name(record.name + ".torn")])
        confinement = confinement_for("batch", unconfined=not f["confined"], home=home, checkouts=guard.checkouts)
        cases = [c for c in view.cases if c.id in f["cases"]]
        stop = (StopRule(rule="until-decided", max_runs=f["runs"], alpha=f["alpha"], compare=f["arms"][:2])
                if f["until_decided"] else None)
        cfg = BatchConfig(cases=cases, hosts=f["hosts"], arms=arms, runs=f["runs"], record=record, jobs=f["jobs"],
                          model=f["model"], resume=True, confinement=confinement, guard=guard, script=self.script,
                          fixture=ws.base_fixture if ws.base_fixture.is_dir() else None, real_home=home, stop=stop)
        cfg.binaries = check_plan(cfg)
        return cfg

    def action_start(self) -> None:
        if self.job is not None:
            self.notify("a batch is running: x aborts it", severity="warning")
            return
        try:
            cfg = self.config(self.form())
        except InputError as exc:
            self.notify(str(exc), severity="error", timeout=8)
            return
        self.records = []
        self.query_one("#batch-results", DataTable).clear()
        self.query_one("#proof", Static).update("proof of confinement: running …" if cfg.confinement else "")
        self.query_one("#batch-status", Static).update("starting: proof and self-checks first …")
        self.job = BatchJob(cfg)
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

    @on(ProofChecked)
    def proof(self, message: ProofChecked) -> None:
        if not message.confined:
            text = "[b red]UNCONFINED[/b red]: no proof; records say unconfined"
        else:
            marks = "  ".join(f"{'[green]✓' if r.passed else '[red]✗'}[/] {escape(r.name)}" for r in message.results)
            ok = all(r.passed for r in message.results)
            text = f"proof of confinement: {'[green]passed[/green]' if ok else '[red]FAILED[/red]'}\n{marks}"
        self.query_one("#proof", Static).update(text)

    @on(BatchStarted)
    def started(self, message: BatchStarted) -> None:
        p = message.progress
        self.query_one("#progress", ProgressBar).update(total=p.planned, progress=p.skipped)
        self.query_one("#batch-status", Static).update(f"running: {p.planned} planned, {p.skipped} already recorded")

    @on(BatchRunFinished)
    def run_finished(self, message: BatchRunFinished) -> None:
        p = message.progress
        self.records.append(message.outcome.record)
        self.query_one("#progress", ProgressBar).update(total=p.planned, progress=p.skipped + p.done)
        self.query_one("#batch-status", Static).update(
            f"{p.skipped + p.done}/{p.planned} · invalid {p.invalid} · tokens {p.tokens:,} · ${p.cost:.2f}")
        self.show_results()

    def show_results(self) -> None:
        table = self.query_one("#batch-results", DataTable)
        table.clear()
        for (arm, case), (hits, valid, invalid) in sorted(tally(self.records).items(), key=lambda kv: (kv[0][1],
                                                                                                        kv[0][0])):
            table.add_row(arm, case, rate_text(hits, valid), interval_bar(hits, valid), str(invalid))

    @on(WorkerFailed)
    def worker_error(self, message: WorkerFailed) -> None:
        self.job = None
        self.query_one("#batch-status", Static).update(f"[b red]batch stopped[/b red]: {escape(message.error)}")

    @on(BatchFinished)
    def finished(self, message: BatchFinished) -> None:
        self.job = None
        self.query_one("#batch-status", Static).update(f"[b]batch ended[/b]: {escape(message.note)} · "
                                                       f"{len(self.records)} run(s) recorded here")
