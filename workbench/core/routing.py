"""Routing rows: the lines of a plugin that tell an agent WHICH procedure file to read and WHEN.

Three shapes are parsed, each into `Row`s with a stable id:

- markdown tables in a SKILL.md (`| When | Read |`): the first cell is the trigger, links in the
  other cells are procedure files relative to that SKILL.md;
- list-style routing maps (a text block a hook injects): one entry per line or bullet, the trigger
  is the text before the first link; links may be markdown links or bare `*.md` paths;
- the `description:` of a Skill's frontmatter (a row without links: the Skill's own trigger).

Row ids are the slug of the first linked file's stem (`workflows/pull-request.md` -> `pull-request`),
or of the trigger for rows without links, so rewording a row keeps its id.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

RowKind = Literal["table", "list", "description"]
Wording = Literal["before-action", "state", "bare-and"]

_LINK = re.compile(r"\[([^\]]*)\]\(([^)\s]+)\)")
_BARE_PATH = re.compile(r"(?<![\w/.(\[-])((?:\.{0,2}/)?(?:[\w.-]+/)*[\w-]+\.md)\b")
_SEPARATOR = re.compile(r"^\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_BARE_JOIN = re.compile(r"\s*(?:,\s*)?(?:and|&|\+|or)\s*", re.IGNORECASE)


@dataclass(frozen=True)
class Link:
    """One procedure file a row links: label, path as written, resolved file, wording, and the gap.

    `gap` is the text between the previous link (or the trigger) and this one: where a second
    file's own before-clause would be.
    """

    label: str
    target: str
    path: Path
    wording: Wording
    gap: str = ""


@dataclass(frozen=True)
class Row:
    """One routing row: where it is, what triggers it, and which files it links."""

    skill: str
    trigger: str
    links: tuple[Link, ...]
    line: int
    id: str = ""
    kind: RowKind = "table"
    file: Path | None = None
    text: str = ""


def slug(text: str) -> str:
    """`Before opening a PR` -> `before-opening-a-pr`."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "row"


def trigger_wording(trigger: str) -> Wording:
    """"Before <verb>ing ..." names the action; anything else describes a state."""
    found = re.match(r"\s*before\s+(\w+)", trigger, re.IGNORECASE)
    return "before-action" if found and found.group(1).lower().endswith("ing") else "state"


def _links(rest: str, base: Path, wording: Wording, *, bare_paths: bool = False) -> list[Link]:
    """Links in REST (resolved against BASE); a link after a bare conjunct gets wording `bare-and`."""
    found: list[tuple[int, int, str, str]] = []
    for m in _LINK.finditer(rest):
        if not m.group(2).startswith(("http://", "https://", "#", "mailto:")):
            found.append((m.start(), m.end(), m.group(1), m.group(2).split("#")[0]))
    if bare_paths:
        spans = [(s, e) for s, e, _, _ in found]
        for m in _BARE_PATH.finditer(rest):
            if not any(s <= m.start() < e for s, e in spans):
                found.append((m.start(), m.end(), m.group(1), m.group(1)))
        found.sort()
    links: list[Link] = []
    last_end = 0
    for start, end, label, target in found:
        gap = rest[last_end:start]
        bare = bool(links) and _BARE_JOIN.fullmatch(gap) is not None
        links.append(Link(label, target, (base / target).resolve(), "bare-and" if bare else wording, gap))
        last_end = end
    return links


def parse_table(text: str, skill_file: Path, skill: str, *, line_offset: int = 0) -> list[Row]:
    """Rows of the markdown tables in TEXT whose cells after the first contain links."""
    rows: list[Row] = []
    in_table = False
    for n, raw in enumerate(text.split("\n"), start=1):
        line = raw.strip()
        if not line.startswith("|"):
            in_table = False
            continue
        if _SEPARATOR.match(line):
            in_table = True
            continue
        if not in_table:
            continue  # a header row
        cells = [c.strip() for c in line.strip("|").split("|")]
        trigger, rest = cells[0], " | ".join(cells[1:])
        links = _links(rest, skill_file.parent, trigger_wording(trigger))
        first = _LINK.search(trigger)
        if not links and first:  # "| Claim readiness and [verify](verify.md) |": links in the trigger cell
            trigger, rest = trigger[:first.start()].strip(), trigger[first.start():]
            links = _links(rest, skill_file.parent, trigger_wording(trigger))
        if links:
            rows.append(Row(skill, trigger, tuple(links), n + line_offset, kind="table", file=skill_file, text=raw))
    return rows


