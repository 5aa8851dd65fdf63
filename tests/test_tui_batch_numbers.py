"""The batch table is the records file's summary for the plan: raising runs 1 -> 2 shows 2 runs per
cell (not only the new one), the records file is named, a re-run of a finished plan keeps its totals."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable, Input, Static
from tui_support import fill_batch_form, make_workspace, run_async, shown, wait_for

from workbench.authoring.arms import create_arm
from workbench.core.records import load_file
from workbench.tui.app import make_app
from workbench.tui.screens.batch import BatchScreen

CASE = "docs-readme-section"


def cells(table: DataTable) -> dict[tuple[str, str], str]:
    return {(str(table.get_row_at(i)[1]), str(table.get_row_at(i)[4])): str(table.get_row_at(i)[2])
            for i in range(table.row_count)}


@run_async
async def test_raising_runs_shows_the_files_totals_for_the_plan(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    create_arm(ws, "docs", "docs-weak", trigger="Documentation")
    app = make_app(ws)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await shown(pilot, app, "batch", BatchScreen)
        fill_batch_form(screen, CASE, jobs="1")
        table = screen.query_one("#batch-results", DataTable)
        for n, runs in enumerate(("1", "2", "2"), start=1):
            screen.query_one("#runs", Input).value = runs
            await pilot.pause()
            await pilot.press("ctrl+r")
            await wait_for(pilot, app, "BatchFinished", count=n, cap=300)
            await pilot.pause(0.2)
            on_screen = cells(table)
            assert set(on_screen) == {("baseline", CASE), ("docs-weak", CASE)}
            assert all(text.split()[0].endswith(f"/{runs}") for text in on_screen.values()), (runs, on_screen)
            status = str(screen.query_one("#batch-status", Static).render())
            assert f"{2 * int(runs)} record(s) of this plan in" in status and "batch.jsonl" in status, status
    assert len(load_file(ws.records_dir / "batch.jsonl").records) == 4, "the re-run ran nothing new"
