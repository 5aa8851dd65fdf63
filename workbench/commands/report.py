"""`workbench report FILE... -o report.html`: one self-contained HTML page of the records' results.

The page's tables are the numbers `workbench summary --format json` prints for the same files (same
`--compare`); it also names each file's sha256 so a reader can check they have the same records.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shlex
import sys
import tempfile
from pathlib import Path

from workbench.commands.summary import parse_compare, warn
from workbench.core import records
from workbench.core.errors import InputError
from workbench.core.report import build
from workbench.core.summary import summarize
from workbench.exitcodes import ExitCode
from workbench.report.html import render


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `report` subcommand."""
    p = sub.add_parser("report", help="one self-contained HTML report of run records")
    p.add_argument("files", nargs="+", metavar="FILE", help="records files (JSONL)")
    p.add_argument("-o", "--output", required=True, metavar="HTML", help="the page to write")
    p.add_argument("--compare", action="append", default=[], metavar="A,B",
                   help="compare arm B against arm A (sha or arm name); repeatable")
    p.add_argument("--lenient", action="store_true", help="skip invalid lines (reported) instead of failing")
    p.set_defaults(handler=run)


def sha256_of(path: str) -> str:
    """The file's sha256 in hex."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                digest.update(chunk)
    except OSError as err:
        raise InputError(f"cannot read: {err.strerror or err}", file=path) from None
    return digest.hexdigest()


def write_whole(path: Path, text: str) -> None:
    """Write PATH so that it is either the old file or the whole new one, never half."""
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent or Path("."))
    except OSError as err:
        raise InputError(f"cannot write: {err.strerror or err}", file=str(path)) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def reproduce_command(args: argparse.Namespace) -> str:
    """The `workbench summary` line that prints the page's numbers."""
    parts = ["workbench", "summary", *args.files, "--format", "json"]
    for value in args.compare:
        parts += ["--compare", value]
    return shlex.join(parts)


def run(args: argparse.Namespace) -> int:
    """Load, build, render, write."""
    pairs = parse_compare(args.compare)
    loaded = records.load_files(args.files, lenient=args.lenient)
    warn(loaded, summarize(loaded.records))
    files = [{"path": f, "sha256": sha256_of(f)} for f in args.files]
    report = build(loaded.records, pairs, files)
    write_whole(Path(args.output), render(report, reproduce_command(args)))
    print(f"workbench: wrote {args.output} ({len(report.runs)} runs)", file=sys.stderr)
    return int(ExitCode.OK)
