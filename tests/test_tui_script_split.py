"""Pilot: records of two scripts (written by a real sim batch, arms A and B) are two rows per target on
Compare and name their script on Records; one merged row per target was the "1/2 FLAKY" bug."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

from batch_support import config, make_world
from textual.widgets import DataTable
from tui_support import make_workspace, run_async, wait_for

from workbench.modelstub import load_script
from workbench.runner.batch import run_batch
from workbench.tui.app import make_app
from workbench.tui.screens.compare import CompareScreen
from workbench.tui.screens.records import RecordsScreen


def two_script_records(tmp: Path) -> Path:
    """A batch with script edit-first.json, then the same plan with say-only.json (resume)."""
    w = make_world(tmp / "world")
    edit = {"edit": {"path": "{repo}/README.md", "old": "# greeter", "new": "# greeter!"}}
    for name, steps in (("edit-first.json", [{"calls": [edit]}, {"say": "Done."}]),
                        ("say-only.json", [{"say": "Nothing to do."}])):
        path = tmp / name
        path.write_text(json.dumps({"steps": steps}), encoding="utf-8")
        result = run_batch(replace(config(w, confined=False, cases=1), script=load_script(path), resume=True))
        assert result.complete and result.outcomes
    return w.record


def column(table: DataTable, index: int) -> list[str]:
    return [str(table.get_row_at(i)[index]) for i in range(table.row_count)]


@run_async
async def test_compare_and_records_split_by_script(tmp_path: Path) -> None:
    record = two_script_records(tmp_path)
    ws = make_workspace(tmp_path)
    ws.records_dir.mkdir()
    shutil.copy(record, ws.records_dir / "batch.jsonl")
    app = make_app(ws)
    async with app.run_test(size=(200, 50)) as pilot:
        await app.action_show("compare")
        await wait_for(pilot, app, "ComparisonRead")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        hosts = [h for h in column(screen.query_one("#compare-table", DataTable), 0) if h]
        assert len(hosts) == 2, hosts  # one target, one row per script
        assert any("edit-first.json" in h for h in hosts) and any("say-only.json" in h for h in hosts)
        await app.action_show("records")
        await wait_for(pilot, app, "RecordsRead")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RecordsScreen)
        hosts = column(screen.query_one(DataTable), 0)
        assert len(hosts) == 4 and sorted({h.split(" · ")[1].split(" (")[0] for h in hosts}) == [
            "edit-first.json", "say-only.json"]
