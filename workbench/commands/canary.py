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

from workbench.core.cases import find_case
from workbench.core.errors import InputError
from workbench.core.events import CallFinished, Event, InitSeen, RunEnded, TextSeen
from workbench.core.hostinfo import NAMES
from workbench.core.models import Call, Case
from workbench.core.moments import matches, parse_moment
from workbench.core.paths import suffix_match
from workbench.core.records import append_record
from workbench.core.scoring import read_paths
from workbench.core.workspace import Workspace, load_workspace
from workbench.exitcodes import ExitCode
from workbench.modelstub import load_script

HOST_CHOICES = NAMES  # the host registry (workbench.core.hostinfo)
if TYPE_CHECKING:
    from workbench.runner.arms import Arm


def canary_arm(spec: str, ws: Workspace, plugin: Path) -> Arm:
    """`NAME=REF`, `NAME=@worktree` (canaries only: the plugin folder as it is) or a workspace arm's NAME."""
    from workbench.commands.batch import workspace_arm
    from workbench.runner.arms import WORKTREE, resolve_arm

    name, _, ref = spec.partition("=")
    if ref == WORKTREE:
        return resolve_arm(plugin, name, ref, allow_worktree=True)
    if ref and plugin.resolve() != ws.plugin_dir.resolve():  # --plugin elsewhere: its own repo's ref
        return resolve_arm(plugin, name, ref)
    return workspace_arm(ws, name, ref)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `canary` subcommand."""
    p = sub.add_parser("canary", help="run one case once on one host, live, and record it",
                       description="Run ONE case in a fresh throwaway git repo, stream its tool calls live, "
                                   "score it and append one record (condition canary).")
    p.add_argument("case", nargs="?", help="a case id of the workspace's cases/ or a case TOML file")
    p.add_argument("--host", required=True, choices=HOST_CHOICES)
    p.add_argument("--arm", metavar="NAME[=REF]", help="the arm under test: NAME=REF (a git ref of the plugin "
                   "repo, or @worktree for uncommitted edits) or a workspace arm's NAME (`workbench arm list`)")
    model = p.add_mutually_exclusive_group()
    model.add_argument("--model", help="a real model name (uses your login); sim: the reported model name")
    model.add_argument("--script", metavar="FILE", help="a host-neutral script (.json/.toml) for the "
                       "scripted model server (real hosts) or the sim; sim without it runs its policy")
    p.add_argument("--record", metavar="FILE", help="records file to append to (default records/canary.jsonl)")
    p.add_argument("--json", action="store_true", help="print only the record JSON on stdout")
    p.add_argument("--prompt", help="ad hoc case: the prompt (instead of CASE)")
    p.add_argument("--require", action="append", metavar="FILE", help="ad hoc case: a required file; repeatable")
    p.add_argument("--kind", choices=("positive", "negative"), default="positive", help="ad hoc case kind")
    p.add_argument("--moment", default="edit", help="ad hoc case moment spec (default edit)")
    p.add_argument("--plugin", metavar="DIR", help="plugin folder to copy into the run (default: workspace plugin/)")
    p.add_argument("--fixture", metavar="DIR", help="content of the throwaway repo (default: workspace fixtures/base)")
    p.add_argument("--timeout", type=float, default=300.0, help="seconds before the run is stopped (default 300)")
    p.set_defaults(handler=run)


def ad_hoc_case(args: argparse.Namespace) -> Case:
    """A case from --prompt/--require/--kind/--moment."""
    from workbench.core.cases import parse_case

    data = {"id": "ad-hoc", "target": "ad-hoc", "kind": args.kind, "prompt": args.prompt,
            "required": list(args.require or []), "moment": args.moment}
    return parse_case(data, file="<command line>")


class LiveView:
    """Prints each finished call as one line: index, tool, target, status, result, marks."""

    def __init__(self, case: Case, out: IO[str]) -> None:
        self.case = case
        self.console = Console(file=out, highlight=False, soft_wrap=True)
        self.spec = parse_moment(case.moment)
        self.moment_seen = False
        self.clean: Callable[[Any], Any] = lambda value: value

    def set_paths(self, paths: Mapping[str, str]) -> None:
        """Show run paths by their labels (`<repo>/src/app.py`)."""
        from workbench.runner.canary import anonymizer

        self.clean = anonymizer(paths)

    def __call__(self, event: Event) -> None:
        if isinstance(event, InitSeen):
            self.console.print(f"[dim]host {event.host_version or '?'} · model {event.model or '?'} · "
                               f"skills {', '.join(event.skills) or 'none'}[/dim]")
        elif isinstance(event, CallFinished):
            self.call(event.call)
        elif isinstance(event, TextSeen) and event.text.strip():
            self.console.print(f"   [italic]{escape(trim(self.clean(event.text), 100))}[/italic]")
        elif isinstance(event, RunEnded) and event.is_error:
            self.console.print(f"[red]run ended with an error: {escape(trim(event.error or '', 160))}[/red]")

    def call(self, call: Call) -> None:
        """One line for one finished call."""
        target = self.clean(call.path or call.command or call.skill or "")
        marks = []
        hits = [r for r in self.case.required if any(suffix_match(p, r) for p in read_paths(call))]
        if hits:
            marks.append("[bold green]READ " + escape(", ".join(hits)) + "[/bold green]")
        if not self.moment_seen and any(matches(a, call) for a in self.spec.alternatives if a.kind != "end"):
            self.moment_seen = True
            marks.append(f"[bold yellow]MOMENT ({escape(self.case.moment)})[/bold yellow]")
        colour = {"ok": "green", "error": "red", "denied": "magenta"}[call.status]
        self.console.print(f"{call.index:>3} {escape(call.tool):<14} {escape(trim(target, 70)):<70} "
                           f"[{colour}]{call.status:<6}[/{colour}] {' '.join(marks)}")
        if call.result:
            self.console.print(f"      [dim]{escape(trim(self.clean(call.result), 100))}[/dim]")


def trim(text: str, width: int) -> str:
    """One line of at most WIDTH characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[:width - 1] + "…"


