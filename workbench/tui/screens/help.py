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

**Loop**: edit a row's wording (Rows, `e`) — the draft stays with its row (`●` unsaved); `c` runs
a canary of the draft (applied in the run's copy only, recorded as arm `draft`); `b` saves it as
an arm (asks the name) and opens a batch of baseline vs it; read the result (Records, Compare).

**Keys and inputs**: while an input or the editor has focus, letters and digits type into it;
`escape` leaves the input and the keys below act again. The footer shows only the keys that act now.

| key | where | what |
|---|---|---|
| `1`…`6` | any screen, no input focused | Rows · Canary · Batch · Records · Compare · Post-install |
| `?` / `f1` | any screen (`f1` also in an input) | this help |
| `q` | any screen, no input focused | quit (asks first if drafts are unsaved or work runs) |
| `escape` | in an input | leave it |
| `ctrl+p` | anywhere | command palette: screens and actions |
| `c` | Rows | canary of the selected row's draft (its first positive case) |
| `b` | Rows | batch: baseline vs the row's draft (saved as an arm first) or newest arm |
| `e`, `escape` | Rows | edit the row (lint and dangling links follow as you type), back |
| `ctrl+s`, `ctrl+z` | Rows | save the draft as an arm (`workbench/arm/NAME`), drop the draft |
| `ctrl+r`, `x` | Canary | run, cancel (kills the host's process group) |
| `enter` | call pane | expand a call's tool result |
| `ctrl+r`, `x` | Batch | start, abort (records already written stay) |
| `enter`, `ctrl+o` | Records | the selected run's calls, open the files |
| `ctrl+r` | Compare / Post-install | compute / run |

In the call pane a green **READ** marks the first successful read of a required file, a red
**REFUSED**/**FAILED** a read that did not happen, and the yellow line the moment. The verdict
line is the scorer's answer for the calls so far; an invalid run shows its reason instead.
"""


class HelpScreen(ModalScreen[None]):
    """The keys and the loop, on top of any screen."""

    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "close")]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help"):
            yield Markdown(TEXT)
