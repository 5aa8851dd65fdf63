"""What a host offers the model from one installed plugin at session start: the listing model, pure.

A user installs plugins, not marketplaces, so the model runs per plugin and per host. Each pinned
host's numbers and overflow rule are in `LIMITS`, read from the host's own shipped code (the cited
constants); docs/authoring.md ("Listing model") cites each one.

- Claude Code: budget = context tokens x 4 chars x 1% (8,000 for the 200k default); each entry is
  `- name: description`, the description capped at 1,536. Over budget, every Skill is listed by name
  and descriptions are added whole, in priority order (past use; listing order for a new install),
  while they fit: the rest are listed by name only (their descriptions dropped whole).
- Codex: budget = 2% of the context window in tokens (a line costs ceil((bytes + 1) / 4)), 8,000
  characters when the window is unknown; a description over 1,024 is cut to 1,021 + "...". Each line is
  `- name: description (file: r0/<dir>/SKILL.md)`, after the 4 bundled system Skills, sorted by name.
  Over budget, the room left after the bare lines is dealt out one character at a time to each
  description in turn (short ones kept whole); when even bare lines do not fit, they are kept in order
  while they fit and the rest omitted. The `### Skill roots` table past `ROOTS_FREE` bytes (a long
  CODEX_HOME) comes out of the budget. AGENTS.md is read root first up to 32 KiB cumulative, the rest
  clipped with no marker. Measured against the real 0.171.0 CLI (docs/authoring.md).

The canary and batch doors call `not_offered_reason` (via `runner.doors`) with the same model `audit`
reports, so a row the host would not show is refused before a run is spent on it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from workbench.core.routing import Row

Overflow = Literal["whole-or-name", "shorten-then-omit"]


@dataclass(frozen=True)
class HostLimits:
    """One host version's listing limits; None where the host has no such limit."""

    host: str
    version: str
    fraction: float
    """Share of the context window given to the Skill listing."""
    default_context: int | None
    """Context tokens assumed when the model's window is unknown (None: use `default_chars`)."""
    default_chars: int
    description_cap: int | None
    instructions_cap: int | None
    overflow: Overflow
    source: str
    bundled: tuple[tuple[str, int], ...] = ()
    """The host's own Skills listed ahead of the plugin's: (name, description length), sharing the budget."""
    cap_marker: str = ""
    """Appended to a description cut at `description_cap` (the cut text plus it is `description_cap` long)."""


CHARS_PER_TOKEN = 4
"""Both hosts convert tokens to characters (bytes) at 4 a token."""

LIMITS: dict[str, HostLimits] = {
    "claude": HostLimits("claude", "2.1.197", 0.01, 200_000, 8_000, 1_536, None, "whole-or-name",
                         "Claude Code 2.1.197 bundle: skillListingBudgetFraction default 0.01, context default "
                         "200000, 4 bytes a token, skillListingMaxDescChars default 1536; the session's listing "
                         "passes a usage priority, so over budget descriptions are kept whole or dropped; "
                         "SLASH_COMMAND_TOOL_CHAR_BUDGET overrides"),
    "codex": HostLimits("codex", "0.171.0", 0.02, 272_000, 8_000, 1_024, 32 * 1024, "shorten-then-omit",
                        "openai/codex codex-rs core-skills render.rs: SKILL_METADATA_CONTEXT_WINDOW_PERCENT 2, "
                        "DEFAULT_SKILL_METADATA_CHAR_BUDGET 8_000, MAX_CATALOG_SKILL_DESCRIPTION_CHARS 1_024 (the "
                        "0.171.0 binary carries its '2% skills context budget' warnings); AGENTS.md "
                        "project_doc_max_bytes = 32768 (string in the 0.171.0 binary; Codex AGENTS.md guide); "
                        "bundled Skills, line shape and cap marker measured on the 0.171.0 CLI; context "
                        "272,000 tokens: the 0.171.0 model catalog's window for its default model, and the "
                        "fallback it gives an unknown model name (measured: a 21,759-byte listing)",
                        bundled=(("imagegen", 570), ("openai-docs", 624), ("skill-creator", 106),
                                 ("skill-installer", 225)), cap_marker="..."),
}
"""Per pinned host, the limits the listing model applies (hosts absent here are not modelled)."""


