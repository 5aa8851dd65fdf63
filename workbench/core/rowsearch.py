"""Row search: which routing rows a typed query finds, the same for `workbench rows --search` and the
Rows screen's search field (a widget never decides what matches, nor counts)."""

from __future__ import annotations

from workbench.core.routing import Row


def row_haystack(row: Row) -> str:
    """What a query is looked for in: the row's id, trigger, whole wording and linked files, lower case."""
    return " ".join([row.id, row.trigger, row.text, *(link.target for link in row.links)]).lower()


def search_rows(rows: list[Row], query: str) -> list[Row]:
    """The ROWS holding every word of QUERY (case-insensitive, in any order), in their order; a blank
    query finds them all."""
    words = query.lower().split()
    return [r for r in rows if all(w in row_haystack(r) for w in words)]


def search_line(found: list[Row], rows: list[Row], query: str) -> str:
    """`2 of 12 rows match "commit"` (or `12 rows` for no query): the count beside the search field."""
    if not query.strip():
        return f"{len(rows)} rows"
    return f'{len(found)} of {len(rows)} rows match "{query.strip()}"'
