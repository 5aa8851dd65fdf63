"""`workbench rescore FILE...`: re-score every record's kept calls with the CURRENT scorer rules.

Lists each per-file verdict that changed (old -> new) and the count; exit 0 whatever changed. Inputs are
never modified; `--write OUT` writes the rescored records to a new file.

Records with a moment spec go through `scoring.score()`. Imported records have none (the publisher
scored with its own rules), so their stored moment index is kept and only the reads are re-judged, with
the scorer's own read detection (`scoring.first_read`) and verdict combination (`verdicts_at`).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from typing import Any

from workbench.core import records
from workbench.core.errors import InputError
from workbench.core.importer import STATUS_UNKNOWN
from workbench.core.models import CaseKind, RunRecord, ScoreSpec, Verdict
from workbench.core.scoring import SCORER_RULES, first_read, overall_verdict, record_keys, score
from workbench.exitcodes import ExitCode


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `rescore` subcommand."""
    p = sub.add_parser("rescore", help="re-score records with the current scorer rules and list changes")
    p.add_argument("files", nargs="+", metavar="FILE", help="records files (JSONL; AgentsMD lines accepted)")
    p.add_argument("--json", action="store_true", help="print the changes as JSON")
    p.add_argument("--write", metavar="OUT", help="write the rescored records to this NEW file")
    p.set_defaults(handler=run)


@dataclass(frozen=True)
class Change:
    """One per-file verdict that differs from the stored one."""

    file: str
    line: int
    target: str
    kind: str
    run: int
    batch: str | None
    source: str | None
    key: str
    old: str | None
    new: str | None
    status_unknown: bool

    def text(self) -> str:
        where = f"{self.file}:{self.line} {self.target} ({self.kind}) run {self.run}"
        where += f", batch {self.batch}" if self.batch else ""
        note = "  [no call status: failed reads unknown]" if self.status_unknown else ""
        return f"{where}: {self.key}: {self.old} -> {self.new}{note}"


def verdicts_at(kind: CaseKind, reads: dict[str, int | None], moment_at: int | None) -> dict[str, Verdict]:
    """Per-file verdicts from first-read indexes and a KNOWN moment index (the scorer's rule, moment given)."""
    out: dict[str, Verdict] = {}
    for key, at in reads.items():
        if kind == "negative":
            out[key] = "opened" if at is not None else "clean"
        elif moment_at is None:
            out[key] = "read-noaction" if at is not None else "skip-noaction"
        else:
            out[key] = "fired" if at is not None and at < moment_at else "skip"
    return out


def rescore(record: RunRecord) -> RunRecord:
    """A copy of the record judged by the current rules; the previous verdict is kept in `rescored_from`."""
    required = record.required or list(record.verdict)
    extra = record.model_extra or {}
    if record.moment is not None:
        spec = ScoreSpec(kind=record.kind, required=required, moment=record.moment,
                         entry_skill=extra.get("entry_skill"), entry_file=extra.get("entry_file"))
        result = score(spec, record.calls)
        reads, verdicts, moment_at = result.reads, dict(result.verdicts), result.moment_at
        entry = result.entry_loaded_at if (spec.entry_skill or spec.entry_file) else record.entry_loaded_at
    else:
        keys = record_keys(required)
        reads = {key: first_read(req, record.calls) for key, req in keys.items()}
        moment_at, entry = record.moment_at, record.entry_loaded_at
        verdicts = verdicts_at(record.kind, reads, moment_at)
    data = record.model_dump()
    data.update(required_read_at=dict(reads), verdict=verdicts, moment_at=moment_at, entry_loaded_at=entry,
                scorer_rules=SCORER_RULES,
                rescored_from={"verdict": dict(record.verdict), "overall": record.overall,
                               "scorer_rules": record.scorer_rules})
    if record.valid:
        data["overall"] = overall_verdict(record.kind, verdicts) if verdicts else None
    new = RunRecord.model_validate(data)
    return new


def changes(record: RunRecord, new: RunRecord, file: str, line: int) -> list[Change]:
    """Every per-file verdict of `new` that differs from the record's stored one."""
    unknown = bool((record.model_extra or {}).get(STATUS_UNKNOWN, False))
    out = []
    for key in dict.fromkeys([*record.verdict, *new.verdict]):
        old, now = record.verdict.get(key), new.verdict.get(key)
        if old != now and record.valid:
            out.append(Change(file, line, record.target, record.kind, record.run, record.batch, record.source,
                              key, old, now, unknown))
    return out


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
    unknown = sum(bool((r.model_extra or {}).get(STATUS_UNKNOWN)) for r in loaded.records)
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


