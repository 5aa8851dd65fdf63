"""Importers: other tools' eval files into cases, each with a note of what could not be mapped.

- skill-routing-eval fixtures: JSONL lines `{id, prompt, expect, distractor}`. `expect` names what
  should be read (a procedure file, a row id or a Skill; string or list); a truthy `distractor`
  or an empty `expect` makes a negative. A string `distractor` (the near-miss it tempts) is kept
  only in the note.
- Anthropic skill-creator `evals.json`: `{skill_name, evals: [{id, prompt, expected_output, files,
  expectations}]}`. Every eval becomes a positive for the rows of that Skill's table (the format
  says which Skill, not which row); `expected_output`, `expectations` and `files` have no case
  field and are reported in the note. Trigger-eval lists (`query`/`prompt` + `should_trigger`)
  are read too: `should_trigger: false` makes a negative.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.core.errors import InputError
from workbench.core.models import Case
from workbench.core.paths import suffix_match
from workbench.core.routing import Row, find_row, required_key, slug


@dataclass
class Imported:
    """One imported case and what could not be mapped."""

    case: Case
    notes: list[str] = field(default_factory=list)
    source_line: int | None = None


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


def import_routing_eval(path: Path, rows: list[Row]) -> list[Imported]:
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
        if isinstance(distractor, str) and distractor:
            notes.append(f"distractor {distractor!r} (the near-miss this prompt tempts) has no case field")
        for key in sorted(set(item) - {"id", "prompt", "expect", "distractor"}):
            notes.append(f"field {key!r} not mapped")
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
            case = _case({"id": case_id, "target": target or names[0], "kind": "positive", "prompt": item["prompt"],
                          "required": required})
            notes.append("moment `edit` assumed (the format has no moment); set it per case")
        out.append(Imported(case, notes, number))
    return out


def import_skill_creator(path: Path, rows: list[Row]) -> list[Imported]:
    """Cases from a skill-creator `evals.json` (or a trigger-eval list)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON: {exc.msg}", file=str(path), line=exc.lineno) from None
    skill = data.get("skill_name") if isinstance(data, dict) else None
    evals = data.get("evals") if isinstance(data, dict) else data
    if not isinstance(evals, list):
        raise InputError("expected {skill_name, evals: [...]} or a list", file=str(path), field="evals")
    skill_rows = [r for r in rows if r.links and (skill is None or r.skill.split(":")[-1] == skill)]
    out: list[Imported] = []
    for index, item in enumerate(evals):
        if not isinstance(item, dict) or not isinstance(item.get("prompt", item.get("query")), str):
            raise InputError("each eval needs a string prompt", file=str(path), field=f"evals[{index}].prompt")
        prompt = item.get("prompt", item.get("query"))
        notes: list[str] = []
        case_id = slug(f"{skill or path.stem}-{item.get('id', index + 1)}")
        for key in ("expected_output", "expectations", "files"):
            if item.get(key):
                notes.append(f"{key} not mapped (graded output, not a read-before-acting check)")
        if item.get("should_trigger") is False:
            case = _case({"id": case_id, "target": "none", "kind": "negative", "prompt": prompt, "moment": "end"})
            notes.append("should_trigger false: negative against every linked procedure; moment `end` assumed")
        else:
            required = list(dict.fromkeys(required_key(lk, r) for r in skill_rows for lk in r.links))
            if not required:
                notes.append(f"Skill {skill!r} has no routing rows here; required left as its SKILL.md")
                required = [f"{skill or '*'}/SKILL.md"]
            case = _case({"id": case_id, "target": skill or "skill", "kind": "positive", "prompt": prompt,
                          "required": required})
            notes.append("the format names the Skill, not a row: every procedure of its table is required; "
                         "narrow `required` and set `moment` by hand")
        out.append(Imported(case, notes))
    return out


IMPORTERS = {"routing-eval": import_routing_eval, "skill-creator": import_skill_creator}
