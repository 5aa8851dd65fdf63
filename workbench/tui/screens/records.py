"""Records: open records files, filter by host, arm, case, verdict and validity; enter opens a run's calls.

The files are read in a worker that then follows them: a record appended by a batch or a canary
(this app's or another terminal's) shows up within `FOLLOW_EVERY` seconds, without a reload."""

from __future__ import annotations

import threading
from pathlib import Path

from rich.markup import escape
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Input, Select, Static
from textual.worker import get_current_worker

from workbench.core.models import VERDICTS, RunRecord
from workbench.core.records import Follower
from workbench.core.summary import arm_label, overall
from workbench.tui.data import WorkspaceView, record_files
from workbench.tui.fields import invalid_reason
from workbench.tui.messages import RecordsRead
from workbench.tui.widgets.runform import LabelledSelect, labelled
from workbench.tui.widgets.table import Table
from workbench.tui.workers import ForwardsWorkerErrors

FOLLOW_EVERY = 1.0
"""Seconds between two looks at the records files for appended lines."""



def matches(r: RunRecord, host: str, arm: str, case: str, verdict: object, validity: object) -> bool:
    """Whether R passes the filters (text filters are substrings; blank selects pass everything)."""
    return (host in r.host and arm in (r.arm or "") and case in (r.case_id or r.target)
            and (verdict in (Select.NULL, None) or overall(r) == verdict)
            and (validity in (Select.NULL, None) or r.valid == (validity == "valid")))


class RecordsScreen(ForwardsWorkerErrors, Screen[None]):
    """A filterable table of runs; enter shows the selected run's calls."""

    BINDINGS = [Binding("enter", "open", "run's calls"), Binding("ctrl+o", "load", "open file(s)")]

    def __init__(self, view: WorkspaceView, label: str = "") -> None:
        super().__init__()
        self.view = view
        """The workspace as the app read it (passed down; the screen never reaches into the app)."""
        self.label = label
        self.records: list[RunRecord] = []
        self.shown: list[RunRecord] = []
        self.loaded_note = ""
        self.paths: list[str] = []
        """The files the records shown were read from."""
        self._left = threading.Event()
        """Set when the screen goes away: the follower's wait ends at once."""

    def compose(self) -> ComposeResult:
        yield Header()
        yield labelled(Input(placeholder="records files (comma-separated paths), ctrl+o opens", id="files"),
                       "records files (enter opens)")
        with Horizontal(classes="form"):
            yield labelled(Input(placeholder="host", id="f-host"), "host")
            yield labelled(Input(placeholder="arm", id="f-arm"), "arm")
            yield labelled(Input(placeholder="case", id="f-case"), "case")
            yield labelled(LabelledSelect([(v, v) for v in VERDICTS], prompt="verdict", id="f-verdict"), "verdict")
            yield labelled(LabelledSelect([("valid", "valid"), ("invalid", "invalid")], prompt="validity",
                                          id="f-valid"), "validity")
        yield Static("", id="records-info")
        yield Table(id="records-table", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        self.title = "Records"
        self.sub_title = self.label
        self.query_one(DataTable).add_columns("host", "arm", "case", "run", "verdict", "calls", "moment", "condition",
                                              "valid")
        self.read_job(None)
        self.query_one(DataTable).focus()

    @work(thread=True, exclusive=True, group="records", exit_on_error=False)
    def read_job(self, paths: list[Path] | None) -> None:
        """Read PATHS (None: the workspace's records files), then post what is appended to them until
        another read replaces this worker; a file replaced or cut short is read again from the start.
        The workspace's own files are listed again on each look: a records file created since (the first
        `live-install.jsonl`) is followed from its start."""
        listed = paths is None
        files = record_files(self.view.ws) if paths is None else paths
        names = [str(p) for p in files]
        worker = get_current_worker()
        appended = False
        follower = Follower(files)
        while not worker.is_cancelled:
            if listed and appended:
                new = [p for p in record_files(self.view.ws) if str(p) not in names]
                follower.follow(new)
                files, names = files + new, names + [str(p) for p in new]
            got = follower.poll()
            if got is None:
                follower, appended = Follower(files), False
                continue
            if got or not appended:
                self.post_message(RecordsRead(got, appended=appended, skipped=follower.skipped, paths=names,
                                              listed=listed))
            appended = True
            if self._left.wait(FOLLOW_EVERY):
                return

    def on_unmount(self) -> None:
        self._left.set()

    @on(RecordsRead)
    def records_read(self, message: RecordsRead) -> None:
        if message.listed and (not message.appended or message.paths != self.paths):
            self.query_one("#files", Input).value = ",".join(message.paths)
        self.paths = message.paths
        if message.appended:
            self.records += message.records
        else:
            self.records = list(message.records)
        skipped = f" · {message.skipped} line(s) skipped" if message.skipped else ""
        self.loaded_note = f"{len(self.records)} record(s) from {len(message.paths)} file(s)" + skipped
        if message.appended:
            self.show(message.records)
        else:
            self.apply()

    def action_load(self) -> None:
        raw = self.query_one("#files", Input).value
        self.read_job([Path(p.strip()) for p in raw.split(",") if p.strip()])

    @on(Input.Submitted, "#files")
    def files_given(self) -> None:
        self.action_load()

    @on(Input.Changed, ".form Input")
    @on(Select.Changed)
    def apply(self) -> None:
        """Show the records that pass the filters, from the top."""
        self.shown = []
        self.query_one(DataTable).clear()
        self.show(self.records)

    def show(self, records: list[RunRecord]) -> None:
        """Add the rows of those of RECORDS that pass the filters below the rows shown."""
        host, arm, case = (self.query_one(f"#f-{n}", Input).value.strip() for n in ("host", "arm", "case"))
        verdict, valid = self.query_one("#f-verdict", Select).value, self.query_one("#f-valid", Select).value
        table = self.query_one(DataTable)
        for r in records:
            if not matches(r, host, arm, case, verdict, valid):
                continue
            self.shown.append(r)
            script = f" · {r.script.name or 'unknown script'} ({(r.script.digest or '?')[:7]})" if r.script else ""
            table.add_row(escape(r.host + script), escape(arm_label(r.arm, r.source)), r.case_id or r.target, str(r.run),
                          overall(r) or "?",
                          str(len(r.calls)), "-" if r.moment_at is None else f"#{r.moment_at}", r.condition,
                          "yes" if r.valid else escape(f"no: {invalid_reason(r)}"))
        self.query_one("#records-info", Static).update(f"{self.loaded_note} · {len(self.shown)} shown")

    def action_open(self) -> None:
        table = self.query_one(DataTable)
        if not self.shown or table.cursor_row >= len(self.shown):
            return
        from workbench.tui.screens.calls import CallsScreen

        self.app.push_screen(CallsScreen(self.shown[table.cursor_row]))

    @on(DataTable.RowSelected)
    def selected(self) -> None:
        self.action_open()
