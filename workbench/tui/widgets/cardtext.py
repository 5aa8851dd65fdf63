"""How one call card reads: its lines as Rich Text (index, tool, target, status, marks, result, moment rule).

Separate from the pane so the look of a card is one small function; every mark it draws comes
from the scorer's answer the pane passes in (`hits`, `moment`), except the refused/failed mark,
which `RunState.failed_read` states about the call itself.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.markup import escape
from rich.text import Text

from workbench.core.runstate import Card, RunState
from workbench.tui.fit import clip

RESULT_CHARS = 100
"""A collapsed card shows this much of the tool result."""
INDENT = 6
MARKS_ROOM = 58
"""Columns kept for index, tool, status and marks beside the target."""


def trim(text: str, width: int) -> str:
    """One line of at most WIDTH characters, never cut mid-word: a path keeps its end (`…/docs.md`),
    other text its start (`tui.fit.clip`)."""
    flat = " ".join(text.split())
    if len(flat) <= width:
        return flat
    if " " not in flat and "/" in flat:
        tail = flat[len(flat) - width + 1:]
        return "…" + (tail[tail.index("/"):] if "/" in tail else tail)
    return clip(flat, width)


def _line(markup: str) -> Text:
    """One line that is cut (…) at the pane's width, never wrapped."""
    text = Text.from_markup(markup, overflow="ellipsis")
    text.no_wrap = True
    return text


def card_lines(card: Card, hits: list[str], moment: bool, moment_spec: str, clean: Callable[[str], str],
               *, expanded: bool, width: int = 120, conflicts: list[str] | None = None) -> list[Text]:
    """The card's lines before wrapping: header, the result (collapsed or whole), the moment rule.

    The target column shrinks with WIDTH so the marks (READ, REFUSED, CONFLICT) stay on screen.
    CONFLICTS: what the scorer said disagrees on this call (command analysis vs evidence)."""
    tw = max(16, min(60, width - MARKS_ROOM))
    call = card.call
    target = clean(call.path or call.command or call.skill or "")
    status = call.status if card.finished else "…"
    colour = {"ok": "green", "error": "red", "denied": "magenta"}.get(status, "dim")
    marks = []
    if hits:
        marks.append(f"[b reverse green] READ {escape(', '.join(hits))} [/]")
    if RunState.failed_read(call):
        word = "REFUSED" if call.status == "denied" or call.unreadable else "FAILED"
        marks.append(f"[b reverse red] {word} [/]")
    if conflicts:
        marks.append(f"[b reverse yellow] CONFLICT {escape(', '.join(conflicts))} [/]")
    lines = [_line(f"[b]#{call.index:<3}[/b] {escape(call.tool):<14} {escape(trim(target, tw)):<{tw}} "
                              f"[{colour}]{status:<6}[/] {' '.join(marks)}")]
    if call.result:
        result = clean(call.result)
        if expanded:
            lines.append(Text(" " * INDENT + result, style="dim"))
        else:
            more = "" if len(result) <= RESULT_CHARS else "  [dim](enter: more)[/dim]"
            lines.append(_line(f"{' ' * INDENT}[dim]{escape(trim(result, RESULT_CHARS))}[/dim]{more}"))
    if moment:
        lines.append(_line(f"[b yellow]{'━' * 30} moment ({escape(moment_spec)}) {'━' * 30}[/]"))
    return lines


def collapsed_height(card: Card, moment: bool) -> int:
    """Lines of a collapsed card, known without rendering it (the pane's line model)."""
    return 1 + bool(card.call.result) + moment
