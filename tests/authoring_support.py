"""The demo's weak wordings (kept as an arm, not in the plugin) and helpers to apply them to a copy; a
small marketplace whose Skill links a file outside its plugin."""

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


def books_market(root: Path) -> Path:
    """A marketplace at ROOT whose plugin's Skill names a rule kept at the marketplace's root, not in the
    plugin (an UNSHIPPED link); the Skill's SKILL.md."""
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin/marketplace.json").write_text(
        '{"name": "m", "plugins": [{"name": "books", "source": "./books-plugin"}]}\n')
    (root / "books-plugin/.claude-plugin").mkdir(parents=True)
    (root / "books-plugin/.claude-plugin/plugin.json").write_text('{"name": "books"}\n')
    (root / ".claude/rules").mkdir(parents=True)
    (root / ".claude/rules/posting.md").write_text("# posting\n")
    skill = root / "books-plugin/skills/ledger/SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: ledger\ndescription: Keep the ledger.\n---\n\n"
                     "## See also\n\n- `.claude/rules/posting.md` — before posting an entry\n")
    return skill
