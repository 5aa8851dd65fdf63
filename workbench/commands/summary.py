"""`workbench summary`: placeholder until its module lands (owned by a helper this session)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `summary` subcommand."""
    sub.add_parser("summary", help="(not yet available)")
