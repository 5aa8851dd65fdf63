"""`workbench export inspect FILE... -o DIR`: run records as Inspect AI `.eval` logs (docs/reports.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from workbench.core import records
from workbench.exitcodes import ExitCode


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `export` and its `inspect` target."""
    p = sub.add_parser("export", help="records in other tools' formats")
    targets = p.add_subparsers(dest="target", metavar="TARGET", required=True)
    q = targets.add_parser("inspect", help="Inspect AI .eval logs (extra workbench[inspect]); open with `inspect view`")
    q.add_argument("files", nargs="+", metavar="FILE", help="records files (JSONL)")
    q.add_argument("-o", "--output", required=True, metavar="DIR", help="folder for the .eval logs")
    q.add_argument("--lenient", action="store_true", help="skip invalid lines (reported) instead of failing")
    q.set_defaults(handler=run_inspect)


def run_inspect(args: argparse.Namespace) -> int:
    """Load the records and write one log per host/model/effort and arm; print the paths."""
    from workbench.export.inspect_log import export, require_inspect

    require_inspect()
    loaded = records.load_files(args.files, lenient=args.lenient)
    for problem in loaded.problems:
        print(f"workbench: warning: {problem}", file=sys.stderr)
    for path in export(loaded.records, Path(args.output)):
        print(path)
    return int(ExitCode.OK)
