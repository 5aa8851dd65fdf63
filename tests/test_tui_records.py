"""Pilot: records filter by verdict and validity, and a miss's calls are one keypress away."""

from __future__ import annotations

from pathlib import Path

from test_tui_snapshots import records
from textual.widgets import DataTable, Select
from tui_support import make_workspace, run_async

from workbench.tui.app import make_app
from workbench.tui.screens.calls import CallsScreen
from workbench.tui.screens.records import RecordsScreen
from workbench.tui.widgets.callpane import CallPane


@run_async
async def test_filter_then_enter_opens_the_runs_calls(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    ws.records_dir.mkdir()
    records(ws.records_dir / "batch.jsonl")
    app = make_app(ws)
    async with app.run_test(size=(120, 40)) as pilot:
        await app.action_show("records")
        await pilot.pause(0.2)
        screen = app.screen
        assert isinstance(screen, RecordsScreen)
        assert screen.query_one(DataTable).row_count == 12
        screen.query_one("#f-verdict", Select).value = "skip"
        await pilot.pause(0.2)
        assert screen.query_one(DataTable).row_count == 5
        assert {r.overall for r in screen.shown} == {"skip"}
        screen.query_one("#f-arm").value = "weak"  # type: ignore[attr-defined]
        await pilot.pause(0.2)
        assert [r.arm for r in screen.shown] == ["weak"] * 3
        screen.query_one(DataTable).focus()
        await pilot.press("enter")
        await pilot.pause(0.2)
        calls = app.screen
        assert isinstance(calls, CallsScreen) and calls.record.overall == "skip"
        pane = calls.query_one(CallPane)
        assert len(pane.keys) == 2
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen
