"""The user's own editor (`$VISUAL`, else `$EDITOR`) on a row's file or its procedures.

Only the command line is made here; the Rows screen runs it with the terminal handed over
(`App.suspend`) and reads the workspace again in a worker when the editor exits.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from pathlib import Path

AT_LINE = frozenset({"vi", "vim", "nvim", "view", "nano", "emacs", "emacsclient", "micro", "kak", "joe", "mg", "ne"})
"""Editors that take `+LINE` before the file (others get the file alone: `+12` would be a file to them)."""


def editor_command(env: Mapping[str, str]) -> list[str] | None:
    """The editor command from ENV (`$VISUAL` over `$EDITOR`, split as a shell would: `code -w`); None:
    neither is set."""
    for name in ("VISUAL", "EDITOR"):
        words = shlex.split(env.get(name, "").strip())
        if words:
            return words
    return None


def editor_argv(command: list[str], files: list[Path], line: int | None = None) -> list[str]:
    """COMMAND opening FILES, at LINE of the first when the editor takes `+LINE`."""
    at = [f"+{line}"] if line and Path(command[0]).name in AT_LINE else []
    return [*command, *at, *(str(f) for f in files)]
