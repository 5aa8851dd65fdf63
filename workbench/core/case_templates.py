"""Case authoring: templates per moment, a TOML writer, the naive-prompt check, and non-discriminating cases.

Templates give a case skeleton for a routing row: `first-edit` (the first edit is the moment),
`commit` and `pr` (mid-task: an edit comes first, the commit / PR is the moment), `end` (answer-only:
the moment is the end of the run) and `command` (a named shell command is the moment).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Literal

import tomlkit
import tomlkit.items

from workbench.core.errors import InputError
from workbench.core.models import Case, RunRecord
from workbench.core.routing import Row, required_key, slug

Template = Literal["first-edit", "commit", "pr", "end", "command"]
TEMPLATES: dict[str, tuple[str, str]] = {
    "first-edit": ("edit", "Add a short usage section to README.md."),
    "commit": ("commit", "Fix the typo 'Helo' in src/app.py and commit the fix."),
    "pr": ("pr", "Add a --verbose flag to src/app.py and open a pull request for it."),
    "end": ("end", "How should I go about this in this repository?"),
    "command": ("bash:{command}", "Run {command} for this repository."),
}
"""Template -> (moment spec, example prompt). Prompts are placeholders to rewrite for the row."""


def from_template(template: str, row: Row, *, case_id: str | None = None, prompt: str | None = None,
                  command: str | None = None) -> Case:
    """A positive case for ROW from TEMPLATE."""
    if template not in TEMPLATES:
        raise InputError(f"unknown template {template!r} (choose from {', '.join(TEMPLATES)})", field="--template")
    moment, example = TEMPLATES[template]
    if template == "command":
        if not command:
            raise InputError("the command template needs --command", field="--command")
        moment = "bash:" + re.escape(command)
        example = example.format(command=command)
    if not row.links:
        raise InputError(f"row {row.id!r} links no procedure file", field="--row")
    default_id = f"{slug(row.id.split('/', 1)[-1])}-{template}"
    return Case(id=case_id or default_id, target=row.id, kind="positive", prompt=prompt or example,
                required=[required_key(link, row) for link in row.links], moment=moment)


def case_toml(case: Case, *, comment: str = "") -> str:
    """A case as TOML (id, target, kind, prompt, required, moment, then any non-default fields), via tomlkit."""
    doc = tomlkit.document()
    for line in comment.splitlines():
        doc.add(tomlkit.comment(line) if line.strip() else tomlkit.ws("#\n"))
    data = case.model_dump(exclude_defaults=True)
    for key in ("id", "target", "kind", "prompt", "required", "moment", "extra_files", "exceptions"):
        if key in data or key in ("required", "moment"):
            value = data.get(key, getattr(case, key))
            doc[key] = _inline(value) if isinstance(value, dict) else value
    if case.branches:
        branches = tomlkit.aot()
        for branch in case.branches:
            table = tomlkit.table()
            table.update({"name": branch.name, "message": branch.message, "files": _inline(branch.files)})
            branches.append(table)
        doc.add(tomlkit.nl())
        doc["branches"] = branches
    return doc.as_string()


def _inline(value: Mapping[str, object]) -> tomlkit.items.InlineTable:
    table = tomlkit.inline_table()
    table.update(value)
    return table


def naive_problems(case: Case, rows: list[Row]) -> list[str]:
    """Why a positive case's prompt is not naive: it names the Skill or a procedure file."""
    if case.kind != "positive":
        return []
    prompt = case.prompt.lower()
    problems: list[str] = []
    for skill in sorted({row.skill.split(":")[-1] for row in rows}):
        if re.search(rf"(?<![\w.-])/?{re.escape(skill.lower())}(?![\w-]|\.\w)", prompt):
            problems.append(f"the prompt names the Skill {skill!r}")
    for name in sorted({Path(link.target).name for row in rows for link in row.links}):
        named = re.search(rf"(?<![\w.-]){re.escape(name.lower())}(?![\w-])", prompt)
        if named or Path(name).stem.lower() + " procedure" in prompt:
            problems.append(f"the prompt names the procedure file {name!r}")
    return problems


def non_discriminating(records: Iterable[RunRecord]) -> list[str]:
    """Case ids run under two or more arms whose valid runs all got the same overall verdict."""
    arms: dict[str, set[str]] = defaultdict(set)
    verdicts: dict[str, set[str]] = defaultdict(set)
    for rec in records:
        if not rec.valid or rec.discarded or rec.superseded or rec.case_id is None or rec.overall is None:
            continue
        arms[rec.case_id].add(rec.arm or "")
        verdicts[rec.case_id].add(rec.overall)
    return sorted(cid for cid in arms if len(arms[cid]) >= 2 and len(verdicts[cid]) == 1)
