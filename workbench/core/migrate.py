"""Older record layouts read as the current one: `migrate(data)` turns a decoded line into schema v2.

Pure and the only place that knows old layouts, so every reader (summary, rescore, TUI) sees one
shape. Version 1 kept the entry gate, guard, rescore and import facts as loose top-level fields;
version 2 groups them in declared sub-models. A line without `schema_version` (another tool's) and
a line of the current version pass through unchanged.
"""

from __future__ import annotations

from typing import Any

from workbench.core.models import SCHEMA_VERSION

ENTRY_V1 = {"entry_skill": "skill", "entry_file": "file", "entry_offered": "offered",
            "skill_error": "skill_error", "offered_skills": "offered_skills"}
"""Version-1 top-level field -> field of `entry` (EntryGate)."""
PROVENANCE_V1 = {"imported_from": "imported_from", "call_status_unknown": "status_unknown",
                 "rescored_from": "rescored_from"}
"""Version-1 top-level field -> field of `provenance` (Provenance)."""


def _group(data: dict[str, Any], fields: dict[str, str], into: str) -> None:
    """Move FIELDS present in DATA into the sub-object INTO (kept when no field is present)."""
    moved = {new: data.pop(old) for old, new in fields.items() if old in data}
    if any(v is not None and v != [] and v is not False for v in moved.values()):
        data[into] = {**moved, **(data.get(into) or {})}


def from_v1(data: dict[str, Any]) -> dict[str, Any]:
    """A version-1 record as version 2 (a new dict; DATA is not changed)."""
    out = dict(data)
    _group(out, ENTRY_V1, "entry")
    _group(out, PROVENANCE_V1, "provenance")
    changes = out.pop("guard_changes", None)
    if changes:
        out["guard"] = {"changes": changes}
    out["schema_version"] = 2
    return out


def migrate(data: dict[str, Any]) -> dict[str, Any]:
    """DATA in the current layout: version-1 records are converted, others returned as they are."""
    if data.get("schema_version") == 1 and SCHEMA_VERSION == 2:
        return from_v1(data)
    return data
