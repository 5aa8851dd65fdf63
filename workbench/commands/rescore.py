"""`workbench rescore FILE...`: re-score every record's kept calls with the CURRENT scorer rules.

Lists each per-file verdict that changed (old -> new) as it is found, then the count; exit 0 whatever
changed. Records are streamed (one in memory at a time). Inputs are never modified; `--write OUT` writes
the rescored records to a new file, removed again if the run stops on bad input.
Listing changes reads only the fields the scorer reads (`JudgeView`); `--write` reads and checks whole
records.

The rules for records without a moment spec (imported ones) are in `workbench.core.rescore`.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from typing import Any

from workbench.core import records
from workbench.core.errors import InputError
from workbench.core.models import RunRecord
from workbench.core.rescore import Judged, changes, judge, parse_view, rescore
from workbench.core.scoring import SCORER_RULES
from workbench.exitcodes import ExitCode


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `rescore` subcommand."""
    p = sub.add_parser("rescore", help="re-score records with the current scorer rules and list changes")
    p.add_argument("files", nargs="+", metavar="FILE", help="records files (JSONL; AgentsMD lines accepted)")
    p.add_argument("--json", action="store_true", help="print the changes as JSON")
    p.add_argument("--write", metavar="OUT", help="write the rescored records to this NEW file")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Stream the records: rescore each, print its changes as they are found, optionally write it."""
    out = records.create_new(args.write) if args.write else None
    total = unknown = changed = 0
    listed: list[dict[str, Any]] = []
    try:
        # Listing changes needs only what `judge` reads; writing stores whole records.
        items: Iterator[tuple[Judged, str, int]] = (
            records.stream_records(args.files, on_problem=warn) if out is not None
            else records.stream(args.files, parse_view, on_problem=warn))
        for record, file, line in items:
            try:
                result = judge(record)
            except InputError as err:
                raise InputError(err.message, file=file, line=line, field=err.field or "moment") from None
            total += 1
            unknown += record.status_unknown
            for change in changes(record, result, file, line):
                changed += 1
                if args.json:
                    listed.append(vars(change))
                else:
                    print(change.text())
            if out is not None:
                assert isinstance(record, RunRecord)
                out.write(rescore(record, result))
        if out is not None:
            out.close()
    except BaseException:
        if out is not None:
            out.discard()
        raise
    if args.json:
        payload: dict[str, Any] = {"records": total, "changed": changed, "scorer_rules": SCORER_RULES,
                                   "no_call_status": unknown, "changes": listed}
        print(json.dumps(payload, indent=2))
    else:
        print(f"{changed} verdicts changed in {total} records (scorer rules {SCORER_RULES})")
    if unknown:
        print(f"workbench: {unknown} records have no call status: failed reads could not be excluded",
              file=sys.stderr)
    return int(ExitCode.OK)


def warn(problem: records.Problem) -> None:
    """A skipped line, on stderr as it is met."""
    print(f"workbench: warning: {problem}", file=sys.stderr)
