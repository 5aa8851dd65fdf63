"""Text made to fit a column at 80x24 without cutting a word: a cell clipped at a word's end with `…`,
a header stacked on two lines, a session's id shortened as git shortens a sha."""

from __future__ import annotations

import re
from pathlib import Path

_BREAK = re.compile(r"[\s/,-]")


def clip(text: str, width: int) -> str:
    """TEXT if it fits WIDTH, else its longest start that ends at a word's end (a space, `/`, `,` or
    `-` follows) and `…`; a single word longer than WIDTH is cut and marked with `…`."""
    if len(text) <= width:
        return text
    room = text[: width - 1]
    ends = [m.start() for m in _BREAK.finditer(text, 0, width)]
    end = next((e for e in reversed(ends) if 0 < e <= len(room)), None)
    if end is None:
        return room + "…"
    kept = text[:end] + (text[end] if text[end] in "/-" and end < len(room) else "")
    return kept.rstrip(" ,") + "…"


def stacked(label: str) -> str:
    """LABEL on two lines, broken at the space nearest its middle (one word stays one line): a
    header no wider than its longer half, for `DataTable(header_height=2)`."""
    spaces = [i for i, c in enumerate(label) if c == " "]
    if not spaces:
        return label
    cut = min(spaces, key=lambda i: abs(len(label) - 2 * i))
    return label[:cut] + "\n" + label[cut + 1:]


def short_session(case_id: str) -> str:
    """A session's id (`session:<uuid>`) as its uuid's first 8 characters; another id unchanged."""
    uuid = case_id.removeprefix("session:")
    return uuid[:8] if re.fullmatch(r"[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", uuid) else case_id


def shown_path(path: str, root: Path) -> str:
    """PATH as a status line names it: relative to the workspace ROOT when inside it (`records/batch.jsonl`,
    short enough to stay whole at 80 columns), else as given."""
    try:
        return str(Path(path).resolve().relative_to(root.resolve()))
    except ValueError:
        return path
