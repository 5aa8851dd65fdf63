"""`workbench arm new|list`: turn a routing row's new wording into a named arm, and list arms."""

from __future__ import annotations

import argparse
import sys

from workbench.authoring.arms import create_arm, list_arms, row_changes
from workbench.authoring.workspace_file import row_summary, store_arm
from workbench.commands.authoring import workspace_rows
from workbench.core.arms import Arm, check_arm_name
from workbench.core.errors import InputError
from workbench.core.routing import Row, closest_rows, find_row
from workbench.core.workspace import load_workspace


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `arm` subcommand with `new` and `list`."""
    p = sub.add_parser("arm", help="create and list arms (a row's wording as a commit, host env)",
                       description="An arm is a git ref of the plugin repo (baseline = HEAD) plus optional "
                                   "environment variables for the host.")
    arm_sub = p.add_subparsers(dest="arm_command", metavar="ACTION", required=True)
    new = arm_sub.add_parser("new", help="commit one row's new wording on workbench/arm/NAME",
                             description="Commit ONLY this row's change, on branch workbench/arm/NAME from HEAD; "
                                         "the working tree and current branch are left alone.")
    new.add_argument("row", nargs="?", metavar="ROW", help="row id (see `workbench rows`); omit for an env-only arm")
    new.add_argument("--name", required=True)
    text = new.add_mutually_exclusive_group()
    text.add_argument("--text", help="the row's whole new line (a description row: its new description)")
    text.add_argument("--trigger", help="only the trigger's new wording")
    new.add_argument("--env", action="append", default=[], metavar="KEY=VALUE",
                     help="an environment variable for the host (stored in workbench.toml); repeatable")
    new.add_argument("--force", action="store_true",
                     help="replace an existing arm; commit text that is no routing row or links a missing file")
    new.set_defaults(handler=run_new)
    lst = arm_sub.add_parser("list", help="arms by name -> ref")
    lst.set_defaults(handler=run_list)


def parse_env(items: list[str]) -> dict[str, str]:
    """`KEY=VALUE` items -> dict."""
    env: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise InputError(f"expected KEY=VALUE, got {item!r}", field="--env")
        env[key] = value
    return env


def run_new(args: argparse.Namespace) -> int:
    ws = load_workspace()
    env = parse_env(args.env)
    if args.row is None:
        if not env or args.text or args.trigger:
            raise InputError("an arm without ROW needs --env (and no --text/--trigger)", field="ROW")
        check_arm_name(args.name)
        file = store_arm(ws, args.name, env=env, ref="HEAD")
        print(f"{args.name}\tHEAD\t(env stored in {file})")
        return 0
    if args.text is None and args.trigger is None:
        raise InputError("give --text or --trigger", field="--text")
    arm = create_arm(ws, args.row, args.name, text=args.text, trigger=args.trigger, env=env, force=args.force)
    print(f"{arm.name}\t{arm.ref}\t{arm.sha}")
    return 0


def describe(arm: Arm, rows: list[Row] | None = None) -> str:
    """name, ref, short sha, the row it edits (marked when no current row has that id), env."""
    env = " ".join(f"{k}={v}" for k, v in arm.env.items())
    row = arm.row or "-"
    if arm.row and rows is not None and find_row(rows, arm.row) is None:
        near = closest_rows(rows, arm.row)
        row += f" (no such row now; closest: {', '.join(near) or 'none'})"
    return "\t".join([arm.name, arm.ref, (arm.sha or "missing")[:12], row, env or "-"])


def changes(found: list[tuple[str, Row | None, Row | None]]) -> list[str]:
    """The indented lines under an arm naming the rows it lacks, the rows only it has, and the ids
    that name another row there."""
    out: list[str] = []
    for kind, head, arm in found:
        if kind == "gone" and head is not None:
            out.append(f"  gone in this arm: {head.id} (at HEAD: {row_summary(head)})")
        elif kind == "only" and arm is not None:
            out.append(f"  only in this arm: {arm.id} ({row_summary(arm)})")
        elif head is not None and arm is not None:
            out.append(f"  {head.id} names another row in this arm: {row_summary(arm)} (at HEAD: {row_summary(head)})")
    return out


def run_list(args: argparse.Namespace) -> int:
    ws = load_workspace()
    try:
        rows: list[Row] | None = workspace_rows(ws)
    except InputError:
        rows = None
    arms = list_arms(ws)
    try:
        diff = row_changes(ws, arms)
    except InputError as exc:
        diff = {}
        print(f"warning: rows at the arms' commits not compared: {exc}", file=sys.stderr)
    for arm in arms:
        print(describe(arm, rows))
        for line in changes(diff.get(arm.name, [])):
            print(line)
    return 0
