"""Pilot tests of the draft-first loop on the REAL sim host: the wording being edited is what `c`
runs (in the run's plugin copy only), drafts survive cursor moves, `q` asks, saving warns about a
dangling link and refuses a taken name in the dialog, `b` on a row without an arm says so."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable, Input, Select, Static, TextArea
from tui_support import edit_wording, make_workspace, run_async, select_row, wait_for

from workbench.core.records import load_file
from workbench.modelstub import parse_script
from workbench.tui.app import make_app
from workbench.tui.messages import RunScored
from workbench.tui.screens.batch import BatchScreen
from workbench.tui.screens.canary import CanaryScreen
from workbench.tui.screens.confirm import ConfirmScreen
from workbench.tui.screens.rows import ArmNameScreen, RowsScreen
from workbench.tui.screentext import screen_text

OLD = "Before editing documentation"
NEW = "Before writing any documentation change"
SHOW_SKILL = {"steps": [{"calls": [{"shell": "grep -o 'Before [a-z ]*documentation[a-z ]*' {plugin}/skills/ops/SKILL.md"}]}]}


@run_async
async def test_c_runs_the_unsaved_draft_in_the_runs_copy_only(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    skill = ws.plugin_dir / "skills/ops/SKILL.md"
    before = skill.read_text()
    app = make_app(ws)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await edit_wording(pilot, app, "ops/docs", OLD, NEW)
        rows = app.screen
        assert isinstance(rows, RowsScreen) and rows.unsaved() == ["ops/docs"]
        await select_row(pilot, app, "ops/commit")  # moving away keeps the draft ...
        await select_row(pilot, app, "ops/docs")
        assert NEW in rows.query_one("#editor", TextArea).text, "... and moving back shows it again"
        assert "●" in screen_text(app) and "modified" in screen_text(app)
        canary = app.get_screen("canary")
        assert isinstance(canary, CanaryScreen)
        canary.script = parse_script(SHOW_SKILL)
        rows.query_one("#rows", DataTable).focus()
        await pilot.press("c")
        await wait_for(pilot, app, "RunScored")
        record = next(m for m in app.journal if isinstance(m, RunScored)).record
        assert record.arm == "draft" and record.source is not None and record.source.startswith("draft-")
        assert NEW in (record.calls[0].result or ""), "the host saw the draft's wording"
        assert "arm draft of ops/docs (unsaved)" in screen_text(app), "the context line names the draft"
    assert skill.read_text() == before, "the user's file is never written"
    assert load_file(ws.records_dir / "canary.jsonl").records[0].source == record.source


@run_async
async def test_q_asks_before_throwing_drafts_away(tmp_path: Path) -> None:
    app = make_app(make_workspace(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await edit_wording(pilot, app, "ops/docs", OLD, NEW)
        app.screen.query_one("#rows", DataTable).focus()
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert "1 unsaved draft(s): ops/docs" in screen_text(app)
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, RowsScreen) and app.is_running


@run_async
async def test_saving_warns_about_a_dangling_link_and_refuses_a_taken_name(tmp_path: Path) -> None:
    from workbench.authoring.arms import create_arm

    ws = make_workspace(tmp_path)
    create_arm(ws, "docs", "docs-1", trigger="Documentation")
    app = make_app(ws)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await edit_wording(pilot, app, "ops/docs", "workflows/docs.md", "workflows/no-such.md")
        assert "DANGLING" in str(app.screen.query_one("#findings", Static).render())
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen) and "does not exist" in screen_text(app)
        await pilot.press("y")
        await pilot.pause()
        assert isinstance(app.screen, ArmNameScreen)
        app.screen.query_one("#arm-name", Input).value = "docs-1"
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ArmNameScreen), "a taken name keeps the dialog open"
        assert "an arm named docs-1 exists" in screen_text(app) and "--force" not in screen_text(app)


@run_async
async def test_b_on_a_row_without_an_arm_says_so(tmp_path: Path) -> None:
    from workbench.authoring.arms import create_arm

    ws = make_workspace(tmp_path)
    create_arm(ws, "docs", "docs-weak", trigger="Documentation")
    app = make_app(ws)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await select_row(pilot, app, "ops/commit")
        await pilot.press("b")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, BatchScreen)
        assert screen.query_one("#arm", Select).value in (Select.NULL, None), "never another row's arm"
        assert "has no arm yet" in screen_text(app)
