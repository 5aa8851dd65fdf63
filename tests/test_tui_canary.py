"""Pilot tests of the canary flow on the REAL sim host (no mocks): rows → `c` → calls → verdict, and cancel."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, Static
from tui_support import canary_on, host_groups, make_workspace, run_async, shown, wait_for

from workbench.core.records import load_file
from workbench.modelstub import parse_script
from workbench.tui.app import make_app
from workbench.tui.messages import HostEventsSeen, RunScored
from workbench.tui.screens.canary import CanaryScreen
from workbench.tui.screentext import screen_text
from workbench.tui.widgets.callpane import CallPane

pytestmark = pytest.mark.bwrap  # runs go through a door confined (the default); see docs/testing.md


@run_async
async def test_c_on_a_row_runs_its_first_positive_case_live_to_a_verdict(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    app = make_app(ws)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        table = app.screen.query_one("#rows", DataTable)
        assert table.row_count == len(app.view.rows) > 3
        assert "commit" in screen_text(app) and "pull-request" in screen_text(app)
        row = app.view.rows[table.cursor_row]
        case = app.view.first_positive(row.id)
        assert case is not None, "the first screen starts on a row that has a positive case"
        await pilot.press("c")
        await wait_for(pilot, app, "RunScored")
        await pilot.pause(0.2)
        kinds = app.kinds()
        assert kinds.index("CanaryRequested") < kinds.index("RunPathsKnown") < kinds.index("HostEventsSeen")
        assert kinds.index("HostEventsSeen") < kinds.index("RunScored")
        scored = next(m for m in app.journal if isinstance(m, RunScored))
        record = scored.record
        assert record.case_id == case.id and record.host == "sim"
        assert all(isinstance(m.run_id, int) for m in app.journal if isinstance(m, HostEventsSeen))
        screen = app.screen
        assert isinstance(screen, CanaryScreen)
        pane = screen.query_one(CallPane)
        assert pane.state is not None and pane.keys == pane.state.order and len(pane.keys) >= 1
        assert all(card.finished for card in pane.state.cards.values())
        assert {c.call.index for c in pane.state.cards.values()} >= {c.index for c in record.calls}
        verdict = str(screen.query_one("#verdict", Static).render())
        assert record.overall is not None and record.overall in verdict
        assert record.overall in screen_text(app)
        written = load_file(ws.records_dir / "canary.jsonl").records
        assert [r.case_id for r in written] == [case.id] and written[0].overall == record.overall


@run_async
async def test_a_result_expands_with_enter(tmp_path: Path) -> None:
    app = make_app(make_workspace(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("c")
        await wait_for(pilot, app, "RunScored")
        await pilot.pause(0.2)
        pane = app.screen.query_one(CallPane)
        assert pane.state is not None
        with_result = [i for i, k in enumerate(pane.keys) if pane.state.cards[k].call.result]
        assert with_result
        pane.focus()
        pane.cursor = with_result[0]
        key = pane.keys[with_result[0]]
        lines = pane.virtual_size.height
        await pilot.press("enter")
        await pilot.pause()
        assert key in pane.expanded
        result = pane.state.cards[key].call.result or ""
        assert pane.virtual_size.height >= lines, "the expanded card takes at least its collapsed lines"
        assert " ".join(result.split())[:20] in " ".join(screen_text(app).split())
        await pilot.press("enter")
        await pilot.pause()
        assert key not in pane.expanded and pane.virtual_size.height == lines


SLEEP = {"steps": [{"calls": [{"read": "{repo}/README.md"}]}, {"calls": [{"shell": "sleep 120"}]},
                   {"calls": [{"edit": {"path": "{repo}/README.md", "old": "greeter", "new": "x"}}]}]}


@run_async
async def test_cancel_kills_the_host_process_group_and_records_the_run_as_invalid(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    app = make_app(ws)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await canary_on(pilot, app, "docs-readme-section", SLEEP)
        await pilot.press("ctrl+r")
        await wait_for(pilot, app, "HostEventsSeen")
        job = screen.job
        assert job is not None
        while job.run_dir is None:
            await pilot.pause(0.05)
        while not host_groups(job.run_dir):
            await pilot.pause(0.05)
        groups = host_groups(job.run_dir)
        await pilot.press("x")
        await wait_for(pilot, app, "RunCancelled")
        await wait_for(pilot, app, "RunScored")
        for pgid in groups:
            assert not Path(f"/proc/{pgid}").exists() or "Z" in Path(f"/proc/{pgid}/stat").read_text().split()[2]
        scored = next(m for m in app.journal if isinstance(m, RunScored))
        assert scored.record.valid is False and scored.record.invalid_reason == "cancelled"
        assert not any(c.kind == "edit" for c in scored.record.calls), "the run stopped before its edit"
        assert load_file(ws.records_dir / "canary.jsonl").records[0].invalid_reason == "cancelled"


@run_async
async def test_a_text_only_negative_shows_the_models_text_the_end_rule_and_one_verdict(tmp_path: Path) -> None:
    app = make_app(make_workspace(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await shown(pilot, app, "canary", CanaryScreen)
        screen.query_one("#case", expect_type=None).value = "negative-explain-app"  # type: ignore[attr-defined]
        screen.script = parse_script({"steps": [{"say": "The app prints a greeting and exits."}]})
        await pilot.pause()
        await pilot.press("ctrl+r")
        await wait_for(pilot, app, "RunScored")
        await pilot.pause(0.2)
        record = next(m for m in app.journal if isinstance(m, RunScored)).record
        text = " ".join(screen_text(app).split())  # lines wrap at 80 columns
        verdict = str(screen.query_one("#verdict", Static).render())
    assert record.valid and record.overall == "clean" and not record.calls
    assert "end of run: no tool call · the moment (end) came" in text and "The app prints a greeting" in text
    assert "verdict:  clean" in verdict or "verdict: clean" in " ".join(verdict.split())
    assert "no-output" not in verdict and verdict.count("→") == 1, verdict
    assert "negative-explain-app" in text and "moment" in text, "the context line stays after the run"


@run_async
async def test_cancel_during_start_up_ends_the_run_within_a_second(tmp_path: Path) -> None:
    """`x` right after `ctrl+r` (the confined run's proof, fixture and copy still to come): the run is
    recorded invalid `cancelled` within a second, and no host process was started."""
    import threading
    import time

    ws = make_workspace(tmp_path)
    app = make_app(ws)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await canary_on(pilot, app, "docs-readme-section", SLEEP)
        screen.set_focus(None)
        await pilot.press("ctrl+r")
        pressed = time.monotonic()
        await pilot.press("x")
        await wait_for(pilot, app, "RunScored", cap=60)
        waited = time.monotonic() - pressed
        scored = next(m for m in app.journal if isinstance(m, RunScored))
        assert scored.record.invalid_reason == "cancelled" and not scored.record.calls
        assert "HostEventsSeen" not in app.kinds(), "a host ran after x"
        assert waited < 1.0, f"the cancel took {waited:.1f} s"
        while any(t.name == "proof" for t in threading.enumerate()):  # the proof it left ends in its thread
            await pilot.pause(0.05)
