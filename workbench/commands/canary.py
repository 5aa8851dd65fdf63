"""`workbench canary CASE --host H`: one run in a throwaway repo, streamed live, scored, recorded.

stdout is data: with `--json` it carries only the record and the live view goes to stderr;
without `--json` the live view is the output. Exit 0 when the run was scored.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape

from workbench.commands.unconfined import add_flag, warn
from workbench.core.cases import find_case
from workbench.core.errors import InputError
from workbench.core.events import CallFinished, CallsReset, Event, InitSeen, RunEnded, TextSeen
from workbench.core.hostinfo import EFFORT_HELP, NAMES
from workbench.core.models import Call, Case
from workbench.core.records import append_record
from workbench.core.runstate import RunState
from workbench.core.workspace import load_workspace
from workbench.exitcodes import ExitCode
from workbench.runner.redact import Redactor

if TYPE_CHECKING:
    from workbench.runner.doors import CanaryForm


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `canary` subcommand."""
    p = sub.add_parser("canary", help="run one case once on one host, live, and record it",
                       description="Run ONE case in a fresh throwaway git repo, stream its tool calls live, "
                                   "score it and append one record (condition canary).")
    p.add_argument("case", nargs="?", help="a case id of the workspace's cases/ or a case TOML file (default with a "
                   "--script canary file: the case it carries)")
    p.add_argument("--host", required=True, choices=NAMES)
    p.add_argument("--arm", metavar="NAME[=REF]", help="the arm under test: NAME=REF (a git ref of the plugin "
                   "repo, or @worktree for uncommitted edits) or a workspace arm's NAME (`workbench arm list`)")
    model = p.add_mutually_exclusive_group()
    model.add_argument("--model", help="a real model name (uses your login); sim: the reported model name")
    model.add_argument("--script", metavar="FILE", help="a host-neutral script (.json/.toml) or a "
                       "canary file (canaries/*.json: its script) for the scripted model server (real hosts) or the "
                       "sim; sim without it runs its policy")
    p.add_argument("--effort", help=EFFORT_HELP)
    p.add_argument("--record", metavar="FILE", help="records file to append to (default records/canary.jsonl)")
    p.add_argument("--json", action="store_true", help="print only the record JSON on stdout")
    p.add_argument("--prompt", help="ad hoc case: the prompt (instead of CASE)")
    p.add_argument("--require", action="append", metavar="FILE", help="ad hoc case: a required file; repeatable")
    p.add_argument("--kind", choices=("positive", "negative"), default="positive", help="ad hoc case kind")
    p.add_argument("--moment", default="edit", help="ad hoc case moment spec (default edit)")
    p.add_argument("--plugin", metavar="DIR", help="plugin folder to copy into the run (default: workspace plugin/)")
    p.add_argument("--fixture", metavar="DIR", help="content of the throwaway repo (default: workspace fixtures/base)")
    p.add_argument("--timeout", type=float, default=300.0, help="seconds before the run is stopped (default 300)")
    p.add_argument("--silence-timeout", type=float, default=300.0, help="seconds without output before stop (300)")
    add_flag(p)
    p.set_defaults(handler=run)


def ad_hoc_case(args: argparse.Namespace) -> Case:
    """A case from --prompt/--require/--kind/--moment."""
    from workbench.core.cases import parse_case

    data = {"id": "ad-hoc", "target": "ad-hoc", "kind": args.kind, "prompt": args.prompt,
            "required": list(args.require or []), "moment": args.moment}
    return parse_case(data, file="<command line>")


