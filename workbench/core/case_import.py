"""Importers: other tools' eval files into cases, each with a note of what could not be mapped.

- skill-routing-eval fixtures: JSONL lines `{id, prompt, expect, distractor}`. `expect` names what
  should be read (a procedure file, a row id or a Skill; string or list); `distractor: true` or an
  empty `expect` makes a negative. A string `distractor` (the near-miss it tempts) is kept only in
  the note; any other `distractor` (`1`, `"yes"` is a string) is an error naming file, line and field.
  An `expect` naming a file that does not exist is left out of `required`, with a note.
- Anthropic skill-creator `evals/evals.json`: `{skill_name, evals: [{id, prompt, expected_output,
  files, expectations}]}`. Every eval becomes a positive for `--target` (a row or a Skill), else
  for the Skill `skill_name` names (every procedure its rows link); `expected_output`,
  `expectations`, `files` and any other field have no case field and are each noted.
- skill-creator trigger-eval sets (`run_eval.py --eval-set`): `[{query, should_trigger}]`. The
  format names no Skill or row, so `--target` is required; `should_trigger` must be `true` or
  `false` (missing or anything else is an error naming file, item and field). Trigger evals measure
  ACTIVATION, so by default a positive requires the Skill's entry SKILL.md with moment `end`;
  `measure="procedures"` requires the linked procedures before the first edit instead.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.core.errors import InputError
from workbench.core.models import Case
from workbench.core.paths import suffix_match
from workbench.core.routing import Row, find_row, required_key, slug, unknown_row_message


@dataclass
class Imported:
    """One imported case and what could not be mapped."""

    case: Case
    notes: list[str] = field(default_factory=list)
    source_line: int | None = None
    unmapped: list[str] = field(default_factory=list)
    """Fields of the item (dotted for the file's top level) that no case field holds."""


def _required_for(name: str, rows: list[Row]) -> tuple[str | None, list[str]]:
    """(row id, required files) for a name that is a row id, a procedure path, or a Skill name."""
    row = find_row(rows, name)
    if row is not None and row.links:
        return row.id, [required_key(link, row) for link in row.links]
    for row in rows:
        for link in row.links:
            if suffix_match(required_key(link, row), name) or suffix_match(name, required_key(link, row)):
                return row.id, [required_key(link, row)]
    skill_rows = [r for r in rows if r.skill.split(":")[-1] == name and r.links]
    if skill_rows:
        return name, [required_key(link, r) for r in skill_rows for link in r.links]
    return None, []


def _case(data: dict[str, Any], **extra: Any) -> Case:
    return Case.model_validate({**data, **extra})


def import_routing_eval(path: Path, rows: list[Row], *, target: str | None = None,
                        measure: str | None = None) -> list[Imported]:
    """Cases from a skill-routing-eval JSONL file."""
    out: list[Imported] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"invalid JSON: {exc.msg}", file=str(path), line=number) from None
        if not isinstance(item, dict) or not isinstance(item.get("prompt"), str):
            raise InputError("each line needs a string prompt", file=str(path), line=number, field="prompt")
        notes: list[str] = []
        case_id = slug(str(item.get("id") or f"{path.stem}-{number}"))
        expect = item.get("expect")
        names = [expect] if isinstance(expect, str) else [e for e in expect or [] if isinstance(e, str)]
        distractor = item.get("distractor")
        if distractor is not None and not isinstance(distractor, (bool, str)):
            raise InputError(f"distractor must be true, false or a string, not {distractor!r}", file=str(path),
                             line=number, field="distractor")
        if isinstance(distractor, str) and distractor:
            notes.append(f"distractor {distractor!r} (the near-miss this prompt tempts) has no case field")
        unmapped = [key for key in item if key not in {"id", "prompt", "expect", "distractor"}]
        if distractor is True or not names:
            case = _case({"id": case_id, "target": "none", "kind": "negative", "prompt": item["prompt"], "moment": "end"})
            notes.append("negative: scored against every linked procedure; moment `end` assumed")
        else:
            target, required = None, []
            for name in names:
                row_id, files = _required_for(name, rows)
                if row_id is None:
                    notes.append(f"expect {name!r} matches no routing row, procedure or Skill; kept as a path")
                    files = [name]
                target = target or row_id
                required += [f for f in files if f not in required]
            gone = _dangling(required, rows)
            required = [f for f in required if f not in gone]
            notes += [f"required {f!r} is dangling (no such file): left out" for f in gone]
            if not required:
                raise InputError("expect names only files that do not exist", file=str(path), line=number,
                                 field="expect")
            case = _case({"id": case_id, "target": target or names[0], "kind": "positive", "prompt": item["prompt"],
                          "required": required})
            notes.append("moment `edit` assumed (the format has no moment); set it per case")
        out.append(Imported(case, notes, number, unmapped))
    return out


def _target(target: str, rows: list[Row]) -> tuple[str, list[str], str]:
    """(case target, required files, what it is) for `--target`: a row id, else a Skill name."""
    row = find_row(rows, target)
    if row is not None and row.links:
        return row.id, [required_key(link, row) for link in row.links], f"row {row.id}"
    skill_rows = [r for r in rows if r.skill.split(":")[-1] == target and r.links]
    if skill_rows:
        files = list(dict.fromkeys(required_key(lk, r) for r in skill_rows for lk in r.links))
        return target, files, f"Skill {target!r} ({len(skill_rows)} rows)"
    raise InputError(unknown_row_message(rows, target) + " and no Skill has that name", field="--target")


def _dangling(required: list[str], rows: list[Row]) -> list[str]:
    """The REQUIRED keys whose every linked file is missing (a case could never read them)."""
    found: dict[str, bool] = {}
    for row in rows:
        for link in row.links:
            key = required_key(link, row)
            if key in required:
                found[key] = found.get(key, False) or link.path.is_file()
    return [key for key in required if found.get(key) is False]


