"""Pilot: `/` searches the rows (id, trigger or linked file, any case); typing there never acts."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable, Input
from tui_support import make_workspace, run_async

from workbench.tui.app import make_app
from workbench.tui.screens.rows import RowsScreen


@run_async
async def test_slash_filters_the_rows_and_enter_goes_back_to_them(tmp_path: Path) -> None:
    app = make_app(make_workspace(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RowsScreen)
        table = screen.query_one("#rows", DataTable)
        every = table.row_count
        assert every == len(app.view.rows) > 3
        await pilot.press("slash")
        search = screen.query_one("#row-search", Input)
        assert screen.focused is search and search.display
        await pilot.press(*"CoMMiT")
        await pilot.pause()
        wanted = [r.id for r in app.view.rows
                  if any("commit" in t.lower() for t in (r.id, r.trigger, *(x.target for x in r.links)))]
        assert 0 < len(wanted) < every
        assert [str(k.value) for k in table.rows] == wanted
        assert app.kinds().count("CanaryRequested") == 0, "the c of the query typed, it did not run a canary"
        await pilot.press("enter")
        await pilot.pause()
        assert screen.focused is table and search.display, "the search stays in sight while it filters"
        assert screen.selected is not None and screen.selected.id in wanted
        await pilot.press("slash", "end", "ctrl+u")  # an empty search shows every row again
        await pilot.pause()
        assert table.row_count == every
        await pilot.press("escape")
        await pilot.pause()
        assert screen.focused is table and not search.display