class LiveView:
    """Prints each finished call as one line: index, tool, target, status, result, and the scorer's marks.

    READ and MOMENT come from THE scorer through `RunState` (as in the TUI's pane): a call is marked
    once the scorer's answer for the calls so far names it. A `CallsReset` (Codex's final parse with
    its rollout) reprints the record's calls.
    """

    def __init__(self, case: Case, out: IO[str]) -> None:
        self.case = case
        self.console = Console(file=out, highlight=False, soft_wrap=True)
        self.state = RunState(kind=case.kind, required=list(case.required), moment=case.moment)
        self.clean: Callable[[Any], Any] = lambda value: value
        self.moment_shown = False

    def set_paths(self, paths: Mapping[str, str]) -> None:
        """Show run paths by their labels (`<repo>/src/app.py`)."""
        self.clean = Redactor(paths)

    def __call__(self, event: Event) -> None:
        self.state.consume(event)
        if isinstance(event, InitSeen):
            self.console.print(f"[dim]host {event.host_version or '?'} · model {event.model or '?'} · "
                               f"skills {', '.join(event.skills) or 'none'}[/dim]")
        elif isinstance(event, CallFinished):
            self.call(event.call)
        elif isinstance(event, CallsReset):
            self.console.print("[dim]final calls (as recorded: session log, content and effect evidence):[/dim]")
            self.moment_shown = False
            for call in self.state.calls:
                self.call(call)
        elif isinstance(event, TextSeen) and event.text.strip():
            self.console.print(f"   [italic]{escape(trim(self.clean(event.text), 100))}[/italic]")
        elif isinstance(event, RunEnded) and event.is_error:
            self.console.print(f"[red]run ended with an error: {escape(trim(event.error or '', 160))}[/red]")

    def call(self, call: Call) -> None:
        """One line for one finished call, marked by the scorer's answer so far."""
        target = self.clean(call.path or call.command or call.skill or "")
        marks = []
        hits = self.state.read_keys(call.index)
        if hits:
            marks.append("[bold green]READ " + escape(", ".join(hits)) + "[/bold green]")
        if not self.moment_shown and self.state.score().moment_at == call.index:
            self.moment_shown = True
            marks.append(f"[bold yellow]MOMENT ({escape(self.case.moment)})[/bold yellow]")
        colour = {"ok": "green", "error": "red", "denied": "magenta"}[call.status]
        self.console.print(f"{call.index:>3} {escape(call.tool):<14} {escape(trim(target, 70)):<70} "
                           f"[{colour}]{call.status:<6}[/{colour}] {' '.join(marks)}")
        if call.result:
            self.console.print(f"      [dim]{escape(trim(self.clean(call.result), 100))}[/dim]")


def form_of(args: argparse.Namespace, case: Case) -> CanaryForm:
    """The canary door's form from the options (`runner.doors.canary_request` does the rest)."""
    from workbench.core.arms import WORKTREE
    from workbench.runner.doors import CanaryForm

    return CanaryForm(case=case, host=args.host, model=args.model, effort=args.effort,
                      script=Path(args.script) if args.script else None, arm=args.arm or WORKTREE,
                      plugin=Path(args.plugin) if args.plugin else None,
                      fixture=Path(args.fixture) if args.fixture else None,
                      record=Path(args.record) if args.record else None, timeout=args.timeout,
                      silence_timeout=args.silence_timeout, unconfined=args.unconfined)


def trim(text: str, width: int) -> str:
    """One line of at most WIDTH characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[:width - 1] + "…"


def run(args: argparse.Namespace) -> int:
    """Resolve the case and options, run the canary, print and record it."""
    from workbench.runner.doors import canary_record, canary_request, script_case
    from workbench.runner.execute import execute
    from workbench.runner.proof import ProofFailed

    ws = load_workspace()
    if args.prompt is not None:
        if args.case:
            raise InputError("give either CASE or --prompt, not both", field="CASE")
        case = ad_hoc_case(args)
    elif args.case:
        case = find_case(args.case, ws.cases_dir)
        carried = script_case(args.script) if args.script else None
        if carried is not None:
            print(f"workbench: note: {args.script} carries its own case ({carried.id}); it runs on {case.id} "
                  "as asked, where its reads may find no file", file=sys.stderr)
    else:
        carried = script_case(args.script) if args.script else None
        if carried is None:
            raise InputError("give a CASE (id or file), an ad hoc --prompt with --require, or a --script canary "
                             "file that carries its own case", field="CASE")
        case = carried
    form = form_of(args, case)
    req = canary_request(ws, form)
    record_path = canary_record(ws, form)
    warn(args, "canary")  # after every input check: bad input stays one line
    out = sys.stderr if args.json else sys.stdout
    view = LiveView(case, out)
    view.console.print(f"[bold]canary[/bold] {escape(case.id)} on {args.host}: {escape(trim(case.prompt, 90))}")
    try:
        record = execute(req, on_event=view, on_setup=view.set_paths).record
    except ProofFailed as exc:
        print(f"workbench: {exc}; nothing was run (--unconfined runs without the sandbox)", file=sys.stderr)
        return int(ExitCode.ABORTED)
    append_record(record_path, record)
    for name, verdict in record.verdict.items():
        view.console.print(f"verdict [bold]{escape(name)}[/bold]: {verdict}")
    gate = "" if record.valid else f" (INVALID: {record.invalid_reason})"
    view.console.print(f"overall: [bold]{record.overall}[/bold]{gate}")
    for change in record.guard.changes if record.guard else []:
        print(f"workbench: guard: {change}", file=sys.stderr)
    if args.json:
        print(record.model_dump_json())
    return int(ExitCode.ABORTED if record.guard else ExitCode.OK)