def _load_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON: {exc.msg}", file=str(path), line=exc.lineno) from None
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text", file=str(path)) from None


def _unmapped(item: dict[str, Any], mapped: set[str], where: str = "") -> list[str]:
    return [f"{where}{key}" for key in item if key not in mapped]


def _entry(target: str, rows: list[Row]) -> str | None:
    """The entry SKILL.md (as a path suffix `<skill>/SKILL.md`) of TARGET (a row or a Skill), None when it
    has none (a row of an AGENTS.md or CLAUDE.md is no Skill)."""
    row = find_row(rows, target)
    mine = [row] if row is not None else [r for r in rows if r.skill.split(":")[-1] == target]
    files = [r.file for r in mine if r.file is not None and r.file.name == "SKILL.md"]
    return f"{files[0].parent.name}/SKILL.md" if files else None


def _trigger_cases(items: list[Any], path: Path, rows: list[Row], *, target: str, prompt_keys: tuple[str, ...],
                   mapped: set[str], id_prefix: str, field_prefix: str, measure: str = "procedures",
                   need_flag: bool = False) -> list[Imported]:
    entry = _entry(target, rows) if measure == "activation" else None
    if entry is not None:
        row = find_row(rows, target)
        case_target, required, what = (row.id if row else target), [entry], f"activation of {entry}"
        dangling: list[str] = []
    else:
        case_target, required, what = _target(target, rows)
        dangling = _dangling(required, rows)
        required = [f for f in required if f not in dangling]
    out: list[Imported] = []
    for index, item in enumerate(items):
        prompt = next((item.get(k) for k in prompt_keys if isinstance(item, dict) and isinstance(item.get(k), str)),
                      None)
        if not isinstance(item, dict) or prompt is None:
            raise InputError(f"each item needs a string {' or '.join(prompt_keys)}", file=str(path),
                             field=f"{field_prefix}[{index}].{prompt_keys[0]}")
        notes: list[str] = []
        case_id = slug(f"{id_prefix}-{item.get('id', index + 1)}")
        if need_flag and "should_trigger" not in item:
            raise InputError("should_trigger is missing (true or false)", file=str(path),
                             field=f"{field_prefix}[{index}].should_trigger")
        flag = item.get("should_trigger", True)
        if not isinstance(flag, bool):
            raise InputError(f"should_trigger must be true or false, not {flag!r}", file=str(path),
                             field=f"{field_prefix}[{index}].should_trigger")
        if flag is False:
            case = _case({"id": case_id, "target": "none", "kind": "negative", "prompt": prompt, "moment": "end"})
            notes.append("should_trigger false: negative against every linked procedure; moment `end` assumed")
        elif entry is not None:
            case = _case({"id": case_id, "target": case_target, "kind": "positive", "prompt": prompt,
                          "required": required, "moment": "end"})
            notes.append(f"target {what}: a trigger eval measures activation (the entry file read, moment `end`)")
        else:
            case = _case({"id": case_id, "target": case_target, "kind": "positive", "prompt": prompt,
                          "required": required})
            notes.append(f"target {what}: its linked procedures are required; set `moment` by hand (edit assumed)")
            notes += [f"required {f!r} is dangling (no such file): left out" for f in dangling]
        out.append(Imported(case, notes, unmapped=_unmapped(item, mapped)))
    return out


def import_skill_creator(path: Path, rows: list[Row], *, target: str | None = None,
                         measure: str | None = None) -> list[Imported]:
    """Cases from a skill-creator `evals/evals.json` (`{skill_name, evals: [...]}`)."""
    data = _load_json(path)
    if isinstance(data, list):
        raise InputError("a list is a trigger-eval set: use --format trigger-eval (with --target)", file=str(path))
    if not isinstance(data, dict) or not isinstance(data.get("evals"), list):
        raise InputError("expected {skill_name, evals: [...]}", file=str(path), field="evals")
    skill = data.get("skill_name")
    chosen = target or (skill if isinstance(skill, str) and skill else None)
    if chosen is None:
        raise InputError("evals.json names no skill_name: pass --target ROW|SKILL", file=str(path),
                         field="skill_name")
    out = _trigger_cases(data["evals"], path, rows, target=chosen, prompt_keys=("prompt",),
                         mapped={"id", "prompt", "should_trigger"}, id_prefix=str(skill or path.stem),
                         field_prefix="evals", measure=measure or "procedures")
    top = _unmapped(data, {"skill_name", "evals"}, "(top level) ")
    for item in out:
        item.unmapped[:0] = top
    return out


def import_trigger_eval(path: Path, rows: list[Row], *, target: str | None = None,
                        measure: str | None = None) -> list[Imported]:
    """Cases from a skill-creator trigger-eval set: `[{query, should_trigger}, ...]` (run_eval.py
    `--eval-set`). It names no Skill or row, so TARGET is required."""
    data = _load_json(path)
    if not isinstance(data, list):
        raise InputError("expected a list of {query, should_trigger}", file=str(path))
    if target is None:
        raise InputError("a trigger-eval list names no Skill or row: pass --target ROW|SKILL", file=str(path),
                         field="--target")
    return _trigger_cases(data, path, rows, target=target, prompt_keys=("query", "prompt"),
                          mapped={"id", "query", "prompt", "should_trigger"}, id_prefix=path.stem,
                          field_prefix="", measure=measure or "activation", need_flag=True)


IMPORTERS = {"routing-eval": import_routing_eval, "skill-creator": import_skill_creator,
             "trigger-eval": import_trigger_eval}