def budget_chars(lim: HostLimits, context_tokens: int | None = None) -> int:
    """The listing budget in characters for a model with CONTEXT_TOKENS (None: the host's default)."""
    tokens = context_tokens or lim.default_context
    if tokens is None:
        return lim.default_chars
    return max(1, int(tokens * CHARS_PER_TOKEN * lim.fraction))


@dataclass(frozen=True)
class Entry:
    """One Skill's listing entry: its name, its SKILL.md and its description as written."""

    skill: str
    file: Path
    description: str


@dataclass
class Listing:
    """What HOST would offer of one plugin: the Skills listed (description as shown), those omitted
    whole, those whose description was cut, and the instruction files' bytes offered / clipped."""

    host: str
    version: str
    plugin: str = ""
    budget: int = 0
    shown: dict[str, str] = field(default_factory=dict)
    dropped: list[str] = field(default_factory=list)
    clipped: list[str] = field(default_factory=list)
    full: dict[str, str] = field(default_factory=dict)
    """Each Skill's description as written (before any cap)."""
    instructions: list[tuple[Path, int, int, int]] = field(default_factory=list)
    """(file, bytes offered, bytes clipped, whole lines offered), root first."""

    def as_dict(self) -> dict[str, object]:
        return {"host": self.host, "version": self.version, "plugin": self.plugin, "budget": self.budget,
                "shown": sorted(self.shown), "dropped": self.dropped, "clipped": self.clipped,
                "instructions": [{"file": str(f), "offered": o, "clipped": c, "lines": n}
                                 for f, o, c, n in self.instructions]}


