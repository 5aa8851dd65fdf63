"""Rows `d`: the selected row's draft against its baseline wording, through the real TUI (Pilot)."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable, TextArea
from tui_support import make_workspace, run_async

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
        await pilot.pause()
        table.focus()
        await pilot.press("d")
        await pilot.pause()
        assert "no change" in screen_text(app)
