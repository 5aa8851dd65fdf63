"""The workbench's DataTable: a DataTable whose header always matches its rows' column widths.

Textual's DataTable measures new rows when idle (`_update_dimensions`) but keys its line caches on a
counter that measuring does not advance, so a header drawn between `add_row` and that idle keeps its
old widths while the rows below it take the new ones (Textualize/textual#4404; seen here under load).
Measuring that changed a width therefore drops the line caches and repaints."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from textual.widgets import DataTable
from textual.widgets.data_table import RowKey


class Table(DataTable[Any]):
    """A DataTable that repaints its header and rows whenever measuring changed a column's width."""

    def _update_dimensions(self, new_rows: Iterable[RowKey]) -> None:
        widths = [c.content_width for c in self.ordered_columns]
        super()._update_dimensions(new_rows)
        if widths != [c.content_width for c in self.ordered_columns]:
            self._clear_caches()
            self.refresh()
