"""Case files: one TOML file per case, validated into a `Case` with errors naming file, line and field.

A case is what a canary or batch runs: a naive prompt, the files it must read, and the moment they
must be read before. The moment spec is parsed here too, so a typo fails when the case is loaded,
not halfway through a batch.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from workbench.core.errors import InputError
from workbench.core.models import Case
from workbench.core.moments import parse_moment


def _loc(loc: tuple[int | str, ...]) -> str:
    """`('branches', 0, 'name')` -> `branches[0].name`."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else ("." if out else "") + str(part)
    return out


def _line_of(text: str, loc: tuple[int | str, ...]) -> int | None:
    """The line where the innermost named key of LOC is set (`key =` or `[key]` table), if findable."""
    names = [p for p in loc if isinstance(p, str)]
    lines = text.splitlines()
    for name in reversed(names):
        pattern = re.compile(rf"^\s*(\[\[?\s*)?[\"']?{re.escape(name)}[\"']?\s*(=|\]|\.)")
        for number, line in enumerate(lines, start=1):
            if pattern.match(line):
                return number
    return None


def parse_case(data: Any, *, file: str | None = None, text: str = "", default_id: str | None = None) -> Case:
    """Validate decoded data as a Case (id defaults to the file stem); bad input -> InputError."""
    if not isinstance(data, dict):
        raise InputError("a case must be a table", file=file)
    if default_id and "id" not in data:
        data = {"id": default_id, **data}
    try:
        case = Case.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        raise InputError(str(err["msg"]), file=file, line=_line_of(text, err["loc"]),
                         field=_loc(err["loc"]) or None) from None
    try:
        parse_moment(case.moment)
    except InputError as exc:
        raise InputError(exc.message, file=file, line=_line_of(text, ("moment",)), field="moment") from None
    if case.kind == "positive" and not case.required:
        raise InputError("a positive case needs at least one required file", file=file,
                         line=_line_of(text, ("required",)), field="required")
    return case


def load_case(path: str | Path) -> Case:
    """Load one case from a TOML file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read case: {exc}", file=str(path)) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"line (\d+)", str(exc))
        raise InputError(f"invalid TOML: {exc}", file=str(path), line=int(found.group(1)) if found else None) from None
    return parse_case(data, file=str(path), text=text, default_id=path.stem)


def load_cases(folder: str | Path) -> list[Case]:
    """Every `*.toml` case in FOLDER, sorted by file name; ids must be unique."""
    cases: list[Case] = []
    seen: dict[str, str] = {}
    for path in sorted(Path(folder).glob("*.toml")):
        case = load_case(path)
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
