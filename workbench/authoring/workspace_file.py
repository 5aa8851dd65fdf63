"""Writes into the user's workspace: `[arms.NAME]` and `[rows]` in workbench.toml, case files.

`[rows]` records each row id a case or arm refers to, with what the row said then (trigger and
links), so that when the row cannot be found again the case or arm fails naming the row as it
was and the closest ids (`core.cases`). Appends keep every existing line of the file as written.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

from workbench.core.case_templates import case_toml
from workbench.core.errors import InputError
from workbench.core.models import Case
from workbench.core.routing import Row
from workbench.core.workspace import FILENAME, Workspace


def _file(ws: Workspace) -> Path:
    return ws.file or ws.root / FILENAME


def _read(file: Path) -> str:
    return file.read_text(encoding="utf-8") if file.is_file() else ""


def store_arm(ws: Workspace, name: str, *, env: dict[str, str], row: str | None = None, ref: str | None = None,
              replace: bool = False) -> Path:
    """Write `[arms.NAME]` (ref, row, env) into the workspace's workbench.toml (REPLACE an existing one)."""
    file = _file(ws)
    text = _read(file)
    header = re.compile(rf"^\[arms\.{re.escape(name)}\]\s*$", re.MULTILINE)
    found = header.search(text)
    if found and not replace:
        raise InputError(f"[arms.{name}] is already in the workspace file", file=str(file), field=f"arms.{name}")
    if found:
        nxt = re.compile(r"^\[", re.MULTILINE).search(text, found.end())
        text = text[:found.start()].rstrip("\n") + "\n" + (text[nxt.start():] if nxt else "")
    lines = [f"\n[arms.{name}]"]
    if ref:
        lines.append(f"ref = {json.dumps(ref)}")
    if row:
        lines.append(f"row = {json.dumps(row)}")
    if env:
        lines.append("env = { " + ", ".join(f"{json.dumps(k)} = {json.dumps(v)}" for k, v in env.items()) + " }")
    file.write_text(text.rstrip("\n") + "\n" + "\n".join(lines) + "\n", encoding="utf-8")
    return file


def row_summary(row: Row) -> str:
    """What a row says, as recorded: `trigger -> link, link`."""
    return f"{row.trigger} -> {', '.join(lk.target for lk in row.links) or '(no links)'}"


def record_rows(ws: Workspace, ids: list[str], *, rows: list[Row] | None) -> Path | None:
    """Add each of IDS (with its summary from ROWS) to `[rows]` of workbench.toml; ids already there stay."""
    file = _file(ws)
    text = _read(file)
    try:
        known = tomllib.loads(text).get("rows", {}) if text else {}
    except tomllib.TOMLDecodeError:
        known = {}
    by_id = {r.id: r for r in rows or []}
    new = [i for i in dict.fromkeys(ids) if i not in known and (rows is None or i in by_id)]
    if not new:
        return None
    entries = [f"{json.dumps(i)} = {json.dumps(row_summary(by_id[i]) if i in by_id else '')}" for i in new]
    section = re.search(r"^\[rows\]\s*$", text, re.MULTILINE)
    if section:
        nxt = re.compile(r"^\[", re.MULTILINE).search(text, section.end())
        at = nxt.start() if nxt else len(text)
        head = text[:at].rstrip("\n") + "\n"
        text = head + "\n".join(entries) + "\n" + ("\n" + text[at:] if nxt else "")
    else:
        text = (text.rstrip("\n") + "\n\n" if text.strip() else "") + \
            "# Row ids cases and arms refer to, and what each row said (written by workbench).\n[rows]\n" + \
            "\n".join(entries) + "\n"
    file.write_text(text, encoding="utf-8")
    return file


def write_case(case: Case, folder: Path, *, comment: str = "", force: bool = False) -> Path:
    """Write CASE to FOLDER/<id>.toml (refuses to overwrite unless FORCE)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{case.id}.toml"
    if path.exists() and not force:
        raise InputError("case file exists; pass --force to overwrite", file=str(path), field="id")
    path.write_text(case_toml(case, comment=comment), encoding="utf-8")
    return path
