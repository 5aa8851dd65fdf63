"""The selected row's draft (or one of its arms) against the baseline wording, word by word.

The text comes from `core.diff.word_diff` (`[-removed-]{+added+}`), so the change reads without
colour; colour is only added on top of those markers.
"""

from __future__ import annotations

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from workbench.core.diff import pieces

STYLE = {"same": "{}", "removed": "[red][-{}-][/red]", "added": "[green]{{+{}+}}[/green]"}


def marked(old: str, new: str) -> str:
    """Rich markup of the word diff: the markers stay in the text, colour only underlines them."""
    return "".join(STYLE[p.kind].format(escape(p.text)) for p in pieces(old, new))


class DiffScreen(ModalScreen[None]):
    """Show TITLE and the word diff of OLD → NEW; escape, q or d closes."""

    BINDINGS = [Binding("escape,q,d", "dismiss(None)", "close")]

    def __init__(self, title: str, old: str, new: str,
                 same: str = "no change: the draft is the baseline wording") -> None:
        super().__init__()
        self.heading, self.old, self.new, self.same = title, old, new, same

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="dialog"):
            yield Static(f"[b]{escape(self.heading)}[/b]")
            yield Static(marked(self.old, self.new) if self.old != self.new else self.same, id="diff-text")
            yield Static("[-removed-] {+added+} · escape closes", id="diff-keys")
