"""Markdown as an author writes it: YAML front matter and the text blocks that can hold routing rows.

markdown-it-py (CommonMark + GFM tables) does the parsing, so fenced and indented code, escaped
pipes, titled `(path "title")`, angle-bracket `(<path>)` and reference links are read the way a
renderer reads them; front matter goes through PyYAML, so block scalars (`description: >`, `|-`)
are values, not text. Each block is a list of `Piece`s (text, code span, link) with line numbers.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import unquote

import yaml
from markdown_it import MarkdownIt
from markdown_it.token import Token

from workbench.core.errors import InputError

PieceKind = Literal["text", "code", "link"]
BlockKind = Literal["table", "item", "paragraph", "heading", "html"]
_PARSER = MarkdownIt("commonmark").enable("table")
_KEY = re.compile(r"^([A-Za-z_][\w.-]*)\s*:")


@dataclass(frozen=True)
class Piece:
    """One run of inline content: plain text, a code span, or a link (label + href)."""

    kind: PieceKind
    text: str
    line: int
    href: str = ""


@dataclass(frozen=True)
class Block:
    """A table body row (one piece list per cell), a list item's paragraph, or a plain paragraph."""

    kind: BlockKind
    line: int
    cells: tuple[tuple[Piece, ...], ...]
    header: tuple[str, ...] = ()
    """A table row's column headings (plain text), else empty."""
    section: str = ""
    """The text of the nearest heading above the block ('' before the first heading)."""
    depth: int = 0
    """How deep a list item's paragraph is nested (1 for a top-level item; 0 outside lists)."""


@dataclass(frozen=True)
class FrontMatter:
    """The parsed `---` block: its data, each top-level key's (first, last) line, the body and its offset."""

    data: dict[str, Any]
    lines: dict[str, tuple[int, int]]
    body: str
    offset: int


