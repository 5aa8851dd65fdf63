"""Pilot: records filter by verdict and validity, a miss's calls are one keypress away, and a record a
canary appends from another terminal shows up on the open screen."""

from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path

from test_tui_snapshots import records
from textual.widgets import DataTable, Input, Select, Static
from tui_support import make_workspace, run_async, wait_for

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
        await wait_for(pilot, app, "RecordsRead")
        await pilot.pause()
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


@run_async
async def test_a_record_appended_by_a_cli_canary_shows_up_without_a_reload(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    ws.records_dir.mkdir()
    records(ws.records_dir / "canary.jsonl")
    app = make_app(ws)
    async with app.run_test(size=(120, 40)) as pilot:
        await app.action_show("records")
        await wait_for(pilot, app, "RecordsRead")
        screen = app.screen
        assert isinstance(screen, RecordsScreen)
        screen.query_one("#f-case", Input).value = "docs"
        await pilot.pause()
        assert screen.query_one(DataTable).row_count == 6
        exe = shutil.which("workbench", path=str(Path(sys.executable).parent))
        assert exe is not None
        canary = await asyncio.create_subprocess_exec(exe, "canary", "docs-readme-section", "--host", "sim",
                                                      cwd=ws.root, stdout=asyncio.subprocess.DEVNULL,
                                                      stderr=asyncio.subprocess.PIPE)
        _, err = await canary.communicate()
        assert canary.returncode == 0, err.decode()
        await wait_for(pilot, app, "RecordsRead", count=2)  # the follower saw the appended line
        await pilot.pause()
        assert len(screen.records) == 13 and screen.records[-1].condition == "canary"
        assert screen.query_one(DataTable).row_count == 7  # added under the filter, not reloaded
        assert screen.shown[-1] is screen.records[-1]
        assert "13 record(s) from 1 file(s) · 7 shown" in str(screen.query_one("#records-info", Static).render())
