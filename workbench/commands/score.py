"""`workbench score STREAM --host H --require F ... --kind K --moment SPEC`: score one raw host stream.

The interface outside checks use: one JSON object with `--json`, a readable table without it.
Exit 0 when scored, whatever the verdicts; 2 on bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import IO, Any

from workbench.core.errors import InputError
from workbench.core.events import ParsedRun
from workbench.core.fingerprints import content_evidence
from workbench.core.hostinfo import NAMES
from workbench.core.models import Score, ScoreSpec
from workbench.core.parsers import parse_lines
from workbench.core.parsers.common import capped_lines
from workbench.core.scoring import score
from workbench.exitcodes import ExitCode
from workbench.runner.procedures import load_procedures


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `score` subcommand."""
    p = sub.add_parser("score", help="score one raw host stream against required files and a moment")
    p.add_argument("stream", help="the host's stdout, saved as a file ('-' for stdin)")
    p.add_argument("--host", required=True, choices=NAMES)
    p.add_argument("--require", action="append", required=True, metavar="FILE",
                   help="a file that must be read (path suffix); repeatable")
    p.add_argument("--kind", required=True, choices=("positive", "negative"))
    p.add_argument("--moment", default="edit", help="edit, end, bash:RE, tool:RE, a preset, or A,B")
    p.add_argument("--session-log", metavar="FILE", help="Codex rollout log, for refusals --json omits")
    p.add_argument("--plugin", metavar="DIR",
                   help="the run's plugin copy: judge reads by what the outputs show of its procedures")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=run)


def read_lines(path: str) -> list[str]:
    """The lines of a stream file (or stdin), decoded leniently: junk is the parser's to skip, and an
    overlong line is cut while reading (`capped_lines`), so a 50 MB line costs at most MAX_LINE."""
    def decode(stream: IO[bytes]) -> list[str]:
        return [raw.decode("utf-8", errors="replace").rstrip("\r\n") for raw in capped_lines(stream)]

    if path == "-":
        return decode(sys.stdin.buffer)
    try:
        with Path(path).open("rb") as fh:
            return decode(fh)
    except OSError as err:
        raise InputError(f"cannot read stream: {err.strerror}", file=path) from err


def run(args: argparse.Namespace) -> int:
    """Parse, score and print."""
    lines = read_lines(args.stream)
    session_log = read_lines(args.session_log) if args.session_log else None
    parsed = parse_lines(args.host, lines, session_log)
    if args.plugin:
        parsed.calls = content_evidence(parsed.calls, load_procedures(Path(args.plugin)))
    spec = ScoreSpec(kind=args.kind, required=list(args.require), moment=args.moment)
    result = score(spec, parsed.calls, model_output=parsed.model_output)
    payload = to_payload(spec, parsed, result)
    if parsed.skipped_count:
        print(f"workbench: skipped {parsed.skipped_count} unparsable line(s) in {args.stream}", file=sys.stderr)
    if args.json:
        print(json.dumps(payload))
    else:
        print(render_table(payload))
    return int(ExitCode.OK)


def to_payload(spec: ScoreSpec, parsed: ParsedRun, result: Score) -> dict[str, Any]:
    """The `--json` object, keyed by the required files exactly as given."""
    valid = parsed.model_output
    calls = [
        {"index": c.index, "tool": c.tool, "kind": c.kind, "path": c.path, "command": c.command,
         "status": c.status, "turn": c.turn, "evidence": dict(c.evidence)}
        for c in parsed.calls
    ]
    return {
        "valid": valid,
        "verdicts": dict(result.verdicts),
        "reads": dict(result.reads),
        "moment_at": result.moment_at,
        "moment_basis": result.moment_basis,
        "order_basis": result.order_basis,
        "read_basis": dict(result.read_basis),
        "fired_by": result.fired_by,
        "conflicts": [c.model_dump(exclude_none=True) for c in result.conflicts],
        "calls": calls,
        "host_version": parsed.init.host_version if parsed.init else None,
        "overall": result.overall,
        "kind": spec.kind,
        "moment": spec.moment,
    }


def render_table(payload: dict[str, Any]) -> str:
    """A plain-text view of the same facts, for people."""
    lines = [f"{'#':>3}  {'status':<7} {'kind':<6} {'tool':<18} target"]
    for c in payload["calls"]:
        mark = "  <- moment" if c["index"] == payload["moment_at"] else ""
        target = c["path"] or c["command"] or ""
        lines.append(f"{c['index']:>3}  {c['status']:<7} {c['kind']:<6} {c['tool']:<18} {target}{mark}")
    moment = payload["moment_at"]
    lines.append(f"moment: {payload['moment']} at {'never' if moment is None else '#' + str(moment)}")
    for name, verdict in payload["verdicts"].items():
        read = payload["reads"][name]
        lines.append(f"{name}: {verdict} (read at {'never' if read is None else '#' + str(read)})")
    lines.append(f"overall: {payload['overall']}" + ("" if payload["valid"] else " (no model output)"))
    return "\n".join(lines)
