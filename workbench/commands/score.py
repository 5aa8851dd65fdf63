"""`workbench score`: placeholder until its module lands (owned by a helper this session)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `score` subcommand."""
    sub.add_parser("score", help="(not yet available)")
