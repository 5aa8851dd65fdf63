"""The headless front end: stdout carries data, stderr carries diagnostics, exit codes from ExitCode."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from workbench import __version__
from workbench.core.errors import InputError
from workbench.exitcodes import ExitCode


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand registered."""
    from workbench.commands import COMMANDS  # each command's imports; the app needs none of them

    parser = argparse.ArgumentParser(
        prog="workbench",
        description="Measure whether coding agents read the procedure a routing row links before acting.",
    )
    parser.add_argument("--version", action="version", version=f"workbench {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for register in COMMANDS:
        register(sub)
    return parser


def open_app(args: argparse.Namespace) -> int:
    """The Textual workbench (`workbench.commands.home` without importing every command on the way)."""
    from workbench.tui.app import make_app

    make_app().run()
    return int(ExitCode.OK)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; bad input is one line on stderr and exit 2, never a traceback.

    No arguments at all opens the app without building the parser: registering every command
    imports what the commands need (GitPython, rich.progress, the model server), which the first
    screen does not (cold start, docs/benchmarks.md)."""
    args_list = sys.argv[1:] if argv is None else list(argv)
    args = build_parser().parse_args(args_list) if args_list else argparse.Namespace()
    handler = getattr(args, "handler", None)
    if handler is None:
        handler = open_app
    try:
        return int(handler(args))
    except InputError as err:
        print(f"workbench: {err}", file=sys.stderr)
        return int(ExitCode.BAD_INPUT)
    except KeyboardInterrupt:
        return int(ExitCode.INTERRUPTED)
    except BrokenPipeError:
        return int(ExitCode.OK)
