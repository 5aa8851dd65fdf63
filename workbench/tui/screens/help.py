"""Help: what the loop is and which key works where, compact enough to fit an 80x24 terminal."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

TEXT = """\
[b]Trigger Workbench[/b]: does the agent read the row's procedure BEFORE the action?
[b]Loop[/b]: [b]e[/b] edit a row (its draft stays with it, [b]●[/b] unsaved) · [b]c[/b] canary of it
· [b]b[/b] save it as an arm and batch it vs baseline · read Records, Compare.
In an input keys type; [b]escape[/b] leaves it. Footer: the keys that act now.

[b]Any screen, no input focused[/b]
  [b]1…6[/b]      Rows · Canary · Batch · Records · Compare · Post-install
  [b]q[/b]        quit (asks first if drafts are unsaved or work runs)
  [b]?[/b] / [b]f1[/b]   this help (f1 also in an input) · [b]ctrl+p[/b] palette
[b]Rows[/b]       [b]c[/b] canary of the draft · [b]b[/b] batch · [b]e[/b] edit, [b]escape[/b] back · [b]d[/b] diff
           [b]ctrl+s[/b] save arm · [b]ctrl+z[/b] drop · [b]/[/b] search · [b]o[/b]/[b]p[/b] $EDITOR row/procs
[b]Canary[/b]     [b]ctrl+r[/b] run · [b]x[/b] cancel (kills the host's processes)
[b]Batch[/b]      [b]ctrl+r[/b] start · [b]x[/b] abort (written records stay)
[b]Records[/b]    [b]enter[/b] a run's calls · [b]ctrl+o[/b] open the files
[b]Compare[/b]    [b]ctrl+r[/b] compare · [b]h[/b] HTML report · [b]Post-install[/b] [b]ctrl+r[/b] run
[b]Call pane[/b]  [b]enter[/b] expand · green READ: first successful read
           red REFUSED/FAILED: no read · yellow: the moment
           an invalid run shows its reason, never a verdict
"""


class HelpScreen(ModalScreen[None]):
    """The keys and the loop, on top of any screen."""

    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "close")]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help"):
            yield Static(TEXT)
