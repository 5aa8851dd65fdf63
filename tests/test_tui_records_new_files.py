"""Pilot: Records and Compare opened on the workspace's records folder pick up a records file created
after they were opened (a canary's first `records/canary.jsonl`, written by the CLI door), no reload."""

from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path

from test_tui_snapshots import records
from textual.widgets import DataTable, Input, Static
from tui_support import make_workspace, run_async, wait_for

from workbench.tui.app import make_app
from workbench.tui.screens.compare import CompareScreen
from workbench.tui.screens.records import RecordsScreen


async def cli_canary(root: Path) -> None:
    """A sim canary through the CLI door, as another terminal would run it (it creates records/canary.jsonl)."""
    exe = shutil.which("workbench", path=str(Path(sys.executable).parent))
    assert exe is not None
    canary = await asyncio.create_subprocess_exec(exe, "canary", "docs-readme-section", "--host", "sim", cwd=root,
                                                  stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
    _, err = await canary.communicate()
    assert canary.returncode == 0, err.decode()


@run_async
async def test_records_follows_a_records_file_created_after_it_opened(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)  # no records folder yet: the canary below makes the first file
    app = make_app(ws)
    async with app.run_test(size=(120, 40)) as pilot:
        await app.action_show("records")
        await wait_for(pilot, app, "RecordsRead")
        screen = app.screen
        assert isinstance(screen, RecordsScreen)
        assert screen.query_one(DataTable).row_count == 0
        await cli_canary(ws.root)
        await wait_for(pilot, app, "RecordsRead", count=2, cap=20)
        await pilot.pause()
        assert [r.condition for r in screen.records] == ["canary"]
        assert screen.query_one(DataTable).row_count == 1
        assert screen.query_one("#files", Input).value.endswith("canary.jsonl")
        assert "1 record(s) from 1 file(s) · 1 shown" in str(screen.query_one("#records-info", Static).render())


@run_async
async def test_compare_reads_again_when_a_records_file_is_created(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    ws.records_dir.mkdir()
    records(ws.records_dir / "batch.jsonl")
    app = make_app(ws)
    async with app.run_test(size=(120, 40)) as pilot:
        await app.action_show("compare")
        await wait_for(pilot, app, "ComparisonRead")
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        before = screen.query_one("#arm-a").value, screen.query_one("#arm-b").value  # type: ignore[attr-defined]
        assert "canary.jsonl" not in screen.query_one("#files", Input).value
        await cli_canary(ws.root)
        await wait_for(pilot, app, "ComparisonRead", count=2, cap=20)
        await pilot.pause()
        assert screen.query_one("#files", Input).value.split(",")[-1].endswith("canary.jsonl")
        assert sum(c.total for c in screen.summary.cells.values()) == 13  # the batch's 12 and the canary
        assert (screen.query_one("#arm-a").value, screen.query_one("#arm-b").value) == before  # type: ignore[attr-defined]
        assert screen.query_one(DataTable).row_count > 0
