"""`workbench arm new|list`: turn a routing row's new wording into a named arm, and list arms."""

from __future__ import annotations

import argparse

from workbench.authoring.arms import create_arm, list_arms
from workbench.authoring.workspace_file import store_arm
from workbench.commands.authoring import workspace_rows
from workbench.core.errors import InputError
from workbench.core.routing import Row, closest_rows, find_row
from workbench.core.wording import ArmInfo, check_arm_name
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


def describe(arm: ArmInfo, rows: list[Row] | None = None) -> str:
    """name, ref, short sha, the row it edits (marked when no current row has that id), env."""
    env = " ".join(f"{k}={v}" for k, v in arm.env.items())
    row = arm.row or "-"
    if arm.row and rows is not None and find_row(rows, arm.row) is None:
        near = closest_rows(rows, arm.row)
        row += f" (no such row now; closest: {', '.join(near) or 'none'})"
    return "\t".join([arm.name, arm.ref, (arm.sha or "missing")[:12], row, env or "-"])


def run_list(args: argparse.Namespace) -> int:
    ws = load_workspace()
    try:
        rows: list[Row] | None = workspace_rows(ws)
    except InputError:
        rows = None
    for arm in list_arms(ws):
        print(describe(arm, rows))
    return 0
