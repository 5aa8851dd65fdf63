"""Case files: one TOML file per case, validated into a `Case` with errors naming file, line and field.

A case is what a canary or batch runs: a naive prompt, the files it must read, and the moment they
must be read before. The moment spec is parsed here too, so a typo fails when the case is loaded,
not halfway through a batch.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from workbench.core.errors import InputError
from workbench.core.filesize import MAX_CASE_BYTES, check_size
from workbench.core.locate import field_name, key_line, parse_toml
from workbench.core.models import Case
from workbench.core.moments import parse_moment
from workbench.core.paths import suffix_match
from workbench.core.routing import Row, find_row, read_files, required_key, unknown_row_message


def linked_procedures(rows: list[Row]) -> list[str]:
    """Every procedure the routing rows link, as cases name them (`workflows/commit.md`), deduplicated."""
    return list(dict.fromkeys(required_key(link, row) for row in rows for link in row.links))


def default_required(case: Case, rows: list[Row]) -> list[str]:
    """Required files when a case lists none: the target row's links (positive), or every linked
    procedure (negative); a negative's `exceptions` are removed either way."""
    required = case.required
    if not required and case.kind == "positive":
        row = find_row(rows, case.target)
        required = [required_key(link, row) for link in row.links] if row else []
    elif not required:
        required = linked_procedures(rows)
    if case.kind == "negative" and case.exceptions:
        required = [r for r in required if not any(suffix_match(r, e) or suffix_match(e, r) for e in case.exceptions)]
    return required


def workspace_rows_and_recorded(path: Path) -> tuple[list[Row], dict[str, str]]:
    """The rows of the workspace a case file belongs to, and its `[rows]` (id -> what the row said)."""
    from workbench.core.workspace import load_workspace

    ws = load_workspace(path.parent)
    rows = read_files(ws.routing_files(), plugin=ws.plugin_dir)[0] if ws.plugin_dir.is_dir() else []  # rows/lint warn
    return rows, dict(ws.config.rows)


def check_target(case: Case, rows: list[Row], recorded: dict[str, str]) -> str | None:
    """Why a positive case's target names nothing (no row, no Skill), or None. A row that vanished
    (its linked file renamed, its text rewritten) is named with what it said and the closest ids."""
    if case.kind != "positive" or case.target == "none" or not rows or find_row(rows, case.target) is not None:
        return None
    if any(row.skill.split(":")[-1] == case.target for row in rows):
        return None
    message = unknown_row_message(rows, case.target)
    was = recorded.get(case.target)
    return message + (f"; it said: {was!r}" if was else "")


def parse_case(data: Any, *, file: str | None = None, text: str = "", default_id: str | None = None,
               rows: list[Row] | None = None, recorded: dict[str, str] | None = None) -> Case:
    """Validate decoded data as a Case (id defaults to the file stem); bad input -> InputError.

    With ROWS, empty `required` defaults from the routing rows (see `default_required`).
    """
    if not isinstance(data, dict):
        raise InputError("a case must be a table", file=file)
    if default_id and "id" not in data:
        data = {"id": default_id, **data}
    try:
        case = Case.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        raise InputError(str(err["msg"]), file=file, line=key_line(text, err["loc"]),
                         field=field_name(err["loc"]) or None) from None
    try:
        parse_moment(case.moment)
    except InputError as exc:
        raise InputError(exc.message, file=file, line=key_line(text, ("moment",)), field="moment") from None
    problem = check_target(case, rows, recorded or {}) if rows is not None else None
    if problem:
        raise InputError(problem, file=file, line=key_line(text, ("target",)), field="target")
    if rows is not None and (not case.required or case.exceptions):
        case = case.model_copy(update={"required": default_required(case, rows)})
    if case.kind == "positive" and not case.required:
        known = f" (target {case.target!r} is no routing row)" if rows is not None else ""
        raise InputError(f"a positive case needs at least one required file{known}", file=file,
                         line=key_line(text, ("required",)) or key_line(text, ("target",)), field="required")
    return case


def load_case(path: str | Path, rows: list[Row] | None = None, recorded: dict[str, str] | None = None) -> Case:
    """Load one case from a TOML file; ROWS (and RECORDED) default to its workspace's."""
    path = Path(path)
    check_size(path, MAX_CASE_BYTES, "the case file")  # by stat, before a byte is read
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read case: {exc}", file=str(path)) from None
    data = parse_toml(text, file=str(path))
    if rows is None:
        rows, recorded = workspace_rows_and_recorded(path)
    return parse_case(data, file=str(path), text=text, default_id=path.stem, rows=rows, recorded=recorded)


def load_cases(folder: str | Path) -> list[Case]:
    """Every `*.toml` case in FOLDER, sorted by file name; ids must be unique."""
    cases: list[Case] = []
    seen: dict[str, str] = {}
    rows, recorded = workspace_rows_and_recorded(Path(folder) / "x.toml")
    for path in sorted(Path(folder).glob("*.toml")):
        case = load_case(path, rows, recorded)
        if case.id in seen:
            raise InputError(f"duplicate case id {case.id!r} (also in {seen[case.id]})", file=str(path), field="id")
        seen[case.id] = str(path)
        cases.append(case)
    return cases


def find_case(ref: str, folder: str | Path) -> Case:
    """A case given as a file path, or as an id of a case in FOLDER."""
    path = Path(ref)
    if path.suffix == ".toml" or path.is_file():
        return load_case(path)
    for case in load_cases(folder) if Path(folder).is_dir() else []:
        if case.id == ref:
            return case
    raise InputError(f"no case {ref!r} in {folder}", field="CASE")
