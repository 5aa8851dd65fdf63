"""`--unconfined` on every command that runs a host: explicit, loud (one stderr line), recorded."""

from __future__ import annotations

import argparse
import sys

WARNING = ("workbench: WARNING: running UNCONFINED ({door}): no sandbox; the agent can read your home, "
           "write anywhere you can and reach your network. Records say condition unconfined.")


def add_flag(p: argparse.ArgumentParser) -> None:
    """The one `--unconfined` flag (every door is confined by default)."""
    p.add_argument("--unconfined", action="store_true",
                   help="run WITHOUT bubblewrap (warned on stderr; records say condition unconfined and why)")


def warn(args: argparse.Namespace, door: str) -> bool:
    """True when asked unconfined; then one warning line on stderr first."""
    if getattr(args, "unconfined", False):
        print(WARNING.format(door=door), file=sys.stderr)
        return True
    return False
