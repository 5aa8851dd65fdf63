"""`workbench hosts [--json]` lists the pinned host CLIs; `workbench hosts install [--only H]` installs them.

Installs go through npm into the user cache (or $WORKBENCH_HOSTS_DIR), pinned to the versions
the workbench is verified against. Exit 2 with one line naming any host whose binary is missing or does not run.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path

from workbench.core.errors import InputError
from workbench.core.hostinfo import NPM_HOSTS
from workbench.exitcodes import ExitCode
from workbench.hosts.install import hosts_dir, install, status


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `hosts` subcommand and its `install` action."""
    p = sub.add_parser("hosts", help="list the pinned host CLIs (or install them)")
    p.add_argument("action", nargs="?", choices=("list", "install"), default="list")
    p.add_argument("--only", action="append", choices=NPM_HOSTS, metavar="HOST",
                   help=f"only this host ({', '.join(NPM_HOSTS)}); repeatable")
    p.add_argument("--dir", help="install directory (default: $WORKBENCH_HOSTS_DIR or the user cache)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """List or install."""
    root = Path(args.dir).resolve() if args.dir else hosts_dir()
    chosen = list(dict.fromkeys(args.only or NPM_HOSTS))
    if args.action == "install":
        print(f"workbench: installing {', '.join(chosen)} into {root} ...", file=sys.stderr)
        install(chosen, root)
    rows = [status(host, root) for host in chosen]
    if args.json:
        print(json.dumps({"dir": str(root), "hosts": [asdict(r) for r in rows]}))
    else:
        print(f"{'host':<9} {'pinned':<9} {'installed':<10} {'usable':<6} binary")
        for r in rows:
            print(f"{r.host:<9} {r.pinned:<9} {r.installed or '-':<10} {'yes' if r.usable else 'no':<6} {r.binary or '-'}")
    absent = [r.host for r in rows if r.binary is None]
    if absent:
        raise InputError(f"no binary for {', '.join(absent)} under {root}; run `workbench hosts install`", field="host")
    broken = [r.host for r in rows if not r.usable]
    if broken:
        raise InputError(f"{', '.join(broken)}: binary present but `--version` fails", field="host")
    return int(ExitCode.OK)