def _line_cost(tokens: bool, chars: int, size: int) -> int:
    """What a listing line of CHARS characters and SIZE bytes (its newline counted) costs Codex."""
    return (size + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN if tokens else chars


ROOTS_FREE = 156
"""Bytes of Codex's `### Skill roots` table (its heading and the `r0`/`r1` lines) that cost nothing:
beyond them the table comes out of the listing budget (measured on 0.171.0, 1 token a 4 bytes)."""


def _codex(lim: HostLimits, entries: list[Entry], texts: dict[str, str], out: Listing,
           context_tokens: int | None, skills_root: str | None) -> None:
    """Codex's rule (codex-rs core-skills render.rs, as the 0.171.0 CLI listed it): the bundled Skills
    first, then the plugin's by name; each line `- name: description (file: r0/<dir>/SKILL.md)`."""
    context_tokens = context_tokens or lim.default_context
    tokens = bool(context_tokens)
    limit = max(1, int(context_tokens * lim.fraction)) if context_tokens else lim.default_chars
    table = 16 + 2 * len((skills_root or "").encode()) + 32  # "### Skill roots", `r0` = root, `r1` = root/.system
    limit -= max(0, _line_cost(tokens, table - ROOTS_FREE, table - ROOTS_FREE))
    lines = [(n, "x" * size, f"r1/{n}/SKILL.md", False) for n, size in sorted(lim.bundled)]
    lines += [(e.skill, texts[e.skill], f"r0/{e.file.parent.name}/SKILL.md", True)
              for e in sorted(entries, key=lambda e: e.skill)]

    def cost(text: str) -> int:
        return _line_cost(tokens, len(text) + 1, len(text.encode()) + 1)

    bare = [cost(f"- {n}: (file: {path})") for n, _, path, _ in lines]
    if sum(cost(f"- {n}: {d} (file: {path})" if d else f"- {n}: (file: {path})")
           for n, d, path, _ in lines) <= limit:
        keep = [len(d) for _, d, _, _ in lines]
    elif sum(bare) <= limit:
        keep = [0] * len(lines)
        now = [0] * len(lines)
        room = limit - sum(bare)
        base = [(len(f"- {n}: (file: {path})") + 1, len(f"- {n}: (file: {path})".encode()) + 1)
                for n, _, path, _ in lines]
        changed = True
        while changed:  # one more character to each description in turn while it fits
            changed = False
            for i, (_, d, _, _) in enumerate(lines):
                if keep[i] >= len(d):
                    continue
                chars, size = base[i]
                step = _line_cost(tokens, chars + keep[i] + 2, size + len(d[:keep[i] + 1].encode()) + 1) \
                    - _line_cost(tokens, chars, size)
                if step - now[i] <= room:
                    room -= step - now[i]
                    now[i], keep[i] = step, keep[i] + 1
                    changed = True
    else:
        keep, used = [], 0
        for c in bare:  # bare lines in order while they fit; the rest omitted
            keep.append(0 if used + c <= limit else -1)
            used += c if keep[-1] == 0 else 0
    for (n, d, _, mine), k in zip(lines, keep, strict=True):
        if not mine:
            continue
        if k < 0:
            out.dropped.append(n)
            continue
        out.shown[n] = d[:k]
        if k < len(out.full[n]) and n not in out.clipped:
            out.clipped.append(n)


def listing(host: str, entries: list[Entry], instructions: tuple[tuple[Path, bytes], ...] = (),
            *, limits: HostLimits | None = None, context_tokens: int | None = None, plugin: str = "",
            skills_root: str | None = None) -> Listing:
    """What HOST would offer of one plugin's ENTRIES (in listing order) and INSTRUCTIONS (root first).
    SKILLS_ROOT: the folder Codex lists the plugin's Skills from (its path's length costs budget past
    `ROOTS_FREE`; None: short enough to be free, as `~/.codex/skills` and a run's temp home are)."""
    lim = limits or LIMITS.get(host)
    out = Listing(host, lim.version if lim else "", plugin)
    texts = {e.skill: e.description for e in entries}
    out.full = dict(texts)
    if lim is not None:
        out.budget = budget_chars(lim, context_tokens)
        for e in entries:
            if lim.description_cap is not None and len(e.description) > lim.description_cap:
                texts[e.skill] = e.description[:lim.description_cap - len(lim.cap_marker)] + lim.cap_marker
                out.clipped.append(e.skill)
    if lim is not None and lim.overflow == "shorten-then-omit":
        _codex(lim, entries, texts, out, context_tokens, skills_root)
    elif lim is not None:
        names = [e.skill for e in entries]
        total = sum(len(n) + 4 + len(texts[n]) for n in names) + max(0, len(names) - 1)  # "- n: d" lines
        if total > out.budget and names:
            room = out.budget - sum(len(n) + 2 for n in names) - (len(names) - 1)
            for n in names:  # "- name" for all, then ": description" whole while it fits
                if len(texts[n]) + 2 <= room:
                    room -= len(texts[n]) + 2
                else:
                    texts[n] = ""
                    out.clipped += [] if n in out.clipped else [n]
        out.shown = {n: texts[n] for n in names}
    else:
        out.shown = texts
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


def not_offered_reason(row: Row, shown: Listing) -> str | None:
    """Why the host would not offer ROW (None: it would). A description row needs its whole trigger
    shown; any row of a Skill the host omits is not offered; a row of an instruction file needs its
    line within the offered bytes (a clipped AGENTS.md hides the rows past the cap)."""
    for path, size, clipped, lines in shown.instructions:
        if row.file is not None and path == row.file:
            return None if row.line <= lines else \
                f"{path.name} line {row.line} is past the {size}-byte instruction cap ({clipped} bytes clipped)"
    name = listed_name(row)
    where = f"{shown.host} {shown.version}" + (f", plugin {shown.plugin}" if shown.plugin else "")
    if name in shown.dropped:
        return f"{where}: Skill {name} is omitted from the listing (budget {shown.budget} chars)"
    if name not in shown.shown or row.kind != "description":
        return None
    text, full = shown.shown[name], shown.full.get(name, row.trigger)
    start = max(0, full.find(row.trigger))
    if len(text) >= start + len(row.trigger):
        return None
    if not text:
        return f"{where}: listing over its {shown.budget}-char budget lists Skill {name} by name only"
    return f"{where}: description of {name} cut to {len(text)} of {len(full)} chars (budget {shown.budget}, " \
           f"cap {LIMITS[shown.host].description_cap if shown.host in LIMITS else '-'})"


def offered(row: Row, shown: Listing) -> bool:
    """True when the host offers ROW (`not_offered_reason` is None)."""
    return not_offered_reason(row, shown) is None
