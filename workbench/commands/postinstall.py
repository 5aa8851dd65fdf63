"""`workbench postinstall --host H [--case C]`: one run against the user's LIVE install.

No temp HOME and no plugin copy: the host runs with the real HOME and config (so it loads the
plugin the way the user installed it), in a fresh throwaway repo. The guard watches the real
checkouts and the live config files; a change is reported and makes the record invalid. The
record has the batch schema with condition `live-install`. The run itself is `runner/execute.py`
(the live-install specifics: `runner/live.py`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from workbench.commands.unconfined import add_flag, warn
from workbench.core.hostinfo import EFFORT_HELP, NAMES
from workbench.core.records import append_record
from workbench.exitcodes import ExitCode
from workbench.runner.live import DEFAULT_CASE  # the help text names it


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `postinstall` subcommand."""
    p = sub.add_parser("postinstall", help="one run against your live install (real HOME and config)",
                       description="Run one case on your live host install (real HOME, real config, no copies) "
                                   "in a fresh throwaway repo, with the guard over your checkouts and live config.")
    p.add_argument("--host", required=True, choices=NAMES)
    p.add_argument("--case", help=f"case id or file (default: the workspace's {DEFAULT_CASE})")
    model = p.add_mutually_exclusive_group()
    model.add_argument("--model", help="the model to ask for (your login)")
    model.add_argument("--script", metavar="FILE", help="a scripted model on 127.0.0.1 instead (tests)")
    p.add_argument("--effort", help=EFFORT_HELP)
    p.add_argument("--record", metavar="FILE", help="records file (default: the workspace's records/live-install.jsonl)")
    p.add_argument("--binary", metavar="PATH", help="the host binary (default: on PATH, else the pinned install)")
    p.add_argument("--home", metavar="DIR", help="the live HOME (default: $HOME)")
    p.add_argument("--guard", action="append", default=[], metavar="PATH", help="another checkout to guard")
    p.add_argument("--timeout", type=float, default=600.0, help="seconds before the run is stopped (600)")
    p.add_argument("--silence-timeout", type=float, default=300.0, help="seconds without output before stop (300)")
    add_flag(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Resolve the workspace, case and host; run once; print the verdict and any guard finding."""
    from workbench.core.cases import find_case
    from workbench.core.workspace import load_workspace
    from workbench.runner.doors import PostinstallForm, postinstall_case, postinstall_record, postinstall_request
    from workbench.runner.execute import execute
    from workbench.runner.proof import ProofFailed

    ws = load_workspace()
    form = PostinstallForm(case=find_case(args.case, ws.cases_dir) if args.case else None, host=args.host,
                           model=args.model, effort=args.effort, script=Path(args.script) if args.script else None,
                           home=Path(args.home) if args.home else None,
                           record=Path(args.record) if args.record else None,
                           binary=Path(args.binary) if args.binary else None, guard=tuple(map(Path, args.guard)),
                           timeout=args.timeout, silence_timeout=args.silence_timeout, unconfined=args.unconfined)
    req = postinstall_request(ws, form)
    case, record_path = postinstall_case(ws, form), postinstall_record(ws, form)
    warn(args, "postinstall")  # after every input check: bad input stays one line
    record_path.parent.mkdir(parents=True, exist_ok=True)
    try:
        r = execute(req).record
    except ProofFailed as exc:
        print(f"workbench: {exc}; nothing was run (--unconfined runs without the sandbox)", file=sys.stderr)
        return int(ExitCode.ABORTED)
    append_record(record_path, r)
    print(f"{case.id} on live {args.host}: {r.overall}" + ("" if r.valid else f" (INVALID: {r.invalid_reason})")
          + f" -> {record_path}")
    changes = r.guard.changes if r.guard else []
    for change in changes:
        print(f"workbench: guard: {change}", file=sys.stderr)
    return int(ExitCode.ABORTED if changes else ExitCode.OK)