def read_text(path: Path) -> str:
    """A file's text as UTF-8; anything else is an InputError naming the file and the byte."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", file=str(path)) from None
    try:
        return data.decode("utf-8").removeprefix("\ufeff")  # a BOM is no text: `---` must still open front matter
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise InputError(f"not UTF-8 text (byte 0x{data[exc.start]:02x})", file=str(path), line=line) from None


def read_text_lossy(path: Path) -> tuple[str, InputError | None]:
    """A file's text, and what is wrong with its bytes: not UTF-8 (those bytes are replaced, as a
    host reading the file shows them, so one bad byte hides no row), or a byte-order mark before
    the front matter's `---` (read here, but Claude Code's `^---` front-matter pattern does not match
    it, so that host sees no name or description). A file that cannot be read at all raises."""
    try:
        text = read_text(path)
    except InputError as exc:
        if exc.line is None:
            raise
        return path.read_bytes().decode("utf-8", errors="replace").removeprefix("\ufeff"), exc
    if text.startswith("---") and path.read_bytes().startswith(b"\xef\xbb\xbf"):
        return text, InputError("a byte-order mark precedes the front matter's `---`: Claude Code then reads no "
                                "name or description (save the file without the BOM)", file=str(path), line=1)
    return text, None


def body_text(text: str) -> str:
    """TEXT without its leading `---` block, the YAML unread (a file whose front matter is broken
    still has a body that mentions files)."""
    return split_body(text)[0]


def split_body(text: str) -> tuple[str, int]:
    """`body_text(TEXT)` and the number of lines before it: the body and offset `front_matter` gives
    (so `mentions` and the routing read ask `blocks` for the same parse)."""
    lines = text.removeprefix("\ufeff").split("\n")
    if not lines or lines[0].strip() != "---":
        return "\n".join(lines), 0
    end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), None)
    return ("\n".join(lines[end + 1:]), end + 1) if end is not None else ("\n".join(lines), 0)


def front_matter_lenient(text: str, *, file: Path | None = None) -> tuple[FrontMatter, InputError | None]:
    """`front_matter`, or (no data, the body after the `---` block, why) when the block is broken:
    unclosed front matter leaves the whole text as body; broken YAML leaves the text after it."""
    try:
        return front_matter(text, file=file), None
    except InputError as exc:
        text = text.removeprefix("\ufeff")
        lines = text.split("\n")
        end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), None)
        if end is None:
            return FrontMatter({}, {}, text, 0), exc
        return FrontMatter({}, {}, "\n".join(lines[end + 1:]), end + 1), exc


def front_matter(text: str, *, file: Path | None = None) -> FrontMatter:
    """Split a leading `---` YAML block from TEXT; a YAML error names the file and line."""
    text = text.removeprefix("\ufeff")
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return FrontMatter({}, {}, text, 0)
    end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), None)
    if end is None:
        raise InputError("front matter opened by `---` is never closed", file=str(file) if file else None, line=1)
    source = "\n".join(lines[1:end])
    try:
        data = yaml.safe_load(source) if source.strip() else {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise InputError(f"invalid YAML front matter: {getattr(exc, 'problem', None) or exc}",
                         file=str(file) if file else None, line=mark.line + 2 if mark else None) from None
    if not isinstance(data, dict):
        data = {}
    spans: dict[str, tuple[int, int]] = {}
    last: str | None = None
    for number, line in enumerate(lines[1:end], start=2):
        found = _KEY.match(line)
        if found:
            last = found.group(1)
            spans[last] = (number, number)
        elif last is not None and (line.startswith((" ", "\t")) or not line.strip()):
            spans[last] = (spans[last][0], number if line.strip() else spans[last][1])
    return FrontMatter({str(k): v for k, v in data.items()}, spans, "\n".join(lines[end + 1:]), end + 1)


def _pieces(inline: Token, first_line: int) -> tuple[Piece, ...]:
    """The pieces of one inline token; link labels are their plain text, lines count soft breaks."""
    out: list[Piece] = []
    line = first_line
    href: str | None = None
    label: list[str] = []
    for child in inline.children or []:
        if child.type in ("softbreak", "hardbreak"):
            if href is None:
                out.append(Piece("text", "\n", line))
            line += 1
        elif child.type == "link_open":
            href, label = unquote(str(child.attrs.get("href", ""))), []
        elif child.type == "link_close" and href is not None:
            out.append(Piece("link", "".join(label), line, href))
            href = None
        elif href is not None:
            label.append(child.content)
        elif child.type == "code_inline":
            out.append(Piece("code", child.content, line))
        elif child.type in ("text", "html_inline"):
            out.append(Piece("text", child.content, line))
    return tuple(out)


def _closed(fence: Token, lines: list[str]) -> bool:
    """The fenced block FENCE has its closing fence (else it ran to the end of the text)."""
    start, end = fence.map or (0, 0)
    last = lines[end - 1].strip() if end - 1 < len(lines) else ""
    return end - start >= 2 and last.startswith(fence.markup) and not last.strip(fence.markup[:1])


def blocks(body: str, *, offset: int = 0, every: bool = False) -> list[Block]:
    """Table body rows, list-item paragraphs and plain paragraphs of BODY (code blocks are skipped;
    a fence never closed is read as text, as the agent reading the raw file reads it). A table's
    header row that holds a link is a row too (`| [v](v.md) | Before vacuuming |` then more rows);
    EVERY adds headings and HTML blocks (what `mentions` follows, which routes never come from).

    One parse serves both readings, remembered per body and offset: the routing read and the audit's
    reach (`mentions`) of the same file parse it once."""
    found = _every_block(body, offset)
    return list(found) if every else [b for b in found if b.kind not in _EXTRA_KINDS]


_EXTRA_KINDS = frozenset({"heading", "html"})
"""Block kinds only `blocks(every=True)` gives."""


@functools.lru_cache(maxsize=1024)
def _every_block(body: str, offset: int) -> tuple[Block, ...]:
    return tuple(_scan(body, offset, ""))


def _scan(body: str, offset: int, section: str) -> list[Block]:
    """`blocks(BODY, offset=OFFSET, every=True)`, under SECTION until BODY's first heading."""
    out: list[Block] = []
    head_cells: list[tuple[Piece, ...]] = []
    head_line = 0
    items = 0
    in_body = False
    in_head = False
    header: list[str] = []
    row: list[tuple[Piece, ...]] = []
    row_line = 0
    tokens = _PARSER.parse(body)
    lines = body.split("\n")
    for i, tok in enumerate(tokens):
        if tok.type == "fence" and tok.map and not _closed(tok, lines):
            # a stray fence runs to the end of the file: an agent reads the raw text, so it is text;
            # that reading covers every line after it, so no later token is read again
            out += _scan("\n".join(lines[tok.map[0] + 1:]), offset + tok.map[0] + 1, section)
            break
        elif tok.type == "inline" and tokens[i - 1].type == "heading_open":
            section = tok.content.strip()
            line = (tok.map[0] if tok.map else 0) + 1 + offset
            out.append(Block("heading", line, (_pieces(tok, line),), section=section))
        elif tok.type == "html_block":
            line = (tok.map[0] if tok.map else 0) + 1 + offset
            out.append(Block("html", line, ((Piece("text", tok.content, line),),), section=section))
        elif tok.type == "list_item_open":
            items += 1
        elif tok.type == "list_item_close":
            items -= 1
        elif tok.type == "thead_open":
            in_head, header, head_cells = True, [], []
            head_line = (tok.map[0] if tok.map else 0) + 1 + offset
        elif tok.type == "thead_close":
            in_head = False
            if any(p.kind == "link" for cell in head_cells for p in cell):
                out.append(Block("table", head_line, tuple(head_cells), (), section))
        elif tok.type == "inline" and in_head:
            header.append(tok.content)
            head_cells.append(_pieces(tok, head_line))
        elif tok.type == "tbody_open":
            in_body = True
        elif tok.type == "tbody_close":
            in_body = False
        elif tok.type == "tr_open" and in_body:
            row, row_line = [], (tok.map[0] if tok.map else 0) + 1 + offset
        elif tok.type == "tr_close" and in_body:
            out.append(Block("table", row_line, tuple(row), tuple(header), section))
        elif tok.type == "inline" and in_body and tokens[i - 1].type == "td_open":
            row.append(_pieces(tok, row_line))
        elif tok.type == "inline" and tokens[i - 1].type == "paragraph_open":
            line = (tok.map[0] if tok.map else 0) + 1 + offset
            out.append(Block("item" if items else "paragraph", line, (_pieces(tok, line),), section=section,
                             depth=items))
    return out