def parse_list(text: str, file: Path, skill: str, *, bullets_only: bool, line_offset: int = 0,
               fallback: Path | None = None) -> list[Row]:
    """List-style routing entries: one per line or bullet, the trigger before the first link.

    Links resolve against FILE's folder, or against FALLBACK (the plugin root) when that is where
    the file exists: a hook-injected map often names paths from the plugin root.
    """
    rows: list[Row] = []
    in_fence = False
    for n, raw in enumerate(text.split("\n"), start=1):
        stripped = raw.strip()
        if stripped.startswith("```"):
            in_fence = not in_fence
            continue
        bullet = _BULLET.match(raw)
        if in_fence or not stripped or stripped.startswith(("|", "#")) or (bullets_only and not bullet):
            continue
        body = raw[bullet.end():] if bullet else stripped
        first = min([m.start() for m in _LINK.finditer(body)] + [m.start() for m in _BARE_PATH.finditer(body)],
                    default=None)
        if first is None:
            continue
        trigger = re.sub(r"[\s:,;—–>-]*(?:read|see|open|load|use)?[\s:,;—–>-]*$", "", body[:first],
                         flags=re.IGNORECASE).strip()
        links = _links(body[first:], file.parent, trigger_wording(trigger), bare_paths=True)
        if fallback is not None:
            links = [replace(lk, path=(fallback / lk.target).resolve())
                     if not lk.path.exists() and (fallback / lk.target).exists() else lk for lk in links]
        rows.append(Row(skill, trigger, tuple(links), n + line_offset, kind="list", file=file, text=raw))
    return rows


def frontmatter(text: str) -> tuple[dict[str, tuple[str, int]], str, int]:
    """`key: value` pairs (with their line numbers) of a leading `---` block, the body, and its offset."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return {}, text, 0
    for end in range(1, len(lines)):
        if lines[end].strip() == "---":
            meta: dict[str, tuple[str, int]] = {}
            for number, line in enumerate(lines[1:end], start=2):
                key, sep, value = line.partition(":")
                if sep and key.strip() and not line.startswith((" ", "\t")):
                    meta[key.strip()] = (value.strip().strip("\"'"), number)
            return meta, "\n".join(lines[end + 1:]), end + 1
    return {}, text, 0


def parse_text(text: str, file: Path, *, skill: str | None = None, plugin: Path | None = None) -> list[Row]:
    """Every routing row of one file: description, table rows, list entries (without ids)."""
    meta, body, offset = frontmatter(text)
    is_skill = file.name == "SKILL.md" or bool(meta)
    name = skill or (meta["name"][0] if "name" in meta else file.parent.name if is_skill else file.stem)
    rows: list[Row] = []
    if "description" in meta:
        desc, line = meta["description"]
        rows.append(Row(name, desc, (), line, kind="description", file=file, text=text.split("\n")[line - 1]))
    rows += parse_table(body, file, name, line_offset=offset)
    rows += parse_list(body, file, name, bullets_only=is_skill, line_offset=offset, fallback=plugin)
    return sorted(rows, key=lambda r: r.line)


def assign_ids(rows: list[Row]) -> list[Row]:
    """Give each row a stable, unique id: first link's stem, else trigger; skill-prefixed on clashes."""
    def base(row: Row) -> str:
        if row.kind == "description":
            return f"{slug(row.skill)}-description"
        return slug(Path(row.links[0].target).stem) if row.links else slug(row.trigger)

    seen: set[str] = set()
    out: list[Row] = []
    for row in rows:
        candidate = base(row)
        if candidate in seen:
            candidate = f"{slug(row.skill)}-{candidate}"
        number = 2
        unique = candidate
        while unique in seen:
            unique, number = f"{candidate}-{number}", number + 1
        seen.add(unique)
        out.append(replace(row, id=unique))
    return out


def parse_files(files: list[Path], *, plugin: Path | None = None) -> list[Row]:
    """Rows of every file, in file order, with ids."""
    rows: list[Row] = []
    for file in files:
        rows += parse_text(file.read_text(encoding="utf-8"), file, plugin=plugin)
    return assign_ids(rows)


def find_row(rows: list[Row], ref: str) -> Row | None:
    """A row by id, else by exact trigger (case-insensitive)."""
    for row in rows:
        if row.id == ref:
            return row
    return next((row for row in rows if row.trigger.lower() == ref.lower()), None)


def required_key(link: Link, row: Row) -> str:
    """The path suffix cases use for a link: as written, without a leading `./`."""
    return link.target[2:] if link.target.startswith("./") else link.target
