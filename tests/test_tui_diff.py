"""Rows `d`: the selected row's draft against its baseline wording, through the real TUI (Pilot)."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable, TextArea
from tui_support import linted, make_workspace, run_async

from workbench.tui.app import make_app
from workbench.tui.screens.diff import DiffScreen
from workbench.tui.screens.rows import RowsScreen
from workbench.tui.screentext import screen_text


@run_async
async def test_d_shows_the_draft_word_diff_with_markers_not_colour_only(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    app = make_app(ws)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        rows = app.screen
        assert isinstance(rows, RowsScreen)
        table = rows.query_one("#rows", DataTable)
        table.move_cursor(row=table.get_row_index("ops/docs"))
        await pilot.pause()
        editor = rows.query_one("#editor", TextArea)
        editor.load_text(editor.text.replace("Before editing documentation", "Before writing documentation"))
        await linted(pilot, app)
        await pilot.pause()
        table.focus()
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, DiffScreen)
        text = screen_text(app)
        assert "[-editing-]{+writing+}" in text, text
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is rows
        editor.load_text(editor.text.replace("writing", "editing"))  # back to the file's wording
        await linted(pilot, app)
        await pilot.pause()
        table.focus()
        await pilot.press("d")
        await pilot.pause()
        assert "no change" in screen_text(app)


@run_async
async def test_d_on_a_row_with_an_arm_diffs_the_arms_wording_against_the_baseline(tmp_path: Path) -> None:
    """No draft, one arm: `d` reads the arm's row from its commit (a worker) and shows it word by word."""
    from tui_support import wait_for

    from workbench.authoring.arms import create_arm

    ws = make_workspace(tmp_path)
    create_arm(ws, "docs", "docs-weak", trigger="Documentation")
    app = make_app(ws)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, app, "ArmsRead")
        rows = app.screen
        assert isinstance(rows, RowsScreen)
        table = rows.query_one("#rows", DataTable)
        table.move_cursor(row=table.get_row_index("ops/docs"))
        await pilot.pause()
        table.focus()
        await pilot.press("d")
        await wait_for(pilot, app, "ArmRowRead", cap=20)
        await pilot.pause()
        assert isinstance(app.screen, DiffScreen)
        text = screen_text(app)
        assert "ops/docs: baseline → arm docs-weak" in text, text
        assert "[-Before editing documentation-]{+Documentation+}" in " ".join(text.split()), text
