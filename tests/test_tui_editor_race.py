"""The Rows editor never drops keys typed while a highlight of the same row is still queued (the
arrow-key race the tmux test hit under load), and it holds the row's wording at the first paint."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import TextArea
from tui_support import make_workspace, run_async

from workbench.tui.app import make_app
from workbench.tui.screens.rows import RowsScreen


@run_async
async def test_a_late_highlight_of_the_row_keeps_what_was_just_typed(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    app = make_app(ws)
    async with app.run_test(size=(80, 24)) as pilot:
        rows = app.screen
        assert isinstance(rows, RowsScreen)
        row = rows.selected
        assert row is not None
        editor = rows.query_one("#editor", TextArea)
        assert editor.text == row.text, "the editor holds the row from the start"
        editor.focus()
        editor.move_cursor((0, 2))
        editor.insert("Always: ")  # typed: its Changed message is queued, not handled yet
        rows.highlighted()  # a highlight of the same row handled first (the order seen under load)
        await pilot.pause()
        assert editor.text.startswith("| Always: "), editor.text
        assert rows.unsaved() == [row.id]
