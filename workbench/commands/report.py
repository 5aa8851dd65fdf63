"""`workbench report FILE... -o report.html`: one self-contained HTML page of the records' results.

The page's tables are the numbers `workbench summary --format json` prints for the same files (same
`--compare`); it also names each file's sha256 so a reader can check they have the same records.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from workbench.commands.summary import parse_compare, warn
from workbench.core.batches import BatchTracker
from workbench.core.summary import summarize
from workbench.exitcodes import ExitCode
from workbench.report.page import write_report


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `report` subcommand."""
    p = sub.add_parser("report", help="one self-contained HTML report of run records")
    p.add_argument("files", nargs="+", metavar="FILE", help="records files (JSONL)")
    p.add_argument("-o", "--output", required=True, metavar="HTML", help="the page to write")
    p.add_argument("--compare", action="append", default=[], metavar="A,B",
                   help="compare arm B against arm A (sha or arm name); repeatable")
    p.add_argument("--lenient", action="store_true", help="skip invalid lines (reported) instead of failing")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Load, build, render, write."""
    pairs = parse_compare(args.compare)
    written = write_report(list(args.files), Path(args.output), pairs, lenient=args.lenient)
    batches = BatchTracker()
    for record in written.records:
        batches.add(record)
    warn(batches, summarize(written.records))
    print(f"workbench: wrote {args.output} ({written.runs} runs)", file=sys.stderr)
    return int(ExitCode.OK)