def run(args: argparse.Namespace) -> int:
    """Resolve the case and options, run the canary, print and record it."""
    from workbench.runner.canary import CanaryRequest, run_canary

    ws = load_workspace()
    if args.prompt is not None:
        if args.case:
            raise InputError("give either CASE or --prompt, not both", field="CASE")
        case = ad_hoc_case(args)
    elif args.case:
        case = find_case(args.case, ws.cases_dir)
    else:
        raise InputError("give a CASE (id or file) or an ad hoc --prompt with --require", field="CASE")
    plugin = Path(args.plugin) if args.plugin else ws.plugin_dir
    if not plugin.is_dir():
        raise InputError(f"plugin folder not found: {plugin}", field="--plugin")
    fixture = Path(args.fixture) if args.fixture else ws.base_fixture
    if args.fixture and not fixture.is_dir():
        raise InputError(f"fixture folder not found: {fixture}", field="--fixture")
    script = load_script(args.script) if args.script else None
    arm = canary_arm(args.arm, ws, plugin) if args.arm else None
    req = CanaryRequest(host=args.host, plugin=plugin, fixture=fixture if fixture.is_dir() else None,
                        script=script, model=args.model, arm=arm.name if arm else None, timeout=args.timeout,
                        arm_from=arm)
    out = sys.stderr if args.json else sys.stdout
    view = LiveView(case, out)
    view.console.print(f"[bold]canary[/bold] {escape(case.id)} on {args.host}: {escape(trim(case.prompt, 90))}")
    result = run_canary(case, req, on_event=view, on_setup=view.set_paths)
    record = result.record
    append_record(Path(args.record) if args.record else ws.records_dir / "canary.jsonl", record)
    for name, verdict in record.verdict.items():
        view.console.print(f"verdict [bold]{escape(name)}[/bold]: {verdict}")
    gate = "" if record.valid else f" (INVALID: {record.invalid_reason})"
    view.console.print(f"overall: [bold]{record.overall}[/bold]{gate}")
    if args.json:
        print(record.model_dump_json())
    return int(ExitCode.OK)
