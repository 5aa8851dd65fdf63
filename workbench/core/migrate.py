"""Older record layouts read as the current one: `migrate(data)` turns a decoded line into schema v3.

Pure, and the only place that knows old layouts, so every reader (summary, rescore, TUI) sees one
shape. Version 1 differs in two ways:
- records from `rescore --write` before one key convention existed keyed `verdict` and
  `required_read_at` by the required file's BASE NAME (`commit.md`) while `required` held the path
  as the case names it (`workflows/commit.md`); every producer now keys by the path as given;
- the entry gate, guard, rescore and import facts were loose top-level fields; version 2 groups them
  in declared sub-models (`entry`, `guard`, `provenance`).
Version 2 named no script: every scripted record said `model: scripted`, so runs of different scripts
looked like one measurement. Version 3 records the script (`script`: name and digest); a migrated
scripted record says its script is unknown (`{"name": null, "digest": null}`), which keeps it in a
group of its own, never pooled with a known script (and a batch plan never counts it as done).
A line without `schema_version` (another tool's) and a line of the current version pass unchanged.
"""

from __future__ import annotations

from typing import Any

from workbench.core.paths import segments

KEYED = ("verdict", "required_read_at")
"""Record fields keyed by required file."""
ENTRY_V1 = {"entry_skill": "skill", "entry_file": "file", "entry_offered": "offered",
            "skill_error": "skill_error", "offered_skills": "offered_skills"}
"""Version-1 top-level field -> field of `entry` (EntryGate)."""
PROVENANCE_V1 = {"imported_from": "imported_from", "call_status_unknown": "status_unknown",
                 "rescored_from": "rescored_from"}
"""Version-1 top-level field -> field of `provenance` (Provenance)."""


def _base(path: str) -> str:
    parts = segments(path)
    return parts[-1] if parts else path


def rekey_v1(data: dict[str, Any]) -> dict[str, Any]:
    """The decoded v1 record with base-name keys mapped back to the required path as given.

    A key is renamed only when it is not itself a required file and exactly one required file has it
    as base name; anything else (imported records keyed as their publisher keyed them) is kept."""
    required = data.get("required")
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        return data
    by_base: dict[str, list[str]] = {}
    for req in required:
        by_base.setdefault(_base(req), []).append(req)
    out = dict(data)
    for name in KEYED:
        value = data.get(name)
        if not isinstance(value, dict):
            continue
        renamed = {}
        for key, item in value.items():
            match = by_base.get(key, [])
            renamed[match[0] if key not in required and len(match) == 1 else key] = item
        out[name] = renamed
    return out


def _group(data: dict[str, Any], fields: dict[str, str], into: str) -> None:
    """Move FIELDS present in DATA into the sub-object INTO (left out when every value is empty)."""
    moved = {new: data.pop(old) for old, new in fields.items() if old in data}
    if any(v is not None and v != [] and v is not False for v in moved.values()):
        data[into] = {**moved, **(data.get(into) or {})}


def group_v1(data: dict[str, Any]) -> dict[str, Any]:
    """The decoded v1 record with its loose gate/guard/provenance fields in the v2 sub-models."""
    out = dict(data)
    _group(out, ENTRY_V1, "entry")
    _group(out, PROVENANCE_V1, "provenance")
    changes = out.pop("guard_changes", None)
    if changes:
        out["guard"] = {"changes": changes}
    return out


def script_v2(data: dict[str, Any]) -> dict[str, Any]:
    """The decoded v2 record in v3: a scripted run's script is unknown (v2 did not record it)."""
    if data.get("model") == "scripted" and data.get("script") is None:
        return {**data, "script": {"name": None, "digest": None}, "schema_version": 3}
    return {**data, "schema_version": 3}


def migrate(data: dict[str, Any]) -> dict[str, Any]:
    """DATA in the current layout (a new dict for an older version; DATA itself is never changed)."""
    if data.get("schema_version") == 1:
        data = {**group_v1(rekey_v1(data)), "schema_version": 2}
    if data.get("schema_version") == 2:
        return script_v2(data)
    return data
