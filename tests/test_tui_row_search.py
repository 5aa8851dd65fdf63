"""Row search on Rows: `/` focuses the field, typing filters the table to the rows `workbench rows --search`
finds (the same rows, the same count line), and no key typed there acts (canary, batch, save, drop)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import DataTable, Input, Static
from tui_support import make_workspace, run_async, shown

from workbench.cli import main
from workbench.tui.app import make_app
from workbench.tui.screens.rows import RowsScreen


def cli_rows(ws_root: Path, query: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
             ) -> tuple[list[str], str]:
    """The ids `workbench rows --search QUERY --json` prints, and its count line."""
    monkeypatch.chdir(ws_root)
    capsys.readouterr()
    assert main(["rows", "--search", query, "--json"]) == 0
    out = capsys.readouterr()
    return [r["id"] for r in json.loads(out.out)], out.err.strip()


def table_ids(screen: RowsScreen) -> list[str]:
    table = screen.query_one("#rows", DataTable)
    return [str(k.value) for k in table.rows]


@run_async
async def test_search_filters_rows_as_the_cli_does_and_typing_never_acts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    ws = make_workspace(tmp_path)
    app = make_app(ws)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await shown(pilot, app, "rows", RowsScreen)
        every = table_ids(screen)
        assert len(every) == len(app.view.rows) > 5
        await pilot.press("slash")
        assert screen.query_one("#row-search", Input).has_focus
        journal = len(app.journal)
        await pilot.press(*"before com", "ctrl+s", "ctrl+z")  # `c` `b` `e` are letters of the query here
        await pilot.pause()
        typed = screen.query_one("#row-search", Input).value
        found = table_ids(screen)
        count = str(screen.query_one("#row-count", Static).render())
        assert typed == "before com"
        assert len(app.screen_stack) == 2, "ctrl+s opened no dialog while the search had focus"
        assert not [m for m in list(app.journal)[journal:] if type(m).__name__.endswith("Requested")]
        await pilot.press("escape")
        assert screen.query_one("#rows", DataTable).has_focus
        assert screen.selected is not None and screen.selected.id == found[0]
        screen.query_one("#row-search", Input).value = "no-such-words-anywhere"
        await pilot.pause()
        assert table_ids(screen) == [] and "0 of" in str(screen.query_one("#row-count", Static).render())
        screen.query_one("#row-search", Input).value = ""
        await pilot.pause()
        assert table_ids(screen) == every
    cli, line = cli_rows(ws.root, typed, monkeypatch, capsys)  # the app captures stdout while it runs
    assert found == cli and 0 < len(found) < len(every) and count == line


@run_async
async def test_a_search_keeps_the_cursor_on_its_row_and_the_drafts(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    app = make_app(ws)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await shown(pilot, app, "rows", RowsScreen)
        table = screen.query_one("#rows", DataTable)
        table.move_cursor(row=table.get_row_index("ops/docs"))
        await pilot.pause()
        await pilot.press("e", "end", *" (draft)", "escape")
        await pilot.pause()
        assert "ops/docs" in screen.unsaved()
        screen.query_one("#row-search", Input).value = "doc"
        await pilot.pause()
        assert screen.selected is not None and screen.selected.id == "ops/docs", "the row stays selected"
        screen.query_one("#row-search", Input).value = "commit"
        await pilot.pause()
        screen.query_one("#row-search", Input).value = ""
        await pilot.pause()
        assert screen.unsaved() == ["ops/docs"] and screen.drafts["ops/docs"].endswith(" (draft)")
