"""Sessions: the author's past real sessions, read from the host's session stores, beside the lab.

A worker fills the door's form (`runner.sessions.SessionsForm`), runs `sessions_setup` and
`read_sessions` off the UI thread and posts one `SessionsRead` message; the handler only renders
what the runner computed (the table's text is `runner.sessions.row_cells`, as on the CLI).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.markup import escape
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Input, Select, Static

from workbench.core.hostinfo import SESSION_HOSTS
from workbench.runner.sessions import TABLE_HEADER, SessionsForm, SessionsResult, parse_since, row_cells
from workbench.tui.fit import short_session, stacked
from workbench.tui.messages import WorkbenchMessage
from workbench.tui.widgets.table import Table
from workbench.tui.workers import ForwardsWorkerErrors

if TYPE_CHECKING:
    from workbench.core.workspace import Workspace
    from workbench.tui.app import WorkbenchApp

ALL = "all"


class SessionsRead(WorkbenchMessage):
    """The sessions worker's answer: what the runner read and scored (or the one-line error)."""

    def __init__(self, result: SessionsResult | None, error: str | None = None) -> None:
        super().__init__()
        self.result = result
        self.error = error


def read_for(workspace: Workspace, form: SessionsForm) -> SessionsRead:
    """The door's work for one form (worker thread): set-up, read, score; a bad form is one line."""
    from workbench.core.errors import InputError
    from workbench.runner.sessions import read_sessions, sessions_setup

    try:
        return SessionsRead(read_sessions(sessions_setup(workspace, form)))
    except InputError as exc:
        return SessionsRead(None, str(exc))


class SessionsScreen(ForwardsWorkerErrors, Screen[None]):
    """Pick hosts, a HOME and a span; ctrl+r reads the sessions and shows each row: sessions vs lab."""

    BINDINGS = [Binding("ctrl+r", "read", "read sessions")]

    app: WorkbenchApp

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(classes="form"):
            yield Select([(h, h) for h in (ALL, *SESSION_HOSTS)], value=ALL, allow_blank=False, id="ss-host")
            yield Input(value=str(Path.home()), placeholder="HOME holding the session stores", id="ss-home")
            yield Input(placeholder="since (7d, 12h)", id="ss-since")
        yield Static("read-only: your sessions are read, never changed; ctrl+r reads.", id="ss-status")
        yield Table(id="ss-table", zebra_stripes=True, header_height=2)
        yield Table(id="ss-sessions", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        self.title = "Sessions"
        self.sub_title = self.app.workspace_label
        self.query_one("#ss-table", DataTable).add_columns(*map(stacked, TABLE_HEADER))  # fits 80 columns
        self.query_one("#ss-sessions", DataTable).add_columns("host", "session", "row", "verdict", "offered")

    def form(self) -> SessionsForm:
        """The form from the fields (`--since` parsed as on the CLI)."""
        host = str(self.query_one("#ss-host", Select).value)
        since = self.query_one("#ss-since", Input).value.strip() or None
        home = self.query_one("#ss-home", Input).value.strip()
        return SessionsForm(hosts=SESSION_HOSTS if host == ALL else (host,), home=Path(home) if home else None,
                            since=parse_since(since))

    def action_read(self) -> None:
        from workbench.core.errors import InputError

        try:
            form = self.form()
        except InputError as exc:
            self.query_one("#ss-status", Static).update(f"[red]{escape(str(exc))}[/red]")
            return
        self.query_one("#ss-status", Static).update("reading sessions …")
        self.read_job(form)

    @work(thread=True, exclusive=True, group="sessions", exit_on_error=False)
    def read_job(self, form: SessionsForm) -> None:
        self.post_message(read_for(self.app.view.ws, form))

    @on(SessionsRead)
    def show(self, message: SessionsRead) -> None:
        status = self.query_one("#ss-status", Static)
        if message.result is None:
            status.update(f"[red]{escape(message.error or 'could not read')}[/red]")
            return
        result = message.result
        table = self.query_one("#ss-table", DataTable)
        table.clear()
        for row in result.table:
            table.add_row(*row_cells(row))
        sessions = self.query_one("#ss-sessions", DataTable)
        sessions.clear()
        for s in result.scores:
            offered = {True: "yes", False: "never", None: "?"}[s.offered]
            sessions.add_row(s.record.host, short_session(s.record.case_id or "-"), s.target.row,
                             s.record.overall or "-", offered)
        warned = f" · {len(result.warnings)} warning(s): {escape(result.warnings[0])}" if result.warnings else ""
        status.update(f"{result.read} session(s) read{warned}")
