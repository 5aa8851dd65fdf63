"""`workbench rescore`: placeholder until its module lands (owned by a helper this session)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `rescore` subcommand."""
    sub.add_parser("rescore", help="(not yet available)")
