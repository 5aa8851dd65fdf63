"""What `workbench` does with no subcommand."""

from __future__ import annotations

import argparse

from workbench.exitcodes import ExitCode


def launch_default(args: argparse.Namespace) -> int:
    """Print the commands available until the Textual workbench lands."""
    from workbench.cli import build_parser

    build_parser().print_help()
    return int(ExitCode.OK)
