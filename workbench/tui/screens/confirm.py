"""A yes/no question on top of any screen: `y` or enter confirms, `n` or escape declines."""

from __future__ import annotations

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static


class ConfirmScreen(ModalScreen[bool]):
    """Ask QUESTION; dismissed with True (y, enter) or False (n, escape)."""

    BINDINGS = [Binding("y,enter", "dismiss(True)", "yes"), Binding("n,escape", "dismiss(False)", "no")]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(escape(self.question))
            yield Static("[b]y[/b] yes · [b]n[/b] / escape no", id="confirm-keys")
