"""The workbench's Table keeps its header's column widths equal to its rows' (Textual's DataTable can
keep a header drawn before its new rows were measured)."""

from __future__ import annotations

import asyncio

import pytest
from textual.app import App, ComposeResult
from textual.widgets import DataTable

from workbench.tui.screentext import screen_text
from workbench.tui.widgets.table import Table


class OneTable(App[None]):
    def __init__(self, kind: type[DataTable]) -> None:  # type: ignore[type-arg]
        super().__init__()
        self.kind = kind

    def compose(self) -> ComposeResult:
        yield self.kind(id="t")

    def on_mount(self) -> None:
        self.query_one("#t", DataTable).add_columns("row", "host")


async def header_and_first_row(kind: type[DataTable]) -> tuple[int, int]:  # type: ignore[type-arg]
    """Where the `host` column starts in the header and in the first row, after rows were added and
    the header drawn before the table measured them (as a busy machine orders it)."""
    app = OneTable(kind)
    async with app.run_test(size=(60, 8)) as pilot:
        await pilot.pause()
        table = app.query_one("#t", DataTable)
        table.add_row("dependency-update", "claude")
        table.render_line(0)  # the header is drawn now, before the idle that measures the new row
        await pilot.pause()
        await pilot.wait_for_scheduled_animations()
        lines = screen_text(app).split("\n")
        return lines[0].index("host"), lines[1].index("claude")


@pytest.mark.parametrize(("kind", "aligned"), [(Table, True), (DataTable, False)], ids=["Table", "DataTable"])
def test_the_header_takes_the_rows_widths(kind: type[DataTable], aligned: bool) -> None:  # type: ignore[type-arg]
    """Table: the header's `host` sits over the rows' host. The plain DataTable shows the race this
    guards against (if Textual fixes it, this half fails and Table can go)."""
    header, row = asyncio.run(header_and_first_row(kind))
    assert (header == row) is aligned, (header, row)
