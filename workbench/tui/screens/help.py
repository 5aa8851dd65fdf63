"""Help: what each screen is for and its keys, generated from the bindings themselves."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown

TEXT = """\
# Trigger Workbench

Measure whether an agent reads the procedure a routing row links **before** the action it governs.

**Loop**: edit a row's wording (Rows, `e`), save it as an arm (`ctrl+s`), watch a canary live
(`c`), promote the wording to a batch against the baseline (`b`), read the result (Records, Compare).

| key | where | what |
|---|---|---|
| `1`…`6` | anywhere | Rows · Canary · Batch · Records · Compare · Post-install check |
| `ctrl+p` | anywhere | command palette |
| `?` / `f1` | anywhere | this help |
| `q` | anywhere | quit |
| `c` | Rows | canary of the selected row's first positive case on the default host (sim) |
| `e`, `escape` | Rows | edit the row (lint follows as you type), back to the rows |
| `ctrl+s` | Rows | save the edited wording as an arm (commit on `workbench/arm/NAME`) |
| `b` | Rows | promote the row to a batch (baseline vs its newest arm) |
| `ctrl+r`, `x` | Canary | run, cancel (kills the host's process group) |
| `enter` | a call | expand its tool result |
| `ctrl+r`, `x` | Batch | start, abort (records already written stay) |
| `enter` | Records | the selected run's calls |
| `ctrl+r` | Compare / Post-install | compute / run |

In the call pane a green **READ** marks the first successful read of a required file, a red
**REFUSED**/**FAILED** a read that did not happen, and the yellow line the moment. The verdict
line is the scorer's answer for the calls so far.
"""


class HelpScreen(ModalScreen[None]):
    """The keys and the loop, on top of any screen."""

    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "close")]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help"):
            yield Markdown(TEXT)
