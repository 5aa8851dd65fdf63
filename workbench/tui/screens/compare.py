"""Compare: two arms side by side from records — hits/total with intervals, delta, FLAKY, paired p, a plot,
and each arm's activation funnel and which procedure its cases opened (target or a sibling).

All numbers are the core's (`summarize`, `Summary.compare`, `stats`, `core.report.funnel` and
`confusion`), computed in a worker; this screen lays them out and draws each rate with its 95% Wilson
interval on a common 0–100% scale.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from rich.markup import escape
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Input, Select, Static
from textual.worker import get_current_worker

from workbench.core import stats
from workbench.core.records import load_files
from workbench.core.report import confusion, funnel, procedures
from workbench.core.summary import Summary, arm_label, script_label, summarize
from workbench.tui.data import WorkspaceView, record_files
from workbench.tui.fit import clip
from workbench.tui.folderwatch import FolderWatch
from workbench.tui.messages import ComparisonRead, ReportWritten
from workbench.tui.widgets.bars import interval_bar, rate_text
from workbench.tui.widgets.runform import LabelledSelect, labelled
from workbench.tui.widgets.table import Table
from workbench.tui.workers import ForwardsWorkerErrors

FOLLOW_EVERY = 1.0
"""Seconds at most between two looks at the records folder (inotify wakes the watcher sooner)."""

REPORT_NAME = "report.html"
HEADERS = ("host", "target", "case", "Δ pp", "paired p", "A hits/n [CI]", "B hits/n [CI]", "flaky")
NARROW = 100
"""Below this many columns the table drops its CIs (the plot below keeps them), stacks its headers and a
script's name under its host and clips a long case name at a word's end: at 80 columns no word is
cut at the table's edge (`flaky`, often empty, is last, and left out on a narrow screen when empty)."""
"""The report's file in the workspace's records folder (written again on each `h`)."""


def arm_labels(summary: Summary) -> dict[str, str]:
    """Arm key (sha or name) -> a label with its names."""
    out: dict[str, str] = {}
    for cell in summary.cells.values():
        if cell.arm is not None:
            out[cell.arm] = arm_label("+".join(cell.arm_names) or None, cell.arm if cell.has_source else None)
    return out


