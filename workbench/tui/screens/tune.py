"""Tune: the selected row's candidates (rules, a proposer host, typed wordings), measured as arms.

Reached from Rows with `t`. The form (hosts, model, effort — the levels every listed host takes —, proposer,
run budget, typed wordings) fills the tune door's `runner.tune.TuneForm`; a worker runs
`tune_setup` and `preview` (the forecast and the candidates before launch) or `run_tune`, and only
posts messages; handlers render what the runner computed (tallies, verdicts, `result_json` — the
CLI's `--json`). `ctrl+r` starts, `x` cancels (no new runs; records stay).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from rich.markup import escape
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Input, ProgressBar, Select, Static, TextArea

from workbench.core.errors import InputError
from workbench.runner.tune import TuneForm
from workbench.tui.data import WorkspaceView
from workbench.tui.fields import in_fields
from workbench.tui.keys import ActsNow
from workbench.tui.messages import ArmsRead, TuneFinished, TuneForecast, TuneProgressed, WorkerFailed
from workbench.tui.widgets.runform import chosen_effort, effort_select, labelled, model_input, offer_efforts
from workbench.tui.widgets.table import Table
from workbench.tui.workers import ForwardsWorkerErrors

if TYPE_CHECKING:
    from workbench.core.forecast import Forecast
    from workbench.core.tune import Candidate
    from workbench.runner.tune import TuneEvent


def decision_lines(result: dict[str, Any]) -> list[str]:
    """The decision as the screen says it, from the runner's `result_json` (the CLI's `--json`)."""
    winner = result.get("winner")
    head = (f"WINNER: {winner['arm']} · {winner['trigger']}" if winner else "NO WINNER") + f" — {result['decision']}"
    out = [head]
    hold = result.get("holdout")
    for host, p in (hold or {}).get("hosts", {}).items():
        out.append(f"held-back ({host}): candidate {p['hits_candidate']}/{p['pairs']} vs current "
                   f"{p['hits_current']}/{p['pairs']}, {p['only_candidate']} vs {p['only_current']} discordant, "
                   f"p = {p['p']:.3g}")
    if result.get("gap_points") is not None:
        out.append(f"selection − held-back gap: {result['gap_points']:+.1f} points · runs {result['runs']}")
    return out


class TuneScreen(ActsNow, ForwardsWorkerErrors, Screen[None]):
    """The tune form, the forecast, the candidates with their live results, progress and the decision."""

    BINDINGS = [Binding("ctrl+r", "start", "start tune"), Binding("x", "cancel", "cancel tune")]
    DEFAULT_CSS = """
    #tn-wordings { height: 4; border: round $primary-darken-2; }
    #tn-info { height: auto; max-height: 5; }
    #tn-status, #tn-forecast { height: auto; max-height: 2; }
    #tn-candidates { height: 1fr; min-height: 4; border: round $primary-darken-2; }
    #tn-decision { height: auto; max-height: 6; background: $boost; }
    """

    def __init__(self, view: WorkspaceView, label: str = "") -> None:
        super().__init__()
        self.view = view
        self.label = label
        self.row_id: str | None = None
        self.cancel_event: threading.Event | None = None
        """Set while a tune runs; `x` sets it."""
        self.live: dict[str, str] = {}
        """Candidate arm -> its stage's tally text, as the runner counted it."""
        self.verdicts: dict[str, str] = {}
        self.candidates: list[Candidate] = []
        self.decision: dict[str, Any] | None = None
        """The last tune's answer: the runner's `result_json`, as `workbench tune --json` prints it."""

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(classes="form"):
            yield labelled(Input(placeholder="hosts (a,b)", id="tn-hosts"), "hosts")
            yield model_input("tn-model", self.view.ws.config.defaults.models)
            yield effort_select("tn-effort", list(self.view.ws.config.defaults.hosts))
            yield labelled(Input("rules", placeholder="rules or HOST[:MODEL]", id="tn-proposer"), "proposer")
            yield labelled(Input(placeholder="none", id="tn-budget", type="integer"), "run budget")
        yield labelled(TextArea("", id="tn-wordings"), "typed wordings, one per line")
        with Vertical(id="tn-info"):
            yield Static("pick a row on Rows and press t", id="tn-status")
            yield ProgressBar(id="tn-progress", show_eta=False)
            yield Static("forecast: …", id="tn-forecast")
        yield labelled(Table(id="tn-candidates", zebra_stripes=True), "candidates")
        yield Static("", id="tn-decision")
        yield Footer()

    def on_mount(self) -> None:
        self.title = "Tune"
        self.sub_title = self.label
        self.query_one("#tn-hosts", Input).value = ",".join(self.view.ws.config.defaults.hosts)
        self.query_one("#tn-candidates", DataTable).add_columns("trigger", "source", "status", "arm", "selection",
                                                                 "live")
        self.query_one("#tn-progress", ProgressBar).display = False  # shown once a tune runs

    @property
    def busy(self) -> bool:
        return self.cancel_event is not None

    def stop_work(self) -> None:
        if self.cancel_event is not None:
            self.cancel_event.set()

    def ready(self, action: str) -> bool:
        return self.busy if action == "cancel" else not self.busy if action == "start" else True

    def tune(self, row_id: str) -> None:
        """Set the screen up for ROW (from Rows): its candidates and forecast are read in a worker."""
        if self.busy:
            self.notify("a tune is running: x cancels it first", severity="warning")
            return
        self.row_id = row_id
        self.decision = None
        self.query_one("#tn-decision", Static).update("")
        self.preview()

    def hosts(self) -> tuple[str, ...]:
        return tuple(h.strip() for h in self.query_one("#tn-hosts", Input).value.split(",") if h.strip())

    @on(Input.Changed, "#tn-hosts")
    def hosts_typed(self) -> None:
        """The effort field offers the levels every listed host's CLI takes (what `--effort` accepts)."""
        offer_efforts(self.query_one("#tn-effort", Select), list(self.hosts()))

    def form(self) -> TuneForm:
        """The tune door's form from the fields; InputError names the bad field."""
        if self.row_id is None:
            raise InputError("pick a row on Rows and press t", field="row")
        hosts = self.hosts()
        if not hosts:
            raise InputError("name at least one host", field="hosts")
        raw = self.query_one("#tn-budget", Input).value.strip()
        if raw and (not raw.isdigit() or int(raw) < 1):
            raise InputError(f"{raw!r} is not a whole number of at least 1 (blank: no budget)", field="budget runs")
        wordings = tuple(w.strip() for w in self.query_one("#tn-wordings", TextArea).text.split("\n") if w.strip())
        return TuneForm(row=self.row_id, hosts=hosts, proposer=self.query_one("#tn-proposer", Input).value.strip()
                        or "rules", wordings=wordings, budget_runs=int(raw) if raw else None,
                        model=self.query_one("#tn-model", Input).value.strip() or None,
                        effort=chosen_effort(self.query_one("#tn-effort", Select)))

    def status(self, text: str) -> None:
        self.query_one("#tn-status", Static).update(text)

    @on(Input.Changed)
    @on(TextArea.Changed)
    @on(Select.Changed, "#tn-effort")
    def preview(self) -> None:
        if self.busy or self.row_id is None:
            return
        try:
            form = self.form()
        except InputError as exc:
            self.status(f"[red]{escape(in_fields(exc))}[/red]")
            return
        self.status(f"tune [b]{escape(self.row_id)}[/b]: reading its cases and candidates …")
        self.preview_job(form)

    @work(thread=True, exclusive=True, group="tune-preview", exit_on_error=False)
    def preview_job(self, form: TuneForm) -> None:
        """tune_setup and the runner's preview, off the UI thread (nothing runs, nothing is written)."""
        from workbench.runner.tune import preview, tune_setup

        try:
            plan = tune_setup(self.view.ws, form)
            candidates, outlook = preview(plan)
        except InputError as exc:
            self.post_message(TuneForecast([], error=in_fields(exc)))
            return
        split = (f"selection {', '.join(c.id for c in plan.selection)} · held back "
                 f"{', '.join(c.id for c in plan.holdout)} · {len(plan.negatives)} negative(s) on "
                 f"{', '.join(plan.hosts)}")
        self.post_message(TuneForecast([f"{line} (at most)" for line in outlook.lines()], split, candidates,
                                       preview=True))

    @on(TuneForecast)
    def forecast_shown(self, message: TuneForecast) -> None:
        if message.error is not None:
            self.status(f"[red]{escape(message.error)}[/red]")
            return
        if message.preview and self.busy:
            return  # a late preview: the running tune's forecast is shown
        self.query_one("#tn-forecast", Static).update(escape("\n".join(message.lines)))
        if message.split:
            self.status(f"tune [b]{escape(self.row_id or '')}[/b]: {escape(message.split)}"
                        + (" · ctrl+r starts" if message.preview else ""))
        if message.candidates is not None:
            self.show_candidates(message.candidates)

    def show_candidates(self, candidates: list[Candidate]) -> None:
        self.candidates = list(candidates)
        table = self.query_one("#tn-candidates", DataTable)
        table.clear()
        for c in self.candidates:
            arm = c.arm or "-"
            table.add_row(c.trigger, c.source, c.status, arm, self.verdicts.get(arm, c.note or "-"),
                          self.live.get(arm, "-"))

    def action_start(self) -> None:
        if self.busy:
            return
        try:
            form = self.form()
        except InputError as exc:
            self.status(f"[red]not started: {escape(in_fields(exc))}[/red]")
            return
        self.cancel_event = threading.Event()
        self.live, self.verdicts, self.decision = {}, {}, None
        self.query_one("#tn-decision", Static).update("")
        bar = self.query_one("#tn-progress", ProgressBar)
        bar.update(total=None, progress=0)
        bar.display = True
        self.status("starting: the row's cases, candidates and arms …")
        self.set_focus(None)  # x cancels now, it never types into a field
        self.refresh_bindings()
        self.run_job(form, self.cancel_event)

    @work(thread=True, exclusive=True, group="tune", exit_on_error=False)
    def run_job(self, form: TuneForm, cancel: threading.Event) -> None:
        """The tune door's set-up and run; every step reaches the screen as a message."""
        from workbench.runner.tune import result_json, run_tune, tune_setup
        from workbench.tui.data import read_arms

        try:
            plan = tune_setup(self.view.ws, form)
        except InputError as exc:
            self.post_message(TuneFinished(None, error=in_fields(exc)))
            return
        def event(e: TuneEvent) -> None:
            self.post_message(TuneProgressed(e))

        def outlook(f: Forecast) -> None:
            self.post_message(TuneForecast([f"{line} (upper bound)" for line in f.lines()]))

        result = run_tune(plan, on_event=event, on_forecast=outlook, cancel=cancel)
        self.post_message(TuneFinished(result_json(result), known=read_arms(self.view.ws)))

    def action_cancel(self) -> None:
        if self.cancel_event is not None:
            self.cancel_event.set()
            self.status("cancelling: no new runs; runs in flight end, records stay …")

    @on(TuneProgressed)
    def progressed(self, message: TuneProgressed) -> None:
        e = message.event
        if e.candidates:
            self.show_candidates(list(e.candidates))
        if e.arm is not None and e.tally is not None:
            self.live[e.arm] = f"{e.stage}: {e.tally.text()}"
        if e.arm is not None and e.verdict is not None:
            self.verdicts[e.arm] = "decided better" if e.verdict.decided else e.verdict.reason
        if e.arm is not None:
            self.show_candidates(self.candidates)
        self.query_one("#tn-progress", ProgressBar).update(total=max(e.total, 1), progress=e.runs)
        self.status(f"[{e.runs}/{e.total}] {escape(e.stage)}: {escape(e.message)}")

    @on(TuneFinished)
    def finished(self, message: TuneFinished) -> None:
        self.cancel_event = None
        self.refresh_bindings()
        if message.known is not None:
            self.post_message(ArmsRead(message.known))  # up to the app, which tells every screen
        if message.result is None:
            self.status(f"[red]not started: {escape(message.error or 'tune failed')}[/red]")
            return
        self.decision = message.result
        lines = decision_lines(message.result)
        colour = "green" if message.result.get("winner") else "yellow"
        self.query_one("#tn-decision", Static).update(
            f"[b {colour}]{escape(lines[0])}[/b {colour}]" + "".join("\n" + escape(x) for x in lines[1:]))
        self.status(f"tune ended · {message.result['runs']} run(s) · records: {escape(str(message.result['record']))}")
        self.query_one("#tn-candidates", DataTable).focus()  # the candidates' rows, at once

    @on(WorkerFailed)
    def worker_error(self, message: WorkerFailed) -> None:
        if message.group == "tune":
            self.cancel_event = None
            self.refresh_bindings()
            self.status(f"[b red]tune stopped[/b red]: {escape(message.error)}")
