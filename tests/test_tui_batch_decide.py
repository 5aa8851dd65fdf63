"""Pilot test of the batch form's until-decided mode: the forecast (from the workspace's earlier
records, computed by a worker) is shown before ctrl+r, and the batch's records carry the stop rule."""

from __future__ import annotations

import shutil
from pathlib import Path

from textual.widgets import DataTable, Static
from tui_support import ROOT, make_workspace, run_async, wait_for

from workbench.core.records import load_file
from workbench.tui.app import make_app
from workbench.tui.messages import BatchFinished, ForecastReady
from workbench.tui.screens.batch import BatchScreen


@run_async
async def test_until_decided_form_shows_the_forecast_then_runs_with_the_rule(tmp_path: Path) -> None:
    from workbench.authoring.arms import create_arm

    ws = make_workspace(tmp_path)
    ws.records_dir.mkdir()
    shutil.copy(ROOT / "records" / "demo-batch.jsonl", ws.records_dir / "earlier.jsonl")
    create_arm(ws, "release", "release-weak", trigger="When ready to ship")
    app = make_app(ws)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        table = app.screen.query_one("#rows", DataTable)
        table.move_cursor(row=table.get_row_index("ops/release"))
        await pilot.pause()
        await pilot.press("b")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, BatchScreen)
        screen.query_one("#confined").value = False  # type: ignore[attr-defined]
        screen.query_one("#runs").value = "2"  # type: ignore[attr-defined]
        before = app.kinds().count("ForecastReady")
        screen.query_one("#until-decided").value = True  # type: ignore[attr-defined]
        await wait_for(pilot, app, "ForecastReady", count=before + 1)
        await pilot.pause(0.2)
        shown = str(screen.query_one("#forecast", Static).render())
        last = [m for m in app.journal if isinstance(m, ForecastReady)][-1]
        form = screen.form()
        runs = len(form.cases) * 2 * 2
        assert last.lines[0].startswith(f"forecast (at most, until decided): {runs} run(s) · ")
        assert "unknown tokens" not in last.lines[0] and last.lines[0] in shown
        await pilot.press("ctrl+r")
        await wait_for(pilot, app, "BatchFinished", cap=300)
        done = next(m for m in app.journal if isinstance(m, BatchFinished))
        assert done.result is not None and done.note.startswith("complete · until-decided")
        records = load_file(ws.records_dir / "batch.jsonl").records
        assert len(records) == runs
        assert {(r.stop_rule.rule, r.stop_rule.max_runs, tuple(r.stop_rule.compare)) for r in records
                if r.stop_rule} == {("until-decided", 2, ("baseline", "release-weak"))}
        assert all(r.stop_rule for r in records)
