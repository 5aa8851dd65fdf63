"""The headless front end: stdout carries data, stderr carries diagnostics, exit codes from ExitCode."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from workbench import __version__
from workbench.commands import COMMANDS
from workbench.core.errors import InputError
from workbench.exitcodes import ExitCode


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="workbench",
        description="Measure whether coding agents read the procedure a routing row links before acting.",
    )
    parser.add_argument("--version", action="version", version=f"workbench {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for register in COMMANDS:
        register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; bad input is one line on stderr and exit 2, never a traceback."""
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        from workbench.commands.home import launch_default

        handler = launch_default
    try:
        return int(handler(args))
    except InputError as err:
        print(f"workbench: {err}", file=sys.stderr)
        return int(ExitCode.BAD_INPUT)
    except KeyboardInterrupt:
        return int(ExitCode.INTERRUPTED)
    except BrokenPipeError:
        return int(ExitCode.OK)
