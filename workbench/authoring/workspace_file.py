"""Writes into the user's workspace: `[arms.NAME]` and `[rows]` in workbench.toml, case files.

`[rows]` records each row id a case or arm refers to, with what the row said then (trigger and
links), so that when the row cannot be found again the case or arm fails naming the row as it
was and the closest ids (`core.cases`). Both edit through tomlkit (`tomledit`): the user's comments,
blank lines and key order survive, and only the table written changes.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from pathlib import Path

import tomlkit

from workbench.authoring.tomledit import editing, table, update
from workbench.core.case_templates import case_toml
from workbench.core.errors import InputError
from workbench.core.models import Case
from workbench.core.routing import Row
from workbench.core.workspace import FILENAME, Workspace

ROWS_COMMENT = "Row ids cases and arms refer to, and what each row said (written by workbench)."


def _file(ws: Workspace) -> Path:
    return ws.file or ws.root / FILENAME


def store_arm(ws: Workspace, name: str, *, env: dict[str, str], row: str | None = None, ref: str | None = None,
              replace: bool = False) -> Path:
    """Write `[arms.NAME]` (ref, row, env) into the workspace's workbench.toml (REPLACE an existing one)."""
    file = _file(ws)
    with editing(file) as doc:
        arms = doc.get("arms")
        if arms is not None and not isinstance(arms, MutableMapping):
            raise InputError("arms must be a table of arms", file=str(file), field="arms")
        if arms is not None and name in arms and not replace:
            raise InputError(f"[arms.{name}] is already in the workspace file", file=str(file), field=f"arms.{name}")
        items: dict[str, object] = {"ref": ref or None, "row": row or None, "env": env or None}
        if arms is None:
            arms = doc["arms"] = tomlkit.table(is_super_table=True)
        if isinstance(arms.get(name), MutableMapping):
            update(arms[name], items)  # a replaced arm keeps the user's comments on what did not change
        else:
            arms[name] = table({k: v for k, v in items.items() if v is not None})
    return file


def row_summary(row: Row) -> str:
    """What a row says, as recorded: `trigger -> link, link`."""
    return f"{row.trigger} -> {', '.join(lk.target for lk in row.links) or '(no links)'}"


def record_rows(ws: Workspace, ids: list[str], *, rows: list[Row] | None) -> Path | None:
    """Add each of IDS (with its summary from ROWS) to `[rows]` of workbench.toml; ids already there stay."""
    file = _file(ws)
    by_id = {r.id: r for r in rows or []}
    with editing(file) as doc:
        known = doc.get("rows", {})
        new = [i for i in dict.fromkeys(ids) if i not in known and (rows is None or i in by_id)]
        if not new:
            return None
        section = doc.get("rows")
        if section is None:
            if doc.as_string().strip():
                doc.add(tomlkit.nl())
            doc.add(tomlkit.comment(ROWS_COMMENT))
            section = doc["rows"] = tomlkit.table()
        for i in new:
            section[i] = row_summary(by_id[i]) if i in by_id else ""
    return file


def write_case(case: Case, folder: Path, *, comment: str = "", force: bool = False) -> Path:
    """Write CASE to FOLDER/<id>.toml (refuses to overwrite unless FORCE)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{case.id}.toml"
    if path.exists() and not force:
        raise InputError("case file exists; pass --force to overwrite", file=str(path), field="id")
    path.write_text(case_toml(case, comment=comment), encoding="utf-8")
    return path
