"""What a host offers the model from a plugin at session start: the listing model, as a pure function.

Claude Code lists Skills (name + description) within a character budget of about 1% of the context
window, each description capped; a listing that overflows drops whole descriptions. Codex gives
Skill metadata about 2% of the context (8,000 characters when the window is unknown), each
description capped at 1,024 characters, and reads AGENTS.md root first up to 32 KiB cumulative,
clipping the rest with no marker. The numbers (and where each comes from) are `LIMITS`; the canary
and batch gates call `offered(row, listing)` to refuse a row the host would not show.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from workbench.core.routing import Row


@dataclass(frozen=True)
class HostLimits:
    """One host version's listing limits; None where the host has no such limit."""

    host: str
    version: str
    listing_chars: int | None
    description_cap: int | None
    instructions_cap: int | None
    source: str


LIMITS: dict[str, HostLimits] = {
    "claude": HostLimits("claude", "2.1.197", 8_000, 1_536, None,
                         "Skill listing ~1% of a 200k-token context (2,000 tokens, ~8,000 characters at 4 a "
                         "token), description cap 1,536 (issue 23's reading of the Claude Code docs; not yet "
                         "confirmed for 2.1.197 by an `offered` log)"),
    "codex": HostLimits("codex", "0.171.0", 8_000, 1_024, 32 * 1024,
                        "Skill metadata 2% of context, 8,000 chars when unknown, 1,024 per description; "
                        "AGENTS.md `project_doc_max_bytes` default 32768 (developers.openai.com/codex/guides/agents-md, "
                        "codex config reference)"),
}
"""Per pinned host, the limits the listing model applies (hosts absent here are not modelled)."""


@dataclass(frozen=True)
class Entry:
    """One Skill's listing entry: its name, its SKILL.md and its description as written."""

    skill: str
    file: Path
    description: str


@dataclass
class Listing:
    """What HOST would offer: the Skills listed (description as shown), those dropped, those clipped,
    and the instruction files' bytes offered / clipped."""

    host: str
    version: str
    shown: dict[str, str] = field(default_factory=dict)
    dropped: list[str] = field(default_factory=list)
    clipped: list[str] = field(default_factory=list)
    instructions: list[tuple[Path, int, int, int]] = field(default_factory=list)
    """(file, bytes offered, bytes clipped, whole lines offered), root first."""

    def as_dict(self) -> dict[str, object]:
        return {"host": self.host, "version": self.version, "shown": sorted(self.shown), "dropped": self.dropped,
                "clipped": self.clipped,
                "instructions": [{"file": str(f), "offered": o, "clipped": c, "lines": n}
                                 for f, o, c, n in self.instructions]}


def listing(host: str, entries: list[Entry], instructions: tuple[tuple[Path, bytes], ...] = (),
            *, limits: HostLimits | None = None) -> Listing:
    """What HOST would offer of ENTRIES (in listing order) and INSTRUCTIONS (root first)."""
    lim = limits or LIMITS.get(host)
    out = Listing(host, lim.version if lim else "")
    used = 0
    for entry in entries:
        text = entry.description
        if lim and lim.description_cap is not None and len(text) > lim.description_cap:
            text = text[:lim.description_cap]
            out.clipped.append(entry.skill)
        size = len(entry.skill) + len(text) + 4  # "- name: description\n"
        if lim and lim.listing_chars is not None and used + size > lim.listing_chars:
            out.dropped.append(entry.skill)
            continue
        used += size
        out.shown[entry.skill] = text
    left = lim.instructions_cap if lim and lim.instructions_cap is not None else None
    for path, data in instructions:
        offered = len(data) if left is None else max(0, min(len(data), left))
        lines = data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1) if offered == len(data) \
            else data[:offered].count(b"\n")
        out.instructions.append((path, offered, len(data) - offered, lines))
        if left is not None:
            left -= offered
    return out


def listed_name(row: Row) -> str:
    """The name a host lists ROW's Skill under: `plugin:skill` for a marketplace plugin's Skill (as
    Claude Code names it), else the Skill's name; two plugins' same-named Skills are two entries."""
    return f"{row.plugin}:{row.skill}" if row.plugin else row.skill


def offered(row: Row, shown: Listing) -> bool:
    """True when the host offers ROW: its Skill is listed and, for a description row, its text is not
    clipped before the row's trigger ends; rows of an instruction file are offered when their line's
    bytes fall within the offered part (a clipped AGENTS.md hides the rows past the cap)."""
    for path, _size, _clipped, lines in shown.instructions:
        if row.file is not None and path == row.file:
            return row.line <= lines
    name = listed_name(row)
    if name not in shown.shown:
        return name not in shown.dropped
    if row.kind == "description":
        return len(shown.shown[name]) >= len(row.trigger)
    return True
