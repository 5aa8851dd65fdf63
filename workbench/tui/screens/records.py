"""Records: open records files, filter by host, arm, case, verdict and validity; enter opens a run's calls."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.markup import escape
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Input, Select, Static

from workbench.core.errors import InputError
from workbench.core.models import VERDICTS, RunRecord
from workbench.core.records import load_files
from workbench.core.summary import arm_label, overall
from workbench.tui.data import record_files
from workbench.tui.fields import invalid_reason
from workbench.tui.widgets.runform import LabelledSelect, labelled

if TYPE_CHECKING:
    from workbench.tui.app import WorkbenchApp


def matches(r: RunRecord, host: str, arm: str, case: str, verdict: object, validity: object) -> bool:
    """Whether R passes the filters (text filters are substrings; blank selects pass everything)."""
    return (host in r.host and arm in (r.arm or "") and case in (r.case_id or r.target)
            and (verdict in (Select.NULL, None) or overall(r) == verdict)
            and (validity in (Select.NULL, None) or r.valid == (validity == "valid")))


class RecordsScreen(Screen[None]):
    """A filterable table of runs; enter shows the selected run's calls."""

    BINDINGS = [Binding("enter", "open", "run's calls"), Binding("ctrl+o", "load", "open file(s)")]

    app: WorkbenchApp

    def __init__(self) -> None:
        super().__init__()
        self.records: list[RunRecord] = []
        self.shown: list[RunRecord] = []
        self.loaded_note = ""

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
        yield DataTable(id="records-table", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        self.title = "Records"
        self.sub_title = self.app.workspace_label
        self.query_one(DataTable).add_columns("host", "arm", "case", "run", "verdict", "calls", "moment", "condition",
                                              "valid")
        files = record_files(self.app.view.ws)
        self.query_one("#files", Input).value = ",".join(str(f) for f in files)
        self.action_load()
        self.query_one(DataTable).focus()

    def open_files(self, paths: list[Path]) -> None:
        """Load PATHS (problems are reported, never fatal) and show them."""
        try:
            loaded = load_files([p for p in paths if p.is_file()], lenient=True)
        except InputError as exc:
            self.notify(str(exc), severity="error")
            return
        self.records = loaded.records
        skipped = f" · {len(loaded.problems)} line(s) skipped" if loaded.problems else ""
        self.loaded_note = f"{len(self.records)} record(s) from {len(paths)} file(s)" + skipped
        self.apply()

    def action_load(self) -> None:
        raw = self.query_one("#files", Input).value
        self.open_files([Path(p.strip()) for p in raw.split(",") if p.strip()])

    @on(Input.Submitted, "#files")
    def files_given(self) -> None:
        self.action_load()

    @on(Input.Changed, ".form Input")
    @on(Select.Changed)
    def apply(self) -> None:
        host, arm, case = (self.query_one(f"#f-{n}", Input).value.strip() for n in ("host", "arm", "case"))
        verdict, valid = self.query_one("#f-verdict", Select).value, self.query_one("#f-valid", Select).value
        self.shown = [r for r in self.records if matches(r, host, arm, case, verdict, valid)]
        table = self.query_one(DataTable)
        table.clear()
        for r in self.shown:
            table.add_row(r.host, escape(arm_label(r.arm, r.source)), r.case_id or r.target, str(r.run), overall(r) or "?",
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
