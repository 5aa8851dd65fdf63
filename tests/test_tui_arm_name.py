"""An invalid arm name is answered in the dialog, in the form's words (no `--name:` flag), and the
dialog stays open for another name (Pilot, real git)."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable, Input, Static, TextArea
from tui_support import linted, make_workspace, run_async

from workbench.tui.app import make_app
from workbench.tui.screens.rows import ArmNameScreen, RowsScreen


@run_async
async def test_an_invalid_arm_name_is_refused_in_the_dialog_without_a_cli_flag(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    app = make_app(ws)
    async with app.run_test(size=(80, 24)) as pilot:
        rows = app.screen
        assert isinstance(rows, RowsScreen)
        editor = rows.query_one("#editor", TextArea)
        editor.load_text(editor.text.replace("Before committing", "Before any commit"))
        await linted(pilot, app)
        await pilot.pause()
        rows.query_one("#rows", DataTable).focus()
        await pilot.press("ctrl+s")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ArmNameScreen)
        dialog.query_one("#arm-name", Input).value = "bad name!"
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is dialog, "the dialog stays open for another name"
        note = str(dialog.query_one("#arm-name-note", Static).render())
        assert "--name" not in note and "arm name 'bad name!'" in note and "type another name" in note, note
