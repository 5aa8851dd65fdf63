"""Pilot test of the Sessions screen on session files the pinned Claude Code wrote: the worker
reads them, the screen shows the runner's table (the same cells as the CLI's) and the sessions."""

from __future__ import annotations

from pathlib import Path

from test_sessions import rooted
from textual.widgets import DataTable, Input, Select
from tui_support import make_workspace, run_async, shown, wait_for

from workbench.runner.sessions import SessionsForm, read_sessions, row_cells, sessions_setup
from workbench.tui.app import make_app
from workbench.tui.screens.sessions import SessionsScreen


@run_async
async def test_sessions_screen_shows_rows_beside_the_lab(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    home = rooted("claude-reads-then-commits", tmp_path / "run")
    rooted("claude-commits-unread", tmp_path / "run")
    app = make_app(ws)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await shown(pilot, app, "sessions", SessionsScreen)
        screen.query_one("#ss-host", Select).value = "claude"
        screen.query_one("#ss-home", Input).value = str(home)
        await pilot.press("ctrl+r")
        await wait_for(pilot, app, "SessionsRead")
        await pilot.pause()
        table = screen.query_one("#ss-table", DataTable)
        shown_rows = [tuple(str(c) for c in table.get_row_at(i)) for i in range(table.row_count)]
        expected = read_sessions(sessions_setup(ws, SessionsForm(hosts=("claude",), home=home))).table
        assert shown_rows == [row_cells(t) for t in expected]
        commit = next(r for r in shown_rows if r[0] == "commit")
        assert commit[2] == "1/2 (50%)"
        sessions = screen.query_one("#ss-sessions", DataTable)
        verdicts = {str(sessions.get_row_at(i)[3]) for i in range(sessions.row_count)}
        assert {"fired", "skip"} <= verdicts
