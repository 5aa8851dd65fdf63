"""`workbench rescore FILE...`: re-score every record's kept calls with the CURRENT scorer rules.

Lists each per-file verdict that changed (old -> new) and the count; exit 0 whatever changed. Inputs are
never modified; `--write OUT` writes the rescored records to a new file.

The rules for records without a moment spec (imported ones) are in `workbench.core.rescore`.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from workbench.core import records
from workbench.core.errors import InputError
from workbench.core.models import RunRecord
from workbench.core.rescore import Change, changes, rescore
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
    """Rescore, list changes on stdout, optionally write the rescored records."""
    loaded = records.load_files(args.files)
    for problem in loaded.problems:
        print(f"workbench: warning: {problem}", file=sys.stderr)
    rescored: list[RunRecord] = []
    found: list[Change] = []
    for record, (file, line) in zip(loaded.records, loaded.origins, strict=True):
        try:
            new = rescore(record)
        except InputError as err:
            raise InputError(err.message, file=file, line=line, field=err.field or "moment") from None
        rescored.append(new)
        found += changes(record, new, file, line)
    unknown = sum(r.status_unknown for r in loaded.records)
    if args.json:
        payload: dict[str, Any] = {"records": len(loaded.records), "changed": len(found),
                                   "scorer_rules": SCORER_RULES, "no_call_status": unknown,
                                   "changes": [vars(c) for c in found]}
        print(json.dumps(payload, indent=2))
    else:
        for change in found:
            print(change.text())
        print(f"{len(found)} verdicts changed in {len(loaded.records)} records (scorer rules {SCORER_RULES})")
    if unknown:
        print(f"workbench: {unknown} records have no call status: failed reads could not be excluded",
              file=sys.stderr)
    if args.write:
        try:
            records.write_records(args.write, rescored)
        except FileExistsError:
            raise InputError("exists; --write only creates a new file", file=args.write) from None
    return int(ExitCode.OK)


