"""`workbench sessions`: score the agent's past real sessions, read from where each host keeps them.

stdout: one line per session and row, then the per-row table (sessions vs lab), or `--json`;
stderr: one warning line per store, file or line that could not be used. Exit 2 only when no
session could be read at all. docs/sessions.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from workbench.core.hostinfo import SESSION_HOSTS
from workbench.core.records import append_record
from workbench.exitcodes import ExitCode
from workbench.runner.sessions import (
    TABLE_HEADER,
    RowTable,
    SessionsForm,
    SessionsResult,
    parse_since,
    read_sessions,
    row_cells,
    sessions_setup,
)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `sessions` subcommand."""
    p = sub.add_parser("sessions", help="score your past real sessions (read-only) against the rows")
    p.add_argument("--host", action="append", choices=SESSION_HOSTS, default=[],
                   help="a host whose sessions to read; repeatable (default: all that keep sessions)")
    p.add_argument("--home", metavar="DIR", help="the HOME holding the session stores (default: yours)")
    p.add_argument("--since", metavar="SPAN", help="only sessions changed within SPAN: 30m, 12h, 7d, 2w")
    p.add_argument("--project", metavar="PATH", help="only sessions whose working folder is PATH or inside it")
    p.add_argument("--require", action="append", default=[], metavar="FILE",
                   help="ad hoc row: a required file (path suffix); repeatable (else the workspace's rows)")
    p.add_argument("--moment", metavar="MOMENT", help="ad hoc row: the moment (edit, commit, bash:RE, ...)")
    p.add_argument("--entry-skill", metavar="NAME", help="ad hoc row: the skill whose listing offers the row")
    p.add_argument("--arm", metavar="NAME", help="the lab arm to compare with (default: per row, the most run)")
    p.add_argument("--record", metavar="FILE", help="append one record per session and row (condition sessions)")
    p.add_argument("--json", action="store_true", help="print JSON: {sessions: [...], table: [...]}")
    p.set_defaults(handler=run)


def form_of(args: argparse.Namespace) -> SessionsForm:
    """The door's form from the command line."""
    return SessionsForm(hosts=tuple(args.host) or SESSION_HOSTS, home=Path(args.home) if args.home else None,
                        since=parse_since(args.since), project=Path(args.project) if args.project else None,
                        require=tuple(args.require), moment=args.moment, entry_skill=args.entry_skill, arm=args.arm)


def table_lines(table: list[RowTable]) -> list[str]:
    """The per-row table (markdown): sessions that reached the moment and read first, beside the lab."""
    lines = ["| " + " | ".join(TABLE_HEADER) + " |", "|" + "---|" * len(TABLE_HEADER)]
    return lines + ["| " + " | ".join(row_cells(t)) + " |" for t in table]


def to_json(result: SessionsResult) -> dict[str, Any]:
    """The `--json` answer: each session scored per row, and the table."""
    sessions = [{
        "host": s.record.host, "session": s.record.case_id, "row": s.target.row,
        "required": list(s.target.required), "moment": s.target.moment, "verdicts": dict(s.record.verdict),
        "overall": s.record.overall, "offered": s.offered, "moment_at": s.record.moment_at,
        "required_read_at": dict(s.record.required_read_at), "valid": s.record.valid,
        "host_version": s.record.host_version, "started_at": s.record.started_at,
    } for s in result.scores]
    table = [{"row": t.row, "host": t.host, "sessions": t.sessions, "fired": t.fired, "rate": t.rate,
              "no_moment": t.no_moment, "not_offered": t.not_offered, "lab_arm": t.lab_arm, "lab_runs": t.lab_runs,
              "lab_hits": t.lab_hits, "lab_rate": t.lab_rate} for t in result.table]
    return {"sessions": sessions, "table": table, "read": result.read, "warnings": list(result.warnings)}


def run(args: argparse.Namespace) -> int:
    from workbench.core.workspace import find_workspace_file, load_workspace

    form = form_of(args)
    workspace = load_workspace() if (find_workspace_file() is not None or not form.require) else None
    plan = sessions_setup(workspace, form)
    result = read_sessions(plan)
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if args.record:
        for score in result.scores:
            append_record(args.record, score.record)
    if args.json:
        print(json.dumps(to_json(result), indent=2))
    else:
        for s in result.scores:
            offered = {True: "", False: " (row never offered)", None: ""}[s.offered]
            print(f"{s.record.host} {s.record.case_id} {s.target.row}: {s.record.overall}{offered}")
        print("\n".join(table_lines(result.table)))
    if result.read == 0:
        print("error: no session could be read", file=sys.stderr)
        return ExitCode.BAD_INPUT
    return ExitCode.OK