class CompareScreen(ForwardsWorkerErrors, Screen[None]):
    """Pick records and two arms; see per-target and per-case rates, delta, FLAKY, p, and a plot."""

    BINDINGS = [Binding("ctrl+r", "compare", "compare"), Binding("ctrl+o", "load", "open file(s)"),
                Binding("h", "report", "HTML report", show=False)]  # the 80-column footer is full: help, palette

    def __init__(self, view: WorkspaceView, label: str = "") -> None:
        super().__init__()
        self.view = view
        """The workspace as the app read it (passed down; the screen never reaches into the app)."""
        self.label = label
        self.summary = Summary()
        self.funnel: list[dict[str, Any]] = []
        self.confusion: list[dict[str, Any]] = []
        self._left = threading.Event()
        """Set when the screen goes away: the watcher's wait ends at once."""

    def compose(self) -> ComposeResult:
        yield Header()
        yield labelled(Input(placeholder="records files (comma-separated)", id="files"), "records files (enter opens)")
        with Horizontal(classes="form"):
            yield labelled(LabelledSelect([], prompt="arm A (baseline)", id="arm-a"), "arm A")
            yield labelled(LabelledSelect([], prompt="arm B", id="arm-b"), "arm B")
        yield Static("", id="report-status")
        yield Table(id="compare-table", zebra_stripes=True)
        yield Static("", id="plot")
        yield Static("", id="views")
        yield Footer()

    def on_mount(self) -> None:
        self.title = "Compare"
        self.sub_title = self.label
        self.query_one("#report-status", Static).display = False
        self.read_job(None)

    @work(thread=True, exclusive=True, group="compare", exit_on_error=False)
    def read_job(self, paths: list[Path] | None) -> None:
        """Read PATHS (None: the workspace's records files) and summarize them off the UI thread. The
        workspace's own files are then watched (`FolderWatch` on the records folder) and read again
        when one is added or written, a records file created since the screen opened included."""
        listed = paths is None
        self._post_comparison(record_files(self.view.ws) if paths is None else paths, listed, first=True)
        if not listed:
            return
        worker = get_current_worker()
        watch = FolderWatch(self.view.ws.records_dir)
        try:
            while not worker.is_cancelled and not self._left.is_set():
                if watch.wait(FOLLOW_EVERY, self._left) and not worker.is_cancelled:
                    self._post_comparison(record_files(self.view.ws), listed, first=False)
        finally:
            watch.close()

    def _post_comparison(self, files: list[Path], listed: bool, *, first: bool) -> None:
        records = load_files([p for p in files if p.is_file()], lenient=True).records
        summary = summarize(records)
        self.post_message(ComparisonRead(summary, funnel(summary), confusion(summary, records, procedures(records)),
                                         [str(p) for p in files], listed, first=first))

    def on_unmount(self) -> None:
        self._left.set()

    def action_report(self) -> None:
        """Write the HTML report of the files and the picked arms (B against A), as `workbench report`
        does, into the records folder, and open it in a browser when there is a display for one."""
        files = [p.strip() for p in self.query_one("#files", Input).value.split(",") if p.strip()]
        a, b = self.query_one("#arm-a", Select).value, self.query_one("#arm-b", Select).value
        pairs = [] if Select.NULL in (a, b) or None in (a, b) or a == b else [(str(a), str(b))]
        status = self.query_one("#report-status", Static)
        status.display = True  # hidden until a report is asked for: 80x24 keeps its lines for the numbers
        status.update("writing the HTML report …")
        self.report_job(files, pairs)

    @work(thread=True, exclusive=True, group="report", exit_on_error=False)
    def report_job(self, files: list[str], pairs: list[tuple[str, str]]) -> None:
        import os
        import webbrowser

        from workbench.core.errors import InputError
        from workbench.report.page import write_report

        out = self.view.ws.records_dir / REPORT_NAME
        paths = files or [str(p) for p in record_files(self.view.ws)]
        if not paths:
            self.post_message(ReportWritten(str(out), error="no records files to report on"))
            return
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
            written = write_report(paths, out, pairs, lenient=True)
        except (InputError, OSError) as exc:
            self.post_message(ReportWritten(str(out), error=str(exc)))
            return
        display = any(os.environ.get(v) for v in ("DISPLAY", "WAYLAND_DISPLAY"))
        opened = display and webbrowser.open(written.path.resolve().as_uri())
        self.post_message(ReportWritten(str(written.path), written.runs, bool(opened)))

    @on(ReportWritten)
    def report_written(self, message: ReportWritten) -> None:
        status = self.query_one("#report-status", Static)
        if message.error is not None:
            status.update(f"[red]no report: {escape(message.error)}[/red]")
            return
        how = "opened in your browser" if message.opened else "open it in a browser"
        status.update(f"report: {escape(message.path)} ({message.runs} runs) · {how}")

    def action_load(self) -> None:
        self.read_job([Path(p.strip()) for p in self.query_one("#files", Input).value.split(",") if p.strip()])

    @on(ComparisonRead)
    def comparison_read(self, message: ComparisonRead) -> None:
        if message.listed:
            self.query_one("#files", Input).value = ",".join(message.paths)
        self.summary, self.funnel, self.confusion = message.summary, message.funnel, message.confusion
        labels = arm_labels(self.summary)
        options = [(label, key) for key, label in labels.items()]
        picked = [self.query_one(sel, Select).value for sel in ("#arm-a", "#arm-b")]
        with self.prevent(Select.Changed):
            for sel in ("#arm-a", "#arm-b"):
                self.query_one(sel, Select).set_options(options)
            keys = [key for _, key in options]
            if not message.first and all(p in keys for p in picked):  # a re-read keeps the arms picked
                self.query_one("#arm-a", Select).value, self.query_one("#arm-b", Select).value = picked
            elif len(options) >= 2:
                self.query_one("#arm-a", Select).value = options[0][1]
                self.query_one("#arm-b", Select).value = options[1][1]
        self.action_compare()
        if message.listed and message.first:  # the first read, on mount: the table takes the focus
            self.query_one(DataTable).focus(scroll_visible=False)

    @on(Input.Submitted, "#files")
    def files_given(self) -> None:
        self.action_load()

    @on(Select.Changed)
    def action_compare(self) -> None:
        a, b = self.query_one("#arm-a", Select).value, self.query_one("#arm-b", Select).value
        table = self.query_one(DataTable)
        narrow = self.app.size.width < NARROW
        table.clear(columns=True)
        table.header_height = 2 if narrow else 1
        keys = table.add_columns(*(h.removesuffix(" [CI]").replace("paired p", "paired\np") if narrow else h
                                   for h in HEADERS))
        rate = (lambda hits, n: rate_text(hits, n, ci=False)) if narrow else rate_text
        if a in (Select.NULL, None) or b in (Select.NULL, None):
            self.query_one("#plot", Static).update("pick two arms (the records need at least two)")
            return
        plot: list[str] = []
        for row in self.summary.compare(str(a), str(b)):
            key = next(k for k in self.summary.cells if k[1] == a and k[2] == row["target"] and k[3] == row["kind"]
                       and k[0].host == row["host"] and (k[0].script or None) == row["script_digest"]
                       and (k[0].model or None) == row["model"] and (k[0].effort or None) == row["effort"])
            cell_a, cell_b = self.summary.cells[key], self.summary.cells[(key[0], str(b), key[2], key[3])]
            delta = "-" if row["delta_pp"] is None else f"{row['delta_pp']:+.1f}"
            flaky = sorted(set(f for c in (cell_a, cell_b) for f, h in c.hits_by_case().items() if stats.flaky(h)))
            script = script_label(key[0], cell_a.script_names)
            host = escape(row["host"] + (f" · {script}" if script else ""))
            if narrow:  # host, script's name and digest one under another
                host = host.replace(" · ", "\n").replace(" (", "\n(")
            table.add_row(host, row["target"], "all", delta, f"{row['mcnemar_p']:.3f}",
                          rate(row["hits_a"], row["valid_a"]), rate(row["hits_b"], row["valid_b"]),
                          "FLAKY" if flaky else "", height=None)
            by_a, by_b = cell_a.hits_by_case(), cell_b.hits_by_case()
            for case in sorted(set(by_a) | set(by_b)):
                ha, hb = by_a.get(case, []), by_b.get(case, [])
                d = stats.delta_pp(sum(ha), len(ha), sum(hb), len(hb))
                table.add_row("", "", clip(case, 18) if narrow else case, "-" if d is None else f"{d:+.1f}", "",
                              rate(sum(ha), len(ha)), rate(sum(hb), len(hb)),
                              "FLAKY" if stats.flaky(ha) or stats.flaky(hb) else "")
            plot.append(f"{escape(row['target'][:16]):<16} A {interval_bar(row['hits_a'], row['valid_a'], 30)} "
                        f"{rate_text(row['hits_a'], row['valid_a'])}")
            plot.append(f"{'':<16} B {interval_bar(row['hits_b'], row['valid_b'], 30)} "
                        f"{rate_text(row['hits_b'], row['valid_b'])}")
        if narrow and "FLAKY" not in map(str, table.get_column(keys[-1])):
            table.remove_column(keys[-1])  # an empty flaky column would be cut at the table's edge
        self.query_one("#plot", Static).update("\n".join(plot) or "no target was run by both arms")
        self.query_one("#views", Static).update(escape("\n".join(views_text(self.funnel, self.confusion,
                                                                            (str(a), str(b))))))


def views_text(funnel_rows: list[dict[str, Any]], confusion_rows: list[dict[str, Any]],
               arms: tuple[str, str]) -> list[str]:
    """Per arm: its funnel (offered → loaded → opened → read before) and, per case, the procedures its
    runs opened with siblings marked; rows come from `core.report`, only laid out here."""
    out: list[str] = []
    for side, key in zip("AB", arms, strict=True):
        for r in (r for r in funnel_rows if (r["source"] or r["arm"]) == key):
            out.append(f"{side} funnel ({r['host']}): {r['runs']} runs → offered {r['offered']} → loaded "
                       f"{r['loaded']} → opened {r['opened']} → read before {r['read_before']}")
        for r in (r for r in confusion_rows if (r["source"] or r["arm"]) == key):
            opened = "; ".join(f"{f}{'' if f in r['targets'] else ' (sibling)'} {n}/{r['runs']}"
                               for f, n in r["opened"].items()) or "none"
            out.append(f"{side} {r['case']}: opened {opened}"
                       + (f" · sibling instead {r['sibling_instead']}" if r["sibling_instead"] else ""))
    return out