_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)
_PATH_WORD = re.compile(r"(?<![\w/.@$-])@?((?:\$\{?\w+\}?/|\.{0,2}/)?(?:[\w{}.-]+/)*[\w{}-][\w{}.-]*\.md)(?![\w/-])",
                        re.IGNORECASE)
_CODE_TEMPLATE = re.compile(r"^((?:(?:\*\*|(?:[\w{}.-]|<[\w-]+>)+)/)*(?:[\w{}.-]|<[\w-]+>)*<[\w-]+>(?:[\w{}.-]|<[\w-]+>)*"
                            r"\.md)$")
"""A code span naming a templated path with an `<angle>` name (`references/sources/<type>.md`, also in
folders: `docs/<Package>/<version>/<Page>.md`); after "save to" / "written to" it names a file the agent
makes, which reaches nothing."""
_FOLDER_TEMPLATE = re.compile(r"^(?:(?:[\w{}.-]|<[\w-]+>)+/)*(?:[\w{}.-]*<[\w-]+>[\w{}.-]*/)(?:(?:[\w{}.-]|<[\w-]+>)+/)*$")
"""A code span naming a folder through `<angle>` names (`docs/<Package>/<version>/coded/`)."""
_WRITES = re.compile(r"\b(?:save[sd]?|writes?|written|wrote|output|store[sd]?|create[sd]?|generate[sd]?)\b[^.;]*"
                     r"\b(?:to|into|at|as|in)\b[\s:*]*$", re.IGNORECASE)


MentionKind = Literal["link", "code", "word", "folder"]
_HREF = re.compile(r"""\b(?:href|src)\s*=\s*["']([^"'#]+)""", re.IGNORECASE)
FOLDER_PATH = r"(?:[\w{}.-]+/)+"
"""A folder path as the text names it (`references/`, `../shared/`): segments, each ending in `/`."""
_FOLDER = re.compile(rf"^{FOLDER_PATH}$")


