"""Routing rows: the lines of a plugin that tell an agent WHICH procedure file to read and WHEN.

Rows are read from the markdown (`workbench.core.markdown`) the way authors write them:

- a table body row: the first cell is the trigger, links in the other cells;
- a list item or a prose sentence that routes: "Before X, read [y](y.md)", "When X, read [y]",
  "For X, apply [y] before Z", "[y] before X", "Read [y] when X", "**`y.md`** - Read when X";
- in a routing map a hook injects (a routing file that is not a SKILL.md): every line with a
  link or a bare `*.md` path;
- the `description` of a Skill's front matter (kind `description`, no links).

Each link carries ITS clause: the text before it (or the trigger cell, for the first link) or,
when the author wrote the clause after the link, the text after it. Links inside code, links to
anything but a markdown file, and anti-examples ("Don't read [x]") make no row.

Row ids come from the row's own content and place, never from another row's wording:
`<skill>/<first linked file>` (the stem, or the parent folder for `*/index.md`), `<skill>/description`;
inside a marketplace the Skill is namespaced by its plugin (`<plugin>:<skill>/...`). A later row
linking a file an earlier row already links is told apart by its section heading (`assign_ids`).
"""

from __future__ import annotations

import difflib
import functools
import glob
import json
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from workbench.core.errors import InputError
from workbench.core.linkfiles import TEMPLATE, exists_exactly, is_project_file, link_exists, skill_folders, unshipped
from workbench.core.markdown import (
    Block,
    Piece,
    blocks,
    drawn_trees,
    folders_in_words,
    front_matter,
    front_matter_lenient,
    mentions,
    named_folders,
    read_text,
    read_text_lossy,
)

RowKind = Literal["table", "list", "prose", "map", "description"]
Wording = Literal["before-action", "state", "bare-and"]
Side = Literal["before", "after"]

