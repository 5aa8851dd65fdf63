"""The demo's weak wordings (kept as an arm, not in the plugin) and helpers to apply them to a copy."""

from __future__ import annotations

import shutil
from pathlib import Path

PLUGIN = Path(__file__).resolve().parent.parent / "plugin"
SKILL = Path("skills/ops/SKILL.md")

WEAK_ROWS = {
    "release": "| When ready to ship | [release procedure](workflows/release.md) |",
    "incident": "| Before responding to an incident or outage | [incident procedure](workflows/incident.md) "
                "and [diagnosis](workflows/diagnosis.md) |",
}
"""Row id -> the weak wording: a state trigger, and a second file joined by a bare "and"."""


def apply_weak(plugin: Path) -> Path:
    """Replace the release and incident rows of PLUGIN's SKILL.md (in place) with the weak wordings."""
    path = plugin / SKILL
    lines = path.read_text().split("\n")
    for row_id, text in WEAK_ROWS.items():
        target = f"(workflows/{row_id}.md)"
        index = next(i for i, line in enumerate(lines) if line.startswith("|") and target in line.split("|")[2])
        lines[index] = text
    path.write_text("\n".join(lines))
    return plugin


def weak_copy(dest: Path) -> Path:
    """A copy of the demo plugin at DEST with the weak wordings applied."""
    shutil.copytree(PLUGIN, dest)
    return apply_weak(dest)