def named_folders(text: str) -> list[tuple[int, str]]:
    """(line, folder) for each folder TEXT names as one outside code blocks: a code span or a link target
    that is a folder path, a whole heading that is one (`references/`, `](guides/)`, `### references/`),
    or the folder a link's label leaves out of its target (`[coded/setup.md](references/coded/setup.md)`:
    the text writes paths from `references/`); a bare name listed near it may be in that folder."""
    body, offset = split_body(text)
    out: list[tuple[int, str]] = []
    for block in blocks(body, offset=offset, every=True):
        if block.kind == "heading":
            whole = "".join(p.text for cell in block.cells for p in cell).strip()
            out += [(block.line, whole)] if _FOLDER.match(whole) else []
        for cell in block.cells:
            for piece in cell:
                named = piece.text.strip() if piece.kind == "code" else piece.href.strip() if piece.kind == "link" else ""
                out += [(piece.line, named)] if _FOLDER.match(named) else []
                left_out = _label_folder(piece) if piece.kind == "link" else None
                out += [(piece.line, left_out)] if left_out else []
    return out


def _label_folder(link: Piece) -> str | None:
    """The folders a link's label leaves out before a path with a folder of its own: `references/` for
    `[coded/setup.md](references/coded/setup.md)`; None for a label that is the whole target or no path."""
    label, href = link.text.strip().strip("`"), link.href.split("#")[0].strip().removeprefix("./")
    if "/" not in label or not label.lower().endswith(".md") or href == label or not href.endswith("/" + label):
        return None
    folder = href[: -len(label)]
    return folder if _FOLDER.match(folder) and ".." not in folder.split("/") else None


def code_names(text: str) -> set[str]:
    """The one-name code spans of TEXT outside code blocks (`async-parallel`, not `a b` or `x/y`)."""
    body, offset = split_body(text)
    return {p.text.strip() for block in blocks(body, offset=offset, every=True) for cell in block.cells
            for p in cell if p.kind == "code" and _ONE_NAME.match(p.text.strip())}


_ONE_NAME = re.compile(r"^[A-Za-z0-9][\w.-]*$")


def words_before(text: str, nouns: str, *, headings: bool = False) -> dict[str, str]:
    """The words of TEXT that stand right before one of NOUNS (a regex alternation: "files?|guides?"),
    outside code blocks and file names (`x.md`), lower-cased -> as first written; hyphens and
    underscores stay inside a word ("an Evolution-log entry" gives `evolution-log`). With HEADINGS,
    every word of a heading too ("## Resources")."""
    before = re.compile(rf"(?<![\w-])({_WORD.pattern})\s+(?:{nouns})\b", re.IGNORECASE)
    body, offset = split_body(text)
    out: dict[str, str] = {}
    for block in blocks(body, offset=offset, every=True):
        for cell in block.cells:
            words = _PATH_WORD.sub(" ", " ".join(p.text for p in cell))
            found = _WORD.findall(words) if headings and block.kind == "heading" else \
                [m.group(1) for m in before.finditer(words)]
            for word in found:
                out.setdefault(word.lower(), word)
    return out


_WORD = re.compile(r"[^\W_]+(?:[-_][^\W_]+)*")
"""A word: letters and digits, hyphens and underscores inside it (one way to match: no backtracking)."""
_FOLDER_NOUNS = r"files?|guides?|director(?:y|ies)|folders?|docs|documentation"
"""What a folder's word names in a Skill's text: "reference files", "the Resources directory"."""


def folders_in_words(text: str, folders: Iterable[str]) -> set[str]:
    """The FOLDERS (plain names: `references`, `assets`) TEXT names in words, singular or plural: in a
    heading ("## Reference Files", "## Resources") or right before a word for files ("the appropriate
    reference file", "**Reference Guides**"), outside code blocks; each as `name/`. A word alone
    ("for example", "the input data") names no folder."""
    folders = list(folders)
    if not folders:
        return set()
    words = words_before(text, _FOLDER_NOUNS, headings=True)
    return {f"{name}/" for name in folders
            if {name.lower(), name.lower().removesuffix("s"), f"{name.lower()}s"} & words.keys()}


@dataclass(frozen=True)
class Mention:
    """A local markdown file (or, kind `folder`, a folder) a text names outside code blocks, as written."""

    target: str
    kind: MentionKind


