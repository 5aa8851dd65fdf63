"""The headless front end: stdout carries data, stderr carries diagnostics, exit codes from ExitCode."""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Sequence
from typing import NoReturn

from workbench import __version__
from workbench.exitcodes import ExitCode
from workbench.failure import describe

DEBUG_HELP = "on an error, print the traceback too (also WORKBENCH_DEBUG=1)"


class OneLineParser(argparse.ArgumentParser):
    """argparse with its usage errors as one stderr line (exit 2), like every other bad input."""

    def error(self, message: str) -> NoReturn:
        command = self.prog.removeprefix("workbench").strip()
        self.exit(int(ExitCode.BAD_INPUT), f"workbench: {command + ': ' if command else ''}{message} "
                                           f"(see {self.prog} --help)\n")


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The argument parser for ARGV: the subcommand it names registered (every subcommand if it names none)."""
    from workbench.commands import registrars  # each command's imports; the app needs none of them

    parser: argparse.ArgumentParser = OneLineParser(
        prog="workbench",
        description="Measure whether coding agents read the procedure a routing row links before acting.",
    )
    parser.add_argument("--version", action="version", version=f"workbench {__version__}")
    parser.add_argument("--debug", action="store_true", help=DEBUG_HELP)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for register in registrars(argv):
        register(sub)
    _add_debug(parser)
    return parser


def _add_debug(parser: argparse.ArgumentParser) -> None:
    """`--debug` also after any (sub)command name; SUPPRESS keeps the global flag's value otherwise."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                if "--debug" not in child._option_string_actions:
                    child.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help=DEBUG_HELP)
                _add_debug(child)


def open_app(args: argparse.Namespace) -> int:
    """The Textual workbench on the workspace of the current folder (nearest `workbench.toml` upward,
    else the bundled demo), without importing every command on the way."""
    from workbench.tui.app import run_app

    run_app()
    return int(ExitCode.OK)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command. The CLI's one error boundary: any exception becomes ONE line on stderr and
    the exit code of `workbench.failure.describe` (2 bad input, 3 aborted); `--debug` adds the traceback.

    No arguments at all opens the app without building the parser: registering every command
    imports what the commands need (GitPython, rich.progress, the model server), which the first
    screen does not (cold start, docs/benchmarks.md)."""
    args_list = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(args_list).parse_args(args_list) if args_list else argparse.Namespace()
    handler = getattr(args, "handler", None)
    if handler is None:
        handler = open_app
    try:
        return int(handler(args))
    except KeyboardInterrupt:
        return int(ExitCode.INTERRUPTED)
    except BrokenPipeError:
        return int(ExitCode.OK)
    except Exception as exc:  # the boundary: everything else is one line
        if getattr(args, "debug", False) or os.environ.get("WORKBENCH_DEBUG", "") not in ("", "0"):
            traceback.print_exc()
        failure = describe(exc)
        print(f"workbench: {failure.line}", file=sys.stderr)
        return int(failure.code)
