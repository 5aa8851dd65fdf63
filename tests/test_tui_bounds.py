"""Pilot: the Batch form shows every cap it is held to (runs per cell, jobs, planned runs) and refuses a
number below 1 or above its cap naming the field, through the same door form as the CLI; nothing starts."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input, Static
from tui_support import fill_batch_form, make_workspace, run_async, shown

from workbench.authoring.arms import create_arm
from workbench.runner.bounds import MAX_JOBS, MAX_PLANNED, MAX_RUNS
from workbench.tui.app import make_app
from workbench.tui.screens.batch import BatchScreen


@run_async
async def test_the_form_shows_the_caps_and_refuses_numbers_outside_them(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    create_arm(ws, "docs", "docs-weak", trigger="Documentation")
    app = make_app(ws)
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await shown(pilot, app, "batch", BatchScreen)
        fill_batch_form(screen, "docs-readme-section")
        runs, jobs = screen.query_one("#runs", Input), screen.query_one("#jobs", Input)
        assert f"runs ≤{MAX_RUNS}" in str(runs.border_title) and f"jobs ≤{MAX_JOBS}" in str(jobs.border_title)
        await pilot.pause()
        estimate = str(screen.query_one("#estimate", Static).render())
        assert f"≤{MAX_PLANNED:,} runs" in estimate, estimate
        for field, typed, says in (("runs", "0", "runs: must be at least 1"),
                                   ("runs", str(MAX_RUNS + 1), f"above the cap of {MAX_RUNS:,}"),
                                   ("jobs", "0", "jobs: must be at least 1"),
                                   ("jobs", str(MAX_JOBS + 1), f"above the cap of {MAX_JOBS}")):
            runs.value, jobs.value = "1", "1"
            screen.query_one(f"#{field}", Input).value = typed
            await pilot.pause()
            estimate = str(screen.query_one("#estimate", Static).render())
            assert says in estimate, (field, typed, estimate)
            screen.set_focus(None)
            await pilot.press("ctrl+r")
            await pilot.pause()
            status = str(screen.query_one("#batch-status", Static).render())
            assert f"not started: {field}:" in status, (field, typed, status)
    assert "BatchStarted" not in app.kinds()
    assert not (ws.records_dir / "batch.jsonl").exists()