def mentions(text: str) -> list[Mention]:
    """Every local markdown file TEXT mentions outside code blocks: link targets, `path.md` code spans,
    bare `path.md` words, and `folder/` code spans and links (kind `folder`); then the files of the trees
    it draws in code blocks (`drawn_trees`), of a compressed docs index, and the links of table cells a
    renderer drops (`_dropped_cell_links`); in order, each once."""
    out: list[Mention] = []
    body, offset = split_body(text)
    dropped: list[Mention] = []
    lines: list[str] = []
    for block in blocks(body, offset=offset, every=True):
        if block.kind == "table":
            lines = lines or body.split("\n")
            dropped += _dropped_cell_links(lines, block.line - offset, len(block.header))
        for cell in block.cells:
            before = ""
            for piece in cell:
                before, lead = before + piece.text, before
                if piece.kind == "link" and _FOLDER.match(href := piece.href.split("#")[0].strip().removeprefix("./")):
                    out.append(Mention(href, "folder"))  # a link to a folder: `[examples/](examples/)`
                    continue
                if ".md" not in (piece.href if piece.kind == "link" else piece.text).lower() and not (
                        piece.kind == "code" and "/" in piece.text):
                    continue  # names no markdown file and is no folder span: nothing below can match
                out += [Mention(m.group(1), "link") for m in _HREF.finditer(piece.text) if piece.kind == "text"
                        and not _SCHEME.match(m.group(1)) and m.group(1).split("#")[0].lower().endswith(".md")]
                if piece.kind == "link":
                    href = piece.href.split("#")[0].strip()
                    if href and not _SCHEME.match(href) and href.lower().endswith(".md"):
                        out.append(Mention(href, "link"))
                elif piece.kind == "code" and (_FOLDER.match(piece.text.strip())
                                               or _FOLDER_TEMPLATE.match(piece.text.strip()) and not _WRITES.search(lead)):
                    out.append(Mention(piece.text.strip(), "folder"))
                elif piece.kind == "code" and _CODE_TEMPLATE.match(piece.text.strip()):
                    out += [] if _WRITES.search(lead) else [Mention(piece.text.strip(), "code")]
                else:
                    kind: MentionKind = "code" if piece.kind == "code" else "word"
                    out += [Mention(m.group(1), kind) for m in _PATH_WORD.finditer(_HREF.sub("", piece.text))]
    drawn = [Mention(path, "code") for _, paths in drawn_trees(body) for path in sorted(paths)
             if path.lower().endswith(".md")]
    return list(dict.fromkeys(out + drawn + index_mentions(body) + dropped))


_CELL_BAR = re.compile(r"(?<!\\)\|")
_RAW_LINK = re.compile(r"\]\(\s*<?([^()\s<>]+\.md)(?:#[^()\s]*)?>?\s*\)", re.IGNORECASE)


def _dropped_cell_links(lines: list[str], line: int, columns: int) -> list[Mention]:
    """The markdown links of table row LINE (1-based in LINES, a body's) when the row has more cells than
    COLUMNS: a `|` inside a code span (`` `"|"` ``) splits a cell, and renderers drop the cells past the
    header's, but the agent reads the raw line, link and all."""
    raw = lines[line - 1].strip() if 0 < line <= len(lines) else ""
    if len(_CELL_BAR.split(raw.strip("|"))) <= columns:
        return []
    return [Mention(m.group(1), "link") for m in _RAW_LINK.finditer(raw) if not _SCHEME.match(m.group(1))]


def index_mentions(text: str) -> list[Mention]:
    """The markdown files a compressed docs index lists, each as `ROOT/DIR/NAME.md`: the one-line form
    Vercel's `agents-md` writes into AGENTS.md (`[Docs Index]|root: ./docs|guides:{a.md,b.md}|c.md`),
    where `dir:{a.md,b.md}` means `dir/a.md` and `dir/b.md`. A line is an index only with its `root:`."""
    out: list[Mention] = []
    for line in text.splitlines():
        root = _INDEX_ROOT.search(line)
        if root is None:
            continue
        base = root.group(1).rstrip("/")
        prefix = "" if base in ("", ".") else f"{base}/"
        for segment in line.split("|"):
            folder = _INDEX_FOLDER.fullmatch(segment.strip())
            names = [f"{folder.group(1)}/{n.strip()}" for n in folder.group(2).split(",")] if folder \
                else [segment.strip()]
            out += [Mention(prefix + name, "link") for name in names if _INDEX_FILE.fullmatch(name)]
    return out


