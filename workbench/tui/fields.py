"""Errors in the TUI's own words: the runner's messages name CLI flags; the screens have fields.

`in_fields` rewrites a runner or core error so it names the field of the form the user can change
(`--model` -> the model field); the message itself is the runner's, nothing is re-decided here.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from workbench.core.models import RunRecord

FIELDS = {"--model": "model", "--script": "script", "--hosts": "hosts", "--host": "host", "--arms": "arm",
          "--arm": "arm", "--runs": "runs", "--jobs": "jobs", "--unconfined": "confined", "--effort": "effort",
          "--name": "arm name", "--text": "wording", "--case": "case", "--cases": "cases",
          "--proposer": "proposer", "--budget-runs": "run budget"}

_FLAG = re.compile(r"--(?:model|script|hosts|host|arms|arm|runs|jobs|unconfined|effort|name|text|cases|case)\b")


def in_fields(error: object) -> str:
    """ERROR's text with each CLI flag replaced by the form field it stands for (`the model field`)."""
    text = str(error)
    text = re.sub(r"^(--[a-z-]+): ", lambda m: f"{FIELDS.get(m.group(1), m.group(1))}: ", text)
    text = text.replace("or run unconfined", "or untick confined")
    return _FLAG.sub(lambda m: f"the {FIELDS[m.group(0)]} field", text)


def invalid_reason(record: RunRecord) -> str:
    """Why a run measured nothing, in full: the gate's reason, the host's error (`run_error`), a failed
    entry skill, the guard's changes."""
    parts = [record.invalid_reason or "invalid"]
    if record.run_error:
        parts.append(record.run_error)
    if record.entry is not None and record.entry.skill_error:
        parts.append(f"skill: {record.entry.skill_error}")
    if record.guard is not None and record.guard.changes:
        parts.append("guard: " + "; ".join(record.guard.changes))
    return " · ".join(" ".join(p.split())[:200] for p in parts)
