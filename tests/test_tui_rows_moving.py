"""Rows: moving through rows fast never makes a draft (the editor's late Changed is its shown row's)."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import DataTable, TextArea
from tui_support import make_workspace, run_async, until

from workbench.tui.app import WorkbenchApp, make_app
from workbench.tui.messages import CanaryRequested
from workbench.tui.screens.rows import RowsScreen


async def rows_parts(pilot: Pilot[None], app: WorkbenchApp) -> tuple[RowsScreen, DataTable[object], TextArea]:
    """The Rows screen once drawn, its table and its editor."""
    await pilot.pause()
    rows = app.screen
    assert isinstance(rows, RowsScreen)
    return rows, rows.query_one("#rows", DataTable), rows.query_one("#editor", TextArea)


@run_async
async def test_a_changed_message_after_the_cursor_moved_on_makes_no_draft(tmp_path: Path) -> None:
    app = make_app(make_workspace(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        rows, table, editor = await rows_parts(pilot, app)
        table.move_cursor(row=1)
        await pilot.pause()
        second = rows.selected
        assert second is not None and editor.text.strip("\n") == second.text
        table.move_cursor(row=0)  # the cursor is on the first row; the editor still shows the second
        first = rows.selected
        assert first is not None and first.id != second.id and editor.text.strip("\n") != first.text
        rows.edited()  # the editor's Changed of loading the second row, handled only now
        assert rows.unsaved() == [], rows.drafts
        await pilot.pause()
        assert rows.unsaved() == [] and editor.text.strip("\n") == first.text
        editor.load_text(first.text + " now")  # a real edit still makes a draft of the row shown
        await pilot.pause()
        assert rows.unsaved() == [first.id]


@run_async
async def test_save_right_after_the_cursor_moved_saves_the_cursor_rows_own_wording(tmp_path: Path) -> None:
    app = make_app(make_workspace(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        rows, table, editor = await rows_parts(pilot, app)
        table.move_cursor(row=0)
        await pilot.pause()
        first = rows.selected
        assert first is not None
        editor.load_text(first.text + " now")
        await pilot.pause()
        assert rows.unsaved() == [first.id]
        table.move_cursor(row=1)  # ctrl+s before the editor shows the second row
        second = rows.selected
        assert second is not None and second.id != first.id
        rows.action_save()
        await pilot.pause()
        assert not app.screen.query("#arm-name"), "the second row has no draft: nothing to save"
        assert rows.wording(second) == second.text and rows.wording(first) == first.text + " now"


async def typed_unseen(pilot: Pilot[None], app: WorkbenchApp) -> tuple[RowsScreen, str, str]:
    """The first row's editor holding an edit whose Changed message was never handled (a key pressed
    right after typing, under load): the screen, the row id and the edited wording."""
    rows, table, editor = await rows_parts(pilot, app)
    table.move_cursor(row=0)
    await pilot.pause()
    row = rows.selected
    assert row is not None
    with editor.prevent(TextArea.Changed):
        editor.load_text(row.text + " now")
    await pilot.pause()
    assert rows.unsaved() == [], "the Changed was let through: nothing left to catch up"
    return rows, row.id, row.text + " now"


@run_async
async def test_canary_right_after_typing_runs_the_typed_wording(tmp_path: Path) -> None:
    app = make_app(make_workspace(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        rows, row_id, typed = await typed_unseen(pilot, app)
        rows.action_canary()
        await until(pilot, app, lambda: any(isinstance(m, CanaryRequested) for m in app.journal), "a canary asked")
        asked = next(m for m in app.journal if isinstance(m, CanaryRequested))
        assert (asked.row_id, asked.draft) == (row_id, typed)


@run_async
async def test_diff_right_after_typing_shows_the_typed_wording(tmp_path: Path) -> None:
    from workbench.tui.screens.diff import DiffScreen

    app = make_app(make_workspace(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        rows, row_id, typed = await typed_unseen(pilot, app)
        rows.action_diff()
        await pilot.pause()
        assert isinstance(app.screen, DiffScreen), app.screen
        assert (app.screen.new, rows.drafts) == (typed, {row_id: typed})