_INDEX_ROOT = re.compile(r"\|\s*root:\s*([^|\s]*)\s*\|")
_INDEX_FOLDER = re.compile(r"([\w.-]+(?:/[\w.-]+)*):\{([^{}|]*)\}")
_INDEX_FILE = re.compile(r"[\w-][\w.-]*(?:/[\w.-]+)*\.md", re.IGNORECASE)


def path_words(text: str) -> list[str]:
    """Every `*.md` path written anywhere in TEXT (a hook script, a manifest)."""
    return list(dict.fromkeys(m.group(1) for m in _PATH_WORD.finditer(text)))


_TREE_ENTRY = re.compile(r"^(?P<lead>[ \t│|]*(?:[├└]─+|[|`+]--+)[ \t]*|[ \t│|]*)(?P<name>[^\s#│├└]+)")
"""A line of a drawn file tree: the glyphs or indent before its name (`│   ├── `, `|-- `, `  `) and the name."""
_TREE_NAME = re.compile(r"[\w.@+-]+/?")
_INDENTED_TREE = re.compile(r"^[\w.@+-]+/[ \t]*\n[ \t]+[\w.@+-]+", re.MULTILINE)
"""A folder line, then an indented name: a tree drawn by indentation alone (`references/` then `  tabs.md`)."""
_BRANCH_LINE = re.compile(r"^[ \t│|]*(?:[├└]─|[|`+]--[ \t])", re.MULTILINE)
"""A line that starts with a branch (`├──`, `|-- `), never a table's `|---|` rule or a `` `--flag` `` span."""


@functools.lru_cache(maxsize=1024)
def drawn_trees(body: str) -> tuple[tuple[str, frozenset[str]], ...]:
    """(root folder, paths below it) of each file tree BODY draws in a code block:

        .specs/
        ├── STATE.md
        └── features/
            └── spec.md

    gives (".specs/", {".specs/STATE.md", ".specs/features/", ".specs/features/spec.md"}). A tree is a
    fence whose first line names a folder (`x/`) and whose next lines name its entries, deeper ones further
    right than their folder's name: drawn with branches (`├──`, `└──`; `|--`, `` `-- `` and `+--` alike),
    which a line of other text ends, or by indentation alone, where every line must be an entry (a name,
    then words on what it holds). A fence of anything else gives nothing."""
    out: list[tuple[str, frozenset[str]]] = []
    if not _BRANCH_LINE.search(body) and not _INDENTED_TREE.search(body):
        return ()  # no drawing: no second parse (the routing read and the reach ask alike: remembered)
    for token in _PARSER.parse(body):
        drawn = bool(_BRANCH_LINE.search(token.content))
        if token.type != "fence" or not drawn and not _INDENTED_TREE.match(token.content):
            continue
        tree = _tree(token.content, drawn)
        if tree is not None:
            out.append(tree)
    return tuple(out)


def _tree(content: str, drawn: bool) -> tuple[str, frozenset[str]] | None:
    """`drawn_trees`' reading of one fence's CONTENT (DRAWN: with branch glyphs)."""
    lines = [line for line in content.split("\n") if line.strip()]
    first = _TREE_ENTRY.match(lines[0]) if lines else None
    if first is None or first.group("lead") or not first.group("name").endswith("/"):
        return None
    stack: list[tuple[int, str]] = [(0, first.group("name"))]
    paths: set[str] = set()
    for line in lines[1:]:
        entry = _TREE_ENTRY.match(line)
        if entry is None or not entry.group("lead") or not drawn and not _TREE_NAME.fullmatch(entry.group("name")):
            if drawn:
                break  # the drawing ended: what follows is other text in the same fence
            return None  # an indented line that names no entry: code, not a tree
        column = len(entry.group("lead"))
        while len(stack) > 1 and stack[-1][0] >= column:
            stack.pop()
        path = stack[-1][1] + entry.group("name")
        paths.add(path)
        if path.endswith("/"):
            stack.append((column, path))
    return first.group("name"), frozenset(paths)
