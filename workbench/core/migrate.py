"""Reading records written by older schema versions: each step a pure function of the decoded line.

Version 1 records from `rescore --write` before one key convention existed keyed `verdict` and
`required_read_at` by the required file's BASE NAME (`commit.md`) while `required` held the path as
the case names it (`workflows/commit.md`). Every producer now keys by the path as given.
"""

from __future__ import annotations

from typing import Any

from workbench.core.paths import segments

KEYED = ("verdict", "required_read_at")
"""Record fields keyed by required file."""


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


def needs_rekey(verdict_keys: Any, required: list[str]) -> bool:
    """True when a record keys verdicts by something other than its required files (v1 base names)."""
    return bool(required) and any(k not in required for k in verdict_keys)