_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)
_MD_PATH = re.compile(r"^(?:\.{1,2}/)?[\w{}<>*@$.-]+(?:/[\w{}<>*@.-]+)*\.md$", re.IGNORECASE)
_BARE_PATH = re.compile(r"(?<![\w/.(\[`-])((?:\.{1,2}/|\$)?(?:[\w{}.-]+/)*[\w{}-]+\.md)\b")
"""A file path as a code span or a bare word names it: relative (`./`, `../` or none) or from a placeholder; an
absolute path (`/tmp/notes.md`, `/path/to/x.md`) is a machine's file or an example, as an absolute href is."""
_CELL_LEAD = re.compile(r"[\s,;/&+*_]*(?:(?:and|or)\s*)?", re.IGNORECASE)
"""What may stand before a `path.md` code span in a table cell that lists files (`a.md`, `b.md` or `c.md`)."""
_BARE_JOIN = re.compile(r"\s*(?:\([^()]*\)\s*)?(?:,\s*)?(?:and|&|\+|or)\s*", re.IGNORECASE)
"""What joins a second file to the first: "`a.md` and `b.md`", "`a.md` (default) or `b.md`"."""
_AND_JOIN = re.compile(r"\s*(?:,\s*)?(?:and|&|\+)\s*", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z*\[`(])")
_LEAD_CLAUSE = re.compile(r"^\W*(before|when|whenever|while|if|once|after|prior to|ahead of|as soon as|for|on|"
                          r"during|at)\b|\b(before|when|whenever|prior to|ahead of)\b", re.IGNORECASE)
_TRAIL_CLAUSE = re.compile(r"\b(before|when|whenever|while|prior to|ahead of|once|if)\b", re.IGNORECASE)
_READ_VERB = r"(?:read|see|open|load|use|apply|follow|consult|invoke|check)"
_LEAD_TAIL = re.compile(rf"[\s:,;—–>→-]*(?:(?:then|first|also)\s+)?(?:{_READ_VERB})?[\s:,;—–>→-]*$", re.IGNORECASE)
_TRAIL_HEAD = re.compile(r"^[\s:,;—–>→)-]*")
_DESCRIBED = re.compile(r"\s[—–]\s")
"""A dash that, after a trailing clause, starts what the file holds ("`y.md` before X — it carries …")."""
_SEPARATED = re.compile(r"[:—–→]\s*$|\s-\s*$|\s(?:->|=>)\s*$")
_ANTI = re.compile(r"^\W*(don'?t|do not|never|avoid|bad|wrong|not|no)\b|❌|🚫", re.IGNORECASE)
_CUT = re.compile(r"[;]|(?<!\bvs)(?<!\be\.g)(?<!\bi\.e)\.\s")
_INDEX_ITEM = re.compile(r"^[\s*_]*(?:[—–:]|-\s|->|→)\s*(\S.*)$")
_POINTS = re.compile(r"(?:[:—–→]|\s-|->)\s*$|\b(?:read|see|open|load|consult|follow)\s*$", re.IGNORECASE)
_READ_BEFORE = re.compile(r"\b(?:read|see|open|load|consult|follow)\s+$", re.IGNORECASE)
_TOPIC_READ = re.compile(r"[:→]\W*(?:read|load|open|follow|consult)\s*$", re.IGNORECASE)
_BARE_READ = re.compile(r"^\W*(?:read|load|open|follow|consult)\s*$", re.IGNORECASE)
_THAT_FILE = re.compile(r"^(\W*(?:read|load|open|consult)\s+)(?:that|this|the)\s+(?:file|reference|guide|document)\b",
                        re.IGNORECASE)
_SHOWCASE = re.compile(r"\b(?:examples?|samples?|illustrations?|produces?|outputs?|generates?|writes|results?|"
                       r"deliverables?|artifacts?|move|split)\b(?!/)[^.]*:\s*$", re.IGNORECASE)
_PICK_READ = re.compile(r"\b(?:read|load|open|consult|follow)\b[^.]*:\s*$", re.IGNORECASE)
"""An item that tells the agent to read one of the files listed below it: its sub-items route."""
_SHOW_HEADING = re.compile(r"^\W*(?:(?:usage |more |worked )?examples?|example (?:output |outputs? )?files?|"
                           r"(?:example |sample )?outputs?(?: files?)?|output files?|deliverables?|artifacts?)\W*$",
                           re.IGNORECASE)
_OUTPUT_HEAD = re.compile(r"^\W*(?:outputs?|produces?|generated|deliverables?|artifacts?|contents)\W*$", re.IGNORECASE)
_LOCATION = re.compile(r"^\W*(?:(?:file |settings |config )?(?:location|path|name)|filename|stored (?:in|at)|"
                       r"saved? (?:to|as|in))\W*$", re.IGNORECASE)
_MAYBE = re.compile(r"\b(?:if|where|when) (?:it|they|one|the file|such a file) (?:exists?|is present|are present|"
                    r"(?:does not|doesn't|do not|don't) exist)\b|"
                    r"\bif (?:present|any)\b", re.IGNORECASE)
_MAYBE_NEXT = re.compile(r"^\W*(?:if (?:it|they|the files?) (?:exists?|(?:does not|doesn't|do not|don't) exist)|"
                         r"(?:if|when) (?:(?:it is|they are|either is|both are) )?(?:absent|missing)\b)\b",
                         re.IGNORECASE)
"""A sentence that says the files just named may be missing ("If they don't exist, suggest /start",
"When absent, report n/a")."""
_MAYBE_WHY = "a file that may not exist (\"if it exists\"): the user's project file, not a procedure"
_COMMAND_ONLY = re.compile(r"^\W*`?/[\w:-]+`?\W*$")
_ASIDE = re.compile(r"\(\s*(?:see|cf\.?)(?:\s+also)?\s*$", re.IGNORECASE)
_EXAMPLE_ASIDE = re.compile(r"\(\s*(?:e\.g\.|for example|for instance)[^()]*$", re.IGNORECASE)
"""An open "(e.g. …" before a link: the file is an example ("(e.g. `R-1` → `specs/S-1.md`)"), not a route."""
_READ_LEAD = re.compile(r"^\W*(?:read|load|open|consult)\b[^.]*:\s*$", re.IGNORECASE)
_EXAMPLE_LEAD = re.compile(r"^[\W_]*(?:examples?|samples?|e\.g\.|for example|for instance)(?:[\W_]*|\s*:.*(?:→|->|=>)\s*)$",
                           re.IGNORECASE)
"""A lead that makes what follows an example: "Examples:", or "Example: `march.csv` → " (the file a name maps to)."""
_OUTPUT = re.compile(r"\b(?:save[sd]?|writes?|written|output|store[sd]?|create[sd]?|generate[sd]?|keeps?|kept)\b[^.;]*"
                     r"\b(?:to|into|at|as)\b[\s:*]*$", re.IGNORECASE)
_MAKE_BEFORE = re.compile(r"\b(?:create|write|generate|produce)\s+(?:(?:a|an|the|new)\s+)?$|"
                          r"\b(?:create|write|generate|produce|seed|scaffold)\b[^.;]*\bfiles\s*:(?:\s*`[^`]*`\s*,)*\s*"
                          r"(?:and\s+)?$", re.IGNORECASE)
"""Words right before a file the text makes: "Create a `PLAN.md`", "Create the layout and seed files:
`index.md`, `log.md`"."""
_MAKE_HEADING = re.compile(r"^\W*(?:step\s+\w+\W+)?(?:generate|create|write|produce|scaffold)\b"
                           r"|^\W*\d+[.):]\s*(?:generate|create|write|produce|scaffold)\b.*\bfiles?\W*$", re.IGNORECASE)
"""A section whose heading says the step makes files ("Step 3: Generate the rules", "7. Write Memory
Files"; a numbered step only when it names files): the files it lists are made."""
_MAPPED = re.compile(r"^\W*(?:→|->|=>)\s*`(?![^`]*\.md`)[^`]+`")
"""A file mapped to a name ("`0042-rent.md` → `ENTRY-0042`"): names a file, not when to read it."""
_SKILL_NAMED = re.compile(r"`([\w.-]+(?::[\w.-]+)?)`|\b([\w.-]+:[\w.-]+)\b|\b([\w-]+)\**\s+skill\b", re.IGNORECASE)
_SKILL_CALLED = re.compile(r"`([\w.-]+)`\s+skill\b|\b([\w-]+)\**\s+skill\b|`([\w.-]+:[\w.-]+)`", re.IGNORECASE)
"""A Skill named as one: "the `ledger-migrate` skill", "the **venue-templates** skill",
"`books-plugin:fan-out`" (not any code span)."""
_HEADING_LINE = re.compile(r"^#{1,6}\s")
_WORKDIR = re.compile(r"\b(?:(?:current|the|your|user's) working director(?:y|ies)|the current directory|"
                      r"the user's project)\b", re.IGNORECASE)
"""Words that place the files of a section in the user's project ("Check the working directory for:")."""


@dataclass(frozen=True)
class Link:
    """One procedure file a row links: label, path as written, resolved file, wording and its clause.

    `gap` is the text between the previous link (or the trigger) and this one; `clause` is the
    text that says when THIS file applies, on `side` "before" or "after" the link; `after` is the
    text following the link up to the next link or separator (a trailing clause, if any).
    """

    label: str
    target: str
    path: Path
    wording: Wording
    gap: str = ""
    clause: str = ""
    side: Side = "before"
    after: str = ""


@dataclass(frozen=True)
class Row:
    """One routing row: where it is, what triggers it, which files it links, and why it is a row."""

    skill: str
    trigger: str
    links: tuple[Link, ...]
    line: int
    id: str = ""
    kind: RowKind = "table"
    file: Path | None = None
    text: str = ""
    why: str = ""
    section: str = ""
    """The nearest heading above the row: tells apart later rows linking the same file."""
    plugin: str = ""
    """The plugin of a marketplace the row's file belongs to ('' when the workspace is one plugin)."""


@dataclass(frozen=True)
class Rejected:
    """A line that links a procedure file but makes no row, and why not."""

    file: Path
    line: int
    text: str
    why: str


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else "…" + text[-limit:]


def _has_any_link(block: Block) -> bool:
    return any(_has_link(cell) for cell in block.cells)


def slug(text: str) -> str:
    """`Before opening a PR` -> `before-opening-a-pr`."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "row"


def trigger_wording(clause: str) -> Wording:
    """"Before <verb>ing ..." names the action; anything else describes a state."""
    found = re.search(r"\bbefore\s+(\w+)", clause, re.IGNORECASE)
    return "before-action" if found and found.group(1).lower().endswith("ing") else "state"


def is_procedure_href(href: str) -> bool:
    """A local link to a markdown file (not a URL, an anchor or another kind of file)."""
    path = href.split("#")[0].strip()
    return bool(path) and not _SCHEME.match(path) and not path.startswith("/") and path.lower().endswith(".md")


def _text(pieces: list[Piece]) -> str:
    return "".join(f"`{p.text}`" if p.kind == "code" else p.text for p in pieces)


def _sentences(pieces: tuple[Piece, ...], *, by_line: bool) -> list[list[Piece]]:
    """Split PIECES at sentence ends (or, BY_LINE, at line breaks) inside text pieces."""
    merged: list[Piece] = []
    for piece in pieces:
        if piece.kind == "text" and merged and merged[-1].kind == "text":
            merged[-1] = Piece("text", merged[-1].text + piece.text, merged[-1].line)
        else:
            merged.append(piece)
    out: list[list[Piece]] = [[]]
    for piece in merged:
        if piece.kind != "text":
            out[-1].append(piece)
            continue
        line = piece.line
        for index, part in enumerate((re.compile(r"\n") if by_line else _SENTENCE).split(piece.text)):
            if index:
                out.append([])
            out[-1].append(Piece("text", part.replace("\n", " "), line))
            line += part.count("\n") + (1 if by_line else 0)
    return [s for s in out if any(p.kind != "text" or p.text.strip() for p in s)]


def _mark_links(sentence: list[Piece], *, bare: bool, cell: bool = False) -> list[Piece | tuple[str, str, int]]:
    """Pieces with procedure links (and a leading `path.md` code span, and bare paths when BARE)
    turned into (label, target, line) tuples. In a table CELL a `path.md` code span with nothing but
    joiners before it is a link too (`| Porting a prompt | `references/port.md` |`)."""
    if not any(".md" in (p.href if p.kind == "link" else p.text).lower() for p in sentence):
        return list(sentence)  # names no markdown file: nothing to mark (most sentences)
    out: list[Piece | tuple[str, str, int]] = []
    leading = True
    before = ""
    since = None  # the text since the last link taken (None before any): "`a.md` and `b.md`" takes both
    for i, piece in enumerate(sentence):
        nxt = sentence[i + 1].text if i + 1 < len(sentence) and sentence[i + 1].kind == "text" else ""
        output = bool(_OUTPUT.search(before))
        if piece.kind == "link" and is_procedure_href(piece.href) and not output:
            out.append((piece.text, piece.href.split("#")[0].strip(), piece.line))
        elif piece.kind == "code" and _MD_PATH.match(piece.text) and not output and (
                bare or (leading and re.match(r"^\s*(?:[—–:]|-\s|->|→)", nxt)) or _POINTS.search(before)
                or (since is not None and _BARE_JOIN.fullmatch(since))
                or (cell and _CELL_LEAD.fullmatch(before if since is None else since))):
            out.append((piece.text, piece.text, piece.line))
        elif piece.kind == "text" and not output:
            last = 0
            for m in _BARE_PATH.finditer(piece.text):
                if not bare and not _READ_BEFORE.search(before + piece.text[:m.start()]):
                    continue
                out.append(Piece("text", piece.text[last:m.start()], piece.line))
                out.append((m.group(1), m.group(1), piece.line))
                last = m.end()
            out.append(Piece("text", piece.text[last:], piece.line))
        else:
            out.append(piece)
        before += f"`{piece.text}`" if piece.kind == "code" else piece.text
        if isinstance(out[-1], tuple):
            since = ""
        elif since is not None:
            since += f"`{piece.text}`" if piece.kind == "code" else piece.text
        if piece.kind != "text" or piece.text.strip(" *_"):
            leading = False
    return out


_SKILL_VARS = ("{baseDir}", "${CLAUDE_SKILL_DIR}", "$CLAUDE_SKILL_DIR")
_PLUGIN_VARS = ("${CLAUDE_PLUGIN_ROOT}", "$CLAUDE_PLUGIN_ROOT")


def _skill_folder(base: Path) -> Path:
    """The folder of the nearest SKILL.md at or above BASE (BASE itself when there is none)."""
    return next((f for f in (base, *base.parents) if (f / "SKILL.md").is_file()), base)


def _plugin_folder(base: Path, fallback: Path | None) -> Path:
    """The root of the plugin BASE lies in: inside the marketplace FALLBACK, the plugin that holds it
    (`plugin_root`); else the nearest folder at or above BASE with a `.claude-plugin/` (or `.codex-plugin/`)
    folder, else FALLBACK, else BASE."""
    inside = plugin_root(base, fallback)
    if inside is not None:
        return inside
    found = next((f for f in (base, *base.parents) if (f / ".claude-plugin").is_dir()
                  or (f / ".codex-plugin").is_dir()), None)
    return found or fallback or base


def plugin_root(folder: Path, plugin: Path | None) -> Path | None:
    """The root of the plugin of the marketplace PLUGIN that FOLDER lies in (`_own_plugin`), or None."""
    found = _own_plugin(folder.resolve(), plugin, listed=False)
    return found[0] if found is not None else None


def _own_plugin(start: Path, plugin: Path | None, *, listed: bool) -> tuple[Path, str] | None:
    """(folder, name) of the plugin the resolved folder START lies in inside the marketplace PLUGIN: the
    nearest folder at or above START, below PLUGIN, holding `.claude-plugin/plugin.json` (or
    `.codex-plugin/`; its `name`, else the folder's) or named as a `source` by PLUGIN's `marketplace.json`
    (or, LISTED, a Skill folder an entry's `skills` lists), as `reach.plugin_roots` finds plugins. None
    outside any, or when PLUGIN is itself the one plugin."""
    if plugin is None:
        return None
    top = plugin.resolve()
    sources: dict[Path, str] | None = None
    for place in (start, *start.parents):
        if place == top or not place.is_relative_to(top):
            return None
        for rel in MANIFESTS:
            if (place / rel).is_file():
                return place, _manifest_name(place / rel) or place.name
        if sources is None:
            sources = _marketplace_sources(top, sources_only=not listed)
        if place in sources:
            return place, sources[place]
    return None


MANIFESTS = (".claude-plugin/plugin.json", ".codex-plugin/plugin.json")
"""Where a plugin's own manifest lives (Claude Code's and Codex's)."""


def host_path(target: str, base: Path, fallback: Path | None = None) -> tuple[Path, str] | None:
    """(folder, rest) for a TARGET that starts with a path variable the hosts expand: `{baseDir}` and
    `${CLAUDE_SKILL_DIR}` are the Skill's folder, `${CLAUDE_PLUGIN_ROOT}` the plugin's root."""
    for names, folder in ((_SKILL_VARS, lambda: _skill_folder(base)),
                          (_PLUGIN_VARS, lambda: _plugin_folder(base, fallback))):
        for name in names:
            if target.startswith(name):
                return folder(), target[len(name):].lstrip("/")
    return None


def _resolve(target: str, base: Path, fallback: Path | None) -> Path:
    """Where TARGET, linked from a file in BASE, is: a host path variable expanded; else from BASE, else
    (when that misses) from the root of BASE's plugin, then of the workspace FALLBACK, then, for a
    `name/SKILL.md`, the folder of BASE's Skill folder (a sibling Skill by its folder), where it exists there.
    A leading `@` is Claude Code's way to name a file to load (`@references/x.md`)."""
    target = target.removeprefix("@")
    expanded = host_path(target, base, fallback)
    if expanded is not None:
        return (expanded[0] / expanded[1]).resolve()
    path = (base / target).resolve()
    if fallback is None or is_project_file(target) or path.exists():
        return path
    sibling = len(Path(target).parts) == 2 and Path(target).name == "SKILL.md" and ".." not in target
    skill = _skill_folder(base) if sibling else None
    skills = skill.parent if skill is not None and (skill / "SKILL.md").is_file() else None  # from a Skill
    for root in (plugin_root(base, fallback), fallback, skills):  # from the plugin's root, the workspace's
        if root is not None and (root / target).exists():
            return (root / target).resolve()
    grouped = _across_groups(target, _skill_folder(base))
    return grouped if grouped is not None else path


def _across_groups(target: str, skill: Path) -> Path | None:
    """Where `../NAME/x.md`, from a Skill kept in a `(group)` folder, is once installed: the one Skill NAME
    in a sibling group of the same skills folder (`skills/(quality)/seo` links `../core-web-vitals/`, kept
    in `skills/(performance)/`). Group folders sort a catalog; installers put every Skill flat."""
    parts = target.split("/")
    if len(parts) < 3 or parts[0] != ".." or ".." in parts[1:] or not (skill / "SKILL.md").is_file() or not (
            skill.parent.name.startswith("(") and skill.parent.name.endswith(")")):
        return None
    found = [p for p in skill.parent.parent.glob(f"(*)/{glob.escape(parts[1])}") if (p / "SKILL.md").is_file()]
    path = found[0].joinpath(*parts[2:]).resolve() if len(found) == 1 else None
    return path if path is not None and path.exists() else None


def _build_links(parts: list[Piece | tuple[str, str, int]], lead: str, base: Path,
                 fallback: Path | None) -> tuple[list[Link], Side, str, str]:
    """Links of PARTS with their clauses; also the clause side, the lead text and the tail text."""
    texts: list[str] = [""]
    found: list[tuple[str, str]] = []
    for part in parts:
        if isinstance(part, tuple):
            found.append((part[0], part[1]))
            texts.append("")
        else:
            texts[-1] += _text([part])
    texts[0] = (lead + " " + texts[0]).strip() if lead else texts[0]
    tail = texts[-1]
    links: list[Link] = []
    for i, (label, target) in enumerate(found):
        gap, follow = texts[i], texts[i + 1]
        if i > 0:  # the part of the gap before a `;` is the previous link's trailing clause
            pieces = _CUT.split(gap, maxsplit=1)
            gap = pieces[1] if len(pieces) > 1 else "" if links[-1].side == "after" else gap
        after = _CUT.split(follow, maxsplit=1)[0] if i + 1 < len(found) else follow
        after = after.strip(" ,")
        own_before = bool(_LEAD_CLAUSE.search(gap)) and not _BARE_JOIN.fullmatch(gap)
        link_side: Side = "after" if _TRAIL_CLAUSE.search(after) and not own_before else "before"
        clause = after if link_side == "after" else gap
        if i > 0 and _BARE_JOIN.fullmatch(gap) and not _TRAIL_CLAUSE.search(after):
            wording: Wording = "bare-and"
        elif "before-action" in (trigger_wording(gap), trigger_wording(after)):
            wording = "before-action"
        else:
            wording = "state"
        links.append(Link(label, target, _resolve(target, base, fallback), wording, gap, clause.strip(), link_side,
                          after))
    links = _share_trailing_clause(links)
    side: Side = links[0].side if links else "before"
    return links, side, texts[0], tail


def _share_trailing_clause(links: list[Link]) -> list[Link]:
    """"Read `a.md` and `b.md` before X": files joined by a bare "and" to a last file whose clause follows
    it, with nothing before them but the read, all take that clause ("Topic — `a.md`, and `b.md` when X" and
    alternatives joined by "or" keep their own)."""
    out = list(links)
    for i in range(len(out) - 1, 0, -1):
        later, earlier = out[i], out[i - 1]
        if later.side != "after" or not _AND_JOIN.fullmatch(later.gap) or earlier.side == "after" or not (
                _BARE_READ.match(earlier.gap) or _AND_JOIN.fullmatch(earlier.gap) or not earlier.gap.strip(" *_")):
            continue
        out[i - 1] = replace(earlier, side="after", clause=later.clause, wording=later.wording)
    return out


def _source_line(text: str, line: int, offset: int) -> str:
    lines = text.split("\n")
    return lines[line - 1] if 0 < line <= len(lines) else ""


_ID_HEAD = re.compile(r"^\W*(id|#|no\.?|nr\.?|number|step|order|rank|priority)\W*$", re.IGNORECASE)
_ID_CELL = re.compile(r"^[\s(#*_]*(?:[A-Z]|\d{1,3}|[A-Z]?\d{1,3}[a-z]?)[\s.):*_]*$")
"""An ID cell (`A`, `12`, `(3)`, `B2.`); a letter with a sign after it (`C#`, `F#`) names a language."""
_TRIGGER_HEAD = re.compile(r"\b(when|trigger|situation|task|before|if|condition|moment|scenario|need|use|"
                           r"goal|doing|action|you want|intent|case)\b", re.IGNORECASE)


def _has_link(cell: tuple[Piece, ...]) -> bool:
    return any(isinstance(p, tuple) for p in _mark_links(list(cell), bare=False, cell=True))


def trigger_column(block: Block) -> tuple[int | None, set[int], str]:
    """(index of the trigger cell or None, ID/step columns, why): a heading that names the trigger
    ("When", "Task", "Situation") wins, else the first cell that is no ID and holds no link, so a
    link-first table (`| [create](c.md) | Before creating the DB |`) takes its trigger from the second."""
    cells = block.cells
    header = block.header
    ids = {i for i, cell in enumerate(cells) if not _has_link(cell) and (
        (i < len(header) and _ID_HEAD.match(header[i])) or (i == 0 and _ID_CELL.match(_text(list(cell)))))}
    texts = [i for i in range(len(cells)) if not _has_link(cells[i]) and _text(list(cells[i])).strip()]
    if 0 in ids and texts == [0] and not (header and _ID_HEAD.match(header[0])):
        ids.discard(0)  # `| R | [r.md](r.md) |`: the only text cell is the trigger, not an ID
    plain = [i for i in texts if i not in ids]
    named = [i for i in plain if i < len(header) and _TRIGGER_HEAD.search(header[i])]
    if named:
        return named[0], ids, f"trigger in the column headed {header[named[0]]!r}"
    first = min((i for i in range(len(cells)) if i not in ids), default=None)
    if first is not None and first in plain:
        return first, ids, "trigger in the first cell"
    if plain:
        return plain[0], ids, "links first, trigger in the first cell without a link"
    return None, ids, ""


def _not_a_table_route(block: Block) -> str:
    """Why the table row BLOCK routes nowhere (an example, output or anti-example table), or ''."""
    if _SHOW_HEADING.match(block.section):
        return f"a table under the heading {block.section!r}: examples or outputs, not a route"
    output = next((h for h in block.header if _OUTPUT_HEAD.match(h)), None)
    if output is not None:
        return f"an output table (a column headed {output!r}): files it lists are made, not read"
    anti = [i for i, head in enumerate(block.header) if _ANTI.search(head)]
    if anti and any(p.kind == "link" for i in anti if i < len(block.cells) for p in block.cells[i]):
        return "a link in a column headed Bad/Don't: an anti-example"
    return ""


def _shown(block: Block) -> dict[str, str]:
    """The files a table row BLOCK names in a column headed Example or Suggested Path, each with that
    heading: a missing one is an illustration, wherever the text names it ("Allowed: -
    `../sibling/SKILL.md`" below the table too)."""
    if block.kind != "table":
        return {}
    return {p[1]: block.header[i].strip() for i, cell in enumerate(block.cells)
            if i < len(block.header) and _EXAMPLE_HEAD.match(block.header[i])
            for p in _mark_links(list(cell), bare=False, cell=True) if isinstance(p, tuple)}


_EXAMPLE_HEAD = re.compile(
    r"^\W*(?:examples?|samples?|e\.g\.?|illustrations?|suggested (?:paths?|locations?|names?))\W*$", re.IGNORECASE)
"""A table column whose cells illustrate (`| Relative parent | `../sibling/SKILL.md` | Yes |`) or
suggest where the user might put a file of their own (`| Suggested Path | `rules/testing.md` |`); not
"Suggested Files", which routes ("| Debugging a crash | `references/debug.md` |")."""


def _table_row(block: Block, file: Path, skill: str, fallback: Path | None) -> Row | None:
    cells = block.cells
    if not cells or _not_a_table_route(block):
        return None
    column, ids, how = trigger_column(block)
    skipped = f"; ID/step column(s) {sorted(i + 1 for i in ids)} skipped" if ids else ""
    others = [i for i in range(len(cells)) if i != column and i not in ids]
    rest = [p for i in others
            for p in (*_without_asides(_mark_links(list(cells[i]), bare=False, cell=True), examples_only=True),
                      Piece("text", " | ", block.line))]
    if rest:
        rest.pop()
    if column is not None and any(isinstance(p, tuple) for p in rest):
        trigger = _text(list(cells[column])).strip()
        links, side, _, _ = _build_links(rest, trigger, file.parent, fallback)
        why = f"table row: {how}, links in the other cells{skipped}"
    else:
        lone = others[0] if others else 0
        first = _without_asides(_mark_links(list(cells[lone]), bare=False, cell=True), examples_only=True)
        if not any(isinstance(p, tuple) for p in first):
            return None
        links, side, lead, _ = _build_links(first, "", file.parent, fallback)
        trigger = _LEAD_TAIL.sub("", lead).strip()
        why = f"table row: trigger and links in one cell{skipped}"
        beside = next((_text(list(cells[i])).strip() for i in others if i != lone and any(
            p.kind == "text" and p.text.strip(" *_|:-") for p in cells[i])), "")
        if not trigger and beside:  # `| [s](s/SKILL.md) | Worked example: `x.md` |`: every cell links
            trigger = beside
            why = f"table row: every cell links; the trigger is the text beside the first link's cell{skipped}"
    if side == "after":
        why += "; the clause follows each link"
    return Row(skill, trigger, tuple(links), block.line, kind="table", file=file, why=why, section=block.section)


def _until_described(clause: str) -> str:
    """CLAUSE up to the first dash outside quotes that starts what the file holds (`_DESCRIBED`): a dash
    inside a quoted heading ("\"Step 12.6 — tiles\" for the YAML") is part of the clause."""
    for dash in _DESCRIBED.finditer(clause):
        before = clause[:dash.start()]
        if before.count('"') % 2 == 0 and before.count("“") == before.count("”"):
            return before
    return clause


def _sentence_row(sentence: list[Piece], block: Block, file: Path, skill: str, fallback: Path | None,
                  *, as_map: bool) -> tuple[Row | None, str]:
    """The row one sentence makes, or (None, why not)."""
    parts = _without_asides(_mark_links(sentence, bare=as_map))
    if not any(isinstance(p, tuple) for p in parts):
        linked = any(isinstance(p, tuple) for p in _mark_links(sentence, bare=as_map))
        return None, ("a cross-reference in parentheses (\"(see `y.md` → Part)\"), not a route" if linked
                      else "no procedure link")
    whole = _text(sentence)
    if _ANTI.search(whole):
        return None, "an anti-example (don't / never / bad)"
    if _MAYBE.search(whole):
        return None, _MAYBE_WHY
    links, side, lead, tail = _build_links(parts, "", file.parent, fallback)
    if _EXAMPLE_LEAD.match(lead):
        return None, "an example list (\"Examples: `a.md` for …\"), not a route"
    line = next(p[2] for p in parts if isinstance(p, tuple))
    kind: RowKind = "map" if as_map else "list" if block.kind == "item" else "prose"
    if side == "after":
        clause = _TRAIL_HEAD.sub("", _CUT.split(tail, maxsplit=1)[0] if len(links) == 1 else links[0].clause)
        trigger = _until_described(clause).strip()
        why = "the clause follows the link (\"[y](y.md) before X\", \"**`y.md`** - Read when X\")"
    elif block.kind == "item" and not as_map and not lead.strip(" *_") and _INDEX_ITEM.match(tail if len(links) == 1
                                                                                             else links[0].after):
        found = _INDEX_ITEM.match(tail if len(links) == 1 else links[0].after)
        trigger = _CUT.split(found.group(1) if found else "", maxsplit=1)[0].strip()
        if _COMMAND_ONLY.match(trigger):
            return None, f"a file-to-command mapping (→ {trigger}): names a file, not when to read it"
        why = "the file first, then what it is for (\"**`y.md`** - what it covers\")"
    else:
        trigger = _LEAD_TAIL.sub("", lead).strip()
        why = "the clause comes before the link (\"Before X, read [y](y.md)\")"
        if not as_map and _BARE_READ.match(lead) and not _TRAIL_CLAUSE.search(tail):
            trigger = _text(sentence).strip(" .")
            why = "an imperative read with no clause (\"Follow [y](y.md).\"): the Skill's own trigger governs"
        elif not as_map and _TOPIC_READ.search(lead):
            trigger = _LEAD_TAIL.sub("", lead).strip(" *_:→")
            why = "the task, then the read (\"Fill forms: read [y](y.md) first\", \"**Task:** → Read `y.md`\")"
        elif not as_map and not _LEAD_CLAUSE.search(lead) and _READ_LEAD.match(lead):
            trigger = lead.strip(" :")
            why = "an imperative read of the files that follow (\"Read the guide for it: `a.md` or `b.md`\")"
        elif not as_map and not _LEAD_CLAUSE.search(lead) and not (block.kind == "item" and _SEPARATED.search(lead)):
            return None, "links without a routing clause (no before/when/for … and no 'Topic: [link]')"
        elif not as_map and _LOCATION.match(_LEAD_TAIL.sub("", lead)):
            return None, f"says where a file lives ({_LEAD_TAIL.sub('', lead).strip(' *_')!r}), not when to read it"
    if as_map:
        why = "routing map line: " + why
    return Row(skill, trigger.rstrip(" ,.;:"), tuple(links), line, kind=kind, file=file,
               why=f"{'list item' if kind == 'list' else kind}: {why}" if not as_map else why,
               section=block.section), ""


def _borrowed_trigger(row: Row, parent: str, section: str, sentence: list[Piece]) -> Row:
    """ROW, whose own lead is only a label ("- See: [y](y.md)", "**CHECK:** `y.md`"), with the trigger of
    the list item it is nested in, else of its section's heading, else its own whole text."""
    for source, where in ((parent, "the item it is nested in"), (section, "its section's heading")):
        trigger = _CUT.split(source, maxsplit=1)[0].strip(" *_:.")
        if trigger:
            return replace(row, trigger=trigger, why=f"{row.why}; only a label before the link: the trigger is {where}")
    return replace(row, trigger=_text(sentence).strip(" .*_"), why=f"{row.why}; only a label before the link")


def _without_asides(parts: list[Piece | tuple[str, str, int]], *,
                    examples_only: bool = False) -> list[Piece | tuple[str, str, int]]:
    """PARTS with each link written as an aside ("(see `y.md` → Part)", or only, EXAMPLES_ONLY, an example
    "(e.g. … `y.md`)") turned back into text."""
    out: list[Piece | tuple[str, str, int]] = []
    before = ""
    for part in parts:
        if isinstance(part, tuple) and (_EXAMPLE_ASIDE.search(before) or not examples_only and _ASIDE.search(before)):
            part = Piece("text", f"`{part[0]}`", part[2])
        out.append(part)
        before += part[0] if isinstance(part, tuple) else _text([part])
    return out


def _written(block: Block) -> set[str]:
    """Markdown paths BLOCK says the Skill keeps or writes ("Keep a capsule at `decisions.md`", "Create
    `PLAN.md` at the root", a list item that starts with a file under a "Generate the rules" heading)."""
    found: set[str] = set()
    before = ""
    makes = bool(_MAKE_HEADING.match(block.section))
    for piece in block.cells[0]:
        target = piece.text if piece.kind == "code" else piece.href if piece.kind == "link" else ""
        leads = makes and block.kind == "item" and not before.strip(" *_")
        if _MD_PATH.match(target) and (leads or _OUTPUT.search(before) or _MAKE_BEFORE.search(before)):
            found.add(target)
        before += f"`{piece.text}`" if piece.kind == "code" else piece.text
    return found


def _section_before(text: str, line: int) -> str:
    """TEXT from the heading above LINE to LINE itself."""
    lines = text.split("\n")[:line]
    start = next((i for i in range(len(lines) - 1, -1, -1) if _HEADING_LINE.match(lines[i])), 0)
    return "\n".join(lines[start:])


def _skill_names(text: str, named: re.Pattern[str] = _SKILL_NAMED) -> set[str]:
    """The Skill names TEXT gives ("the `ledger-migrate` skill", "`books-plugin:fan-out`"; by default any
    code span)."""
    return {n for m in named.finditer(text) for n in m.groups() if n}


def _named_skill_file(target: str, names: set[str], file: Path, plugin: Path | None) -> Path | None:
    """The one file TARGET names in another Skill of NAMES (`_skill_names`): at that path in the Skill, or,
    for a bare name, the one file of that name in the Skill's folders ("The venue-templates skill
    provides: `venue_writing_styles.md`", kept in its `references/`)."""
    skills = _skill_folder(file.parent).parent
    found: set[Path] = set()
    for name in names:
        space, _, skill = name.rpartition(":")
        folders = [skills / skill] if not space else [
            f for f in (plugin or skills).glob(f"*/skills/{skill}") if f.parent.parent.name == space]
        for folder in (f for f in folders if (f / "SKILL.md").is_file()):
            found |= {(folder / target).resolve()} if (folder / target).is_file() else (
                _one_below(folder, target) if "/" not in target and not is_project_file(target) else set())
    return found.pop() if len(found) == 1 else None


def _one_below(folder: Path, name: str) -> set[Path]:
    """The file NAME (case-sensitive) below FOLDER when there is exactly one, as a set (else empty)."""
    found = {p.resolve() for p in folder.rglob(name) if p.is_file() and p.name == name}
    return found if len(found) == 1 else set()


def _named_folder_file(target: str, folders: set[str], file: Path) -> tuple[Path, str] | None:
    """(file, folder) when TARGET, a path that climbs nowhere, is in exactly one of FOLDERS the text names
    below FILE's folder ("Guides (in `references/`):" or "### references/", then "- `alpha.md` - …"): the
    author named the folder once for the whole list. A project-file name (`CLAUDE.md`) is the user's, never."""
    if ".." in target.split("/") or is_project_file(target):
        return None
    found = {(path, f) for f in folders if ".." not in f.split("/")
             if exists_exactly(path := (file.parent / f / target).resolve())}
    return found.pop() if len(found) == 1 else None


@dataclass
class _Made:
    """What a Skill's text says of files it does not ship: the files it writes, those it shows in an
    Example or Suggested column (with the heading), those in a tree it draws of another folder, and those
    a sentence says may be missing or places in the working directory (the user's, wherever named)."""

    written: set[str]
    shown: dict[str, str]
    drawn: dict[str, str]
    """Path -> the root folder of the drawn tree it is in."""
    maybe: set[str]
    """Files a sentence of the Skill says may not exist ("if it exists", "When absent, …")."""
    workdir: set[str]
    """Files a sentence of the Skill places in the user's project ("`TASKS.md` in the working directory")."""


def _why_unshipped(link: Link, row: Row, made: _Made, context: str) -> str:
    """Why ROW's missing LINK is no procedure ('' when it is a DANGLING one); MADE is what the Skill's
    text says of the files it does not ship; CONTEXT is the link's section so far."""
    if link.target in made.written:
        return "a file this Skill writes (\"Keep … at `y.md`\", a command's `> y.md`), not a procedure"
    if link.target in made.shown:
        return f"a file named in a column headed {made.shown[link.target]}: an illustration, not a procedure"
    if link.target in made.maybe:
        return _MAYBE_WHY
    if (root := made.drawn.get(link.target.removeprefix("./"))) is not None:
        return (f"a file of the `{root}` tree the Skill draws (a folder it does not ship: the user's project), "
                "not a procedure")
    if _MAPPED.match(link.after):
        return "a file mapped to a name (\"`0042-x.md` → `ID-0042`\"), not when to read it"
    if link.target.removeprefix("./") == "SKILL.md" and link.label == link.target:
        return "`SKILL.md` named bare (no markdown link): the kind of file every Skill has, not one procedure"
    if host_path(link.target, Path(".")) is not None:
        return ""
    if _WORKDIR.search(context) or link.target in made.workdir:
        return (f"a file of the user's project (`{link.target}`: \"if it exists\", \"the working directory\"), "
                "not a procedure")
    return unshipped(link.target)


def _drawn_elsewhere(body: str, folder: Path) -> dict[str, str]:
    """Path -> root of each file a tree drawn in BODY holds (`markdown.drawn_trees`), for trees whose root
    is no folder beside the Skill in FOLDER, nor the Skill's own folder: the layout of a folder the
    Skill makes or reads in the user's project (`.specs/`, `blueprint/`), not its own files. A file's
    bare name counts too ("Read `program.md`" of a drawn `.runs/{name}/program.md`)."""
    theirs = [(root, path) for root, paths in drawn_trees(body)
              if root.rstrip("/") != folder.name and not (folder / root).is_dir() for path in paths]
    return {**{path.rsplit("/", 1)[-1]: root for root, path in theirs if not path.endswith("/")},
            **{path: root for root, path in theirs}}


_COMMAND_OUTPUT = re.compile(r"(?:(?<![-=<>])>>?|\btee(?:\s+-a)?|\s-o|--output[= ])\s*['\"]?([\w./{}$-]*[\w}]\.md)\b")
"""A markdown file a command the text shows writes: `markitdown deck.pptx > deck.md`, `| tee log.md`,
`pandoc -o notes.md` (in a code block or span, or in prose: the agent runs it and then has the file)."""


def command_outputs(body: str) -> set[str]:
    """The markdown files BODY's commands write (`_COMMAND_OUTPUT`), each as written."""
    return {m.group(1) for m in _COMMAND_OUTPUT.finditer(body)}


def _drop_unshipped(rows: list[Row], made: _Made, rejected: list[Rejected] | None, text: str,
                    file: Path, plugin: Path | None) -> list[Row]:
    """ROWS whose missing links are resolved in another Skill the text names, or left out when they name
    no procedure (a file the Skill writes, a template, the user's project file: `linkfiles.unshipped`)."""
    out: list[Row] = []
    folders: list[tuple[int, str]] | None = None
    called: set[str] = set()
    worded: set[str] = set()
    hrefs: set[str] = set()
    for row in rows:
        kept: list[Link] = []
        why, moved = "", ""
        for lk in row.links:
            if lk.path.is_file() or TEMPLATE.search(lk.target) and link_exists(lk.target, lk.path):
                kept.append(lk)
                continue
            context = _section_before(text, row.line)
            if folders is None:  # what the whole file names, found once per file
                folders, called = named_folders(text), _skill_names(text, _SKILL_CALLED)
                worded = folders_in_words(text, skill_folders(file))
                hrefs = {m.target.split("#")[0].removeprefix("./") for m in mentions(text) if m.kind == "link"}
            elsewhere = _named_skill_file(lk.target, _skill_names(context), file, plugin) or _named_skill_file(
                lk.target, called, file, plugin)  # in this section, else called a Skill anywhere
            start = row.line - context.count("\n")
            in_folder = None if elsewhere else (
                _named_folder_file(lk.target, {f for at, f in folders if start <= at <= row.line}, file)
                or _named_folder_file(lk.target, {f for _, f in folders}, file)  # the section's, then the file's
                or _named_folder_file(lk.target, worded, file)  # then one the Skill names in words
                or _named_folder_file(lk.target, {h[:-len(lk.target)] for h in hrefs if h.endswith("/" + lk.target)},
                                      file))  # then the folder of a link it gives in full elsewhere
            reason = "" if elsewhere or in_folder else _why_unshipped(lk, row, made, context)
            if elsewhere:
                kept.append(replace(lk, path=elsewhere))
                named = elsewhere.parents[len(Path(lk.target).parts) - 1].name
                moved += f"; {lk.target} is in the Skill {named} the text names"
            elif in_folder:
                kept.append(replace(lk, path=in_folder[0]))
                moved += f"; {lk.target} is in the folder {in_folder[1]} the text names"
            elif reason:
                why = why or reason
            else:
                kept.append(lk)
        if row.kind == "description" or tuple(kept) == row.links:
            out.append(row)
        elif kept:
            out.append(replace(row, links=tuple(kept), why=row.why + moved))
        elif rejected is not None and row.file is not None:
            rejected.append(Rejected(row.file, row.line, _source_line(text, row.line, 0), why))
    return out


def _that_file(sentence: list[Piece], previous: list[Piece]) -> list[Piece]:
    """"`y.md` holds X. Read that file when Y" as one sentence "Read `y.md` when Y"; else SENTENCE."""
    first = sentence[0] if sentence else None
    found = _THAT_FILE.match(first.text) if first is not None and first.kind == "text" else None
    paths = [p for p in previous if p.kind == "code" and _MD_PATH.match(p.text)]
    if found is None or first is None or len(paths) != 1:
        return sentence
    return [Piece("text", found.group(1), first.line), paths[0],
            Piece("text", first.text[found.end():], first.line), *sentence[1:]]


def skill_name(file: Path, meta: dict[str, object]) -> str:
    """The Skill a routing file belongs to: front matter `name`, the SKILL.md's folder, else the file stem."""
    name = meta.get("name")
    if isinstance(name, str) and name.strip():
        return name.strip()
    if file.name == "SKILL.md" or file.name.lower() == "index.md":
        return file.parent.name
    return file.stem


def _manifest_name(path: Path) -> str:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return ""
    name = data.get("name") if isinstance(data, dict) else None
    return name.strip() if isinstance(name, str) else ""


def _marketplace_sources(top: Path, *, sources_only: bool = False) -> dict[Path, str]:
    """Plugin folders a `.claude-plugin/marketplace.json` at TOP names (`source: "./plugins/x"`) -> name;
    with a `skills` array (`source: "./"`, `skills: ["./skills/xlsx"]`) each Skill folder it lists, unless
    SOURCES_ONLY. Read once per version of the file (every routing file of a marketplace asks)."""
    try:
        stat = (top / ".claude-plugin/marketplace.json").stat()
    except OSError:
        return {}
    return {folder: name for folder, name, source in _sources_read(top, stat.st_mtime_ns, stat.st_size)
            if source or not sources_only}


@functools.lru_cache(maxsize=64)
def _sources_read(top: Path, mtime_ns: int, size: int) -> tuple[tuple[Path, str, bool], ...]:
    """(folder, plugin name, whether it is the plugin's `source`) of `_marketplace_sources`, read from the
    file (MTIME_NS and SIZE key its version)."""
    try:
        data = json.loads((top / ".claude-plugin/marketplace.json").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return ()
    entries = data.get("plugins") if isinstance(data, dict) else None
    out: dict[Path, tuple[str, bool]] = {}
    for entry in entries if isinstance(entries, list) else []:
        source = entry.get("source") if isinstance(entry, dict) else None
        if isinstance(source, str) and source.startswith("./"):
            name = entry.get("name")
            name = name if isinstance(name, str) and name else Path(source).name or top.name
            out.setdefault((top / source).resolve(), (name, True))
            skills = entry.get("skills")
            for folder in skills if isinstance(skills, list) else []:
                if isinstance(folder, str):
                    out.setdefault((top / source / folder).resolve(), (name, False))
    return tuple((folder, name, source) for folder, (name, source) in out.items())


def plugin_namespace(file: Path, plugin: Path | None) -> str:
    """The plugin FILE belongs to when the workspace PLUGIN is a marketplace (`_own_plugin`, Skill folders
    a `skills` list names included): its name. '' when the workspace is itself the one plugin."""
    found = _own_plugin(file.resolve().parent, plugin, listed=True)
    return found[1] if found is not None else ""


def parse_text(text: str, file: Path, *, skill: str | None = None, plugin: Path | None = None,
               problems: list[InputError] | None = None, rejected: list[Rejected] | None = None) -> list[Row]:
    """Every routing row of one file, in line order (without ids); PLUGIN is the workspace's plugin
    folder (links that miss relative to the file resolve from it; a marketplace namespaces its plugins).
    Broken front matter or a description that is not text raises an InputError, or, given PROBLEMS,
    is appended there and the body's rows are still read (one bad block hides no row). REJECTED, when
    given, receives each line that links a procedure but is no row, with why not (`rows --explain`)."""
    if problems is None:
        fm = front_matter(text, file=file)
    else:
        fm, broken = front_matter_lenient(text, file=file)
        problems += [broken] if broken is not None else []
    is_skill = file.name == "SKILL.md" or bool(fm.data)
    name = skill or skill_name(file, fm.data)
    rows: list[Row] = []
    desc = fm.data.get("description")
    if "description" in fm.data and not isinstance(desc, str):
        first = fm.lines.get("description", (1, 1))[0]
        wrong = InputError(f"must be text, not {type(desc).__name__}: the Skill has no description row",
                           file=str(file), line=first, field="description")
        if problems is None:
            raise wrong
        problems.append(wrong)
    if isinstance(desc, str) and desc.strip() and "description" in fm.lines:
        first, _ = fm.lines["description"]
        rows.append(Row(name, " ".join(desc.split()), (), first, kind="description", file=file,
                        text=_source_line(text, first, 0), why="description: the Skill's front matter trigger"))
    showcase = ""
    nested: tuple[int, str] | None = None  # (depth, lead) of an item whose sub-items are a showcase list
    written: set[str] = command_outputs(fm.body)
    maybe: set[str] = set()  # what a sentence says may not exist
    workdir: set[str] = set()  # what a sentence places in the working directory
    shown: dict[str, str] = {}
    parents: list[tuple[int, str]] = []  # (depth, text) of the list items the current one is nested in
    for block in blocks(fm.body, offset=fm.offset):
        written |= _written(block)
        shown |= _shown(block)
        while parents and (block.kind != "item" or parents[-1][0] >= block.depth):
            parents.pop()
        if block.kind != "item":
            lead = _text(list(block.cells[0])).strip() if block.kind == "paragraph" else ""
            showcase = lead if _SHOWCASE.search(lead) else ""
            nested = None
        elif nested is not None and block.depth <= nested[0]:
            nested = None
        if block.kind == "table":
            row = _table_row(block, file, name, plugin)
            if row is not None:
                rows.append(replace(row, text=_source_line(text, row.line, 0)))
            elif rejected is not None and _has_any_link(block):
                why = _not_a_table_route(block) or "no trigger cell beside the links"
                rejected.append(Rejected(file, block.line, _source_line(text, block.line, 0), why))
            continue
        context = (f"an illustration list after {_short(showcase)!r}" if block.kind == "item" and showcase
                   else f"an illustration list nested under {_short(nested[1])!r}" if nested is not None
                   else f"under the heading {block.section!r}: examples or outputs, not a route"
                   if block.kind == "item" and _SHOW_HEADING.match(block.section) and is_skill else "")
        previous: list[Piece] = []
        sentences = _sentences(block.cells[0], by_line=not is_skill)
        for index, sentence in enumerate(sentences):
            sentence, previous = _that_file(sentence, previous), sentence
            found, why_not = _sentence_row(sentence, block, file, name, plugin, as_map=not is_skill)
            if found is not None and any(_MAYBE_NEXT.match(_text(later)) for later in sentences[index + 1:]):
                found, why_not = None, _MAYBE_WHY
            if found is None and why_not == _MAYBE_WHY:
                maybe |= {p.href or p.text for p in sentence if p.kind != "text"}
            if _WORKDIR.search(_text(sentence)):
                workdir |= {p.href or p.text for p in sentence if p.kind != "text"}
            if found is not None and context:
                found, why_not = None, context
            if found is not None and not found.trigger:
                found = _borrowed_trigger(found, parents[-1][1] if parents else "", block.section, sentence)
            if found is not None:
                rows.append(replace(found, text=_source_line(text, found.line, 0)))
            elif rejected is not None and why_not != "no procedure link":
                line = next((p.line for p in sentence if p.kind != "text"), block.line)
                rejected.append(Rejected(file, line, _source_line(text, line, 0), why_not))
        item_text = _text(list(block.cells[0])).strip()
        if block.kind == "item":
            parents.append((block.depth, item_text))
        if block.kind == "item" and nested is None and not _PICK_READ.search(item_text) and (
                _SHOWCASE.search(item_text) or _EXAMPLE_LEAD.match(item_text)):
            nested = (block.depth, item_text)
    made = _Made(written, shown, _drawn_elsewhere(fm.body, file.parent), maybe, workdir)
    rows = _drop_unshipped(rows, made, rejected, text, file, plugin)
    space = plugin_namespace(file, plugin)
    return sorted((replace(r, plugin=space) for r in rows), key=lambda r: r.line)


def parse_table(text: str, skill_file: Path, skill: str, *, line_offset: int = 0) -> list[Row]:
    """Only the table rows of a markdown BODY (whose first line is LINE_OFFSET + 1)."""
    rows: list[Row] = []
    for block in blocks(text, offset=line_offset):
        if block.kind == "table":
            row = _table_row(block, skill_file, skill, None)
            if row is not None:
                rows.append(row)
    return rows


def file_key(target: str) -> str:
    """The id part of a linked file: its stem, or its folder for `*/index.md`."""
    path = Path(target)
    if path.name.lower() in ("index.md", "skill.md", "readme.md") and path.parent.name not in ("", ".", ".."):
        return slug(path.parent.name)
    return slug(path.stem)


def skill_space(row: Row) -> str:
    """The id prefix of ROW's Skill: `skill`, or `plugin:skill` inside a marketplace (as Claude Code
    names a plugin's Skill)."""
    return f"{slug(row.plugin)}:{slug(row.skill)}" if row.plugin else slug(row.skill)


def row_key(row: Row) -> str:
    """The short content-derived id of ROW: `<skill>/<first linked file>` or `<skill>/description`."""
    if row.kind == "description":
        return f"{skill_space(row)}/description"
    return f"{skill_space(row)}/{file_key(row.links[0].target) if row.links else slug(row.trigger)}"


def _path_key(row: Row) -> str:
    target = re.sub(r"^(?:\{baseDir\}|\$\{?CLAUDE_(?:SKILL_DIR|PLUGIN_ROOT)\}?)/", "",
                    row.links[0].target).removeprefix("./")
    return f"{skill_space(row)}/{slug(target[:-3] if target.lower().endswith('.md') else target)}"


def assign_ids(rows: list[Row]) -> list[Row]:
    """Give each row (in file and line order) an id that depends on its own content and place, never
    on another row's wording. The first row to link a file keeps the short id `<skill>/<file>`; a later
    row whose short id is taken by another file gets the linked path (`s/v-p`), one linking the same
    file gets its section heading (`s/editing#editing-workflow`), and further ones in that section
    their own trigger (`s/x#before-pushing`), so a row inserted among them renames none of them.
    Adding a row after any row never renames it."""
    taken: dict[str, Path | None] = {}
    out: list[Row] = []
    for row in rows:
        short = row_key(row)
        target = row.links[0].path if row.links else None
        base = short
        if row.links and short in taken and taken[short] != target and _path_key(row) != short:
            base = _path_key(row)
        section = slug(" ".join(row.section.split()[:5])) if row.section else ""
        own = f"{base}#{slug(' '.join(row.trigger.split()[:5]))}"
        candidates = [base, f"{base}#{section}", own] if section else [base, own]
        unique, number = next((c for c in candidates if c not in taken), ""), 2
        while not unique:
            unique = f"{own}-{number}" if f"{own}-{number}" not in taken else ""
            number += 1
        taken[unique] = target
        out.append(replace(row, id=unique))
    return out


def parse_files(files: list[Path], *, plugin: Path | None = None) -> list[Row]:
    """Rows of every file, in file order, with ids; a file that is not UTF-8 is an InputError."""
    rows: list[Row] = []
    for file in files:
        rows += parse_text(read_text(file), file, plugin=plugin)
    return assign_ids(rows)


def read_files(files: list[Path], *, plugin: Path | None = None,
               rejected: list[Rejected] | None = None) -> tuple[list[Row], list[InputError]]:
    """Rows of every file, and one problem per thing that is wrong in a file (bytes that are not
    UTF-8, bad or unclosed front matter, a description that is not text) or a file that cannot be
    read: each problem costs only what it breaks, never the file's other rows or the other files."""
    rows: list[Row] = []
    bad: list[InputError] = []
    for file in files:
        try:
            text, problem = read_text_lossy(file)
        except InputError as exc:
            bad.append(exc)
            continue
        bad += [problem] if problem is not None else []
        rows += parse_text(text, file, plugin=plugin, problems=bad, rejected=rejected)
    return assign_ids(rows), bad


def find_row(rows: list[Row], ref: str) -> Row | None:
    """A row by id, by its id without the plugin or without the Skill (when only one row has it),
    else by exact trigger."""
    for row in rows:
        if row.id == ref:
            return row
    for part in (lambda i: i.split(":", 1)[-1], lambda i: i.split("/", 1)[-1]):
        short = [row for row in rows if part(row.id) == ref]
        if len(short) == 1:
            return short[0]
    return next((row for row in rows if row.trigger.lower() == ref.lower()), None)


def names_row(rows: list[Row], ref: str | None, row_id: str) -> bool:
    """True when REF (a case target or an arm's row, full or short id) names the row ROW_ID."""
    if not ref:
        return False
    if ref == row_id:
        return True
    found = find_row(rows, ref)
    return found is not None and found.id == row_id


def closest_rows(rows: list[Row], ref: str, *, n: int = 3) -> list[str]:
    """Ids of the rows whose id (or id without the Skill) is closest to REF."""
    by_name: dict[str, str] = {}
    for row in rows:
        by_name.setdefault(row.id, row.id)
        by_name.setdefault(row.id.split("/", 1)[-1], row.id)
    near = difflib.get_close_matches(ref, list(by_name), n=n * 2, cutoff=0.4)
    return list(dict.fromkeys(by_name[name] for name in near))[:n]


def unknown_row_message(rows: list[Row], ref: str) -> str:
    """"no routing row X; closest: a, b" (or the known ids when nothing is close)."""
    near = closest_rows(rows, ref)
    if near:
        return f"no routing row {ref!r} (its text may have changed); closest: {', '.join(near)}"
    return f"no routing row {ref!r}; rows: {', '.join(r.id for r in rows) or 'none'}"


def required_key(link: Link, row: Row) -> str:
    """The path suffix cases use for a link: as written, without a leading `./`."""
    return link.target[2:] if link.target.startswith("./") else link.target
