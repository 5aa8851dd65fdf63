"""`workbench selftest [--host H ...]`: the instrument self-test, a scenario x host table of verdicts.

Exit 0 when every applicable scenario gave its expected verdict on every host, 1 on any mismatch.
"""

from __future__ import annotations

import argparse
import sys

from rich.console import Console
from rich.table import Table

from workbench.commands.unconfined import add_flag, warn
from workbench.core.hostinfo import NAMES
from workbench.core.workspace import load_workspace
from workbench.exitcodes import ExitCode
from workbench.hosts import REAL_HOSTS
from workbench.hosts.install import find_binary, hosts_dir


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `selftest` subcommand."""
    p = sub.add_parser("selftest", help="run the instrument scenarios of canaries/ through each host",
                       description="Run every scripted scenario of canaries/ through each host and check "
                                   "the verdict each must produce (default hosts: sim plus every "
                                   "installed real host).")
    p.add_argument("--host", action="append", choices=NAMES, help="a host to test; repeatable")
    p.add_argument("--only", action="append", metavar="SCENARIO", help="run only this scenario; repeatable")
    p.add_argument("--workers", type=int, default=6, help="runs in parallel (default 6)")
    add_flag(p)
    p.set_defaults(handler=run)


def default_hosts() -> list[str]:
    """sim plus every real host with an installed binary."""
    return ["sim", *(h for h in REAL_HOSTS if find_binary(h, hosts_dir()) is not None)]


def run(args: argparse.Namespace) -> int:
    """Run and print the table."""
    from workbench.core.errors import InputError
    from workbench.runner.doors import check_workers
    from workbench.runner.selftest import load_scenarios, run_selftest

    check_workers(args.workers)
    ws = load_workspace()
    scenarios = load_scenarios(ws.canaries_dir)
    if args.only:
        unknown = set(args.only) - {s.name for s in scenarios}
        if unknown:
            raise InputError(f"unknown scenario(s): {', '.join(sorted(unknown))}", field="--only")
        scenarios = [s for s in scenarios if s.name in args.only]
    hosts = args.host or default_hosts()
    err = Console(file=sys.stderr, highlight=False)
    err.print(f"selftest: {len(scenarios)} scenarios x {', '.join(hosts)}")
    report = run_selftest(scenarios, hosts, plugin=ws.plugin_dir, workers=args.workers,
                          unconfined=warn(args, "selftest"))
    table = Table(title="instrument self-test")
    table.add_column("scenario")
    for host in hosts:
        table.add_column(host)
    for scenario in scenarios:
        cells = []
        for host in hosts:
            o = next(o for o in report.outcomes if o.scenario == scenario.name and o.host == host)
            mark = {True: "[green]ok[/green]", False: "[bold red]MISMATCH[/bold red]", None: "[dim]n/a[/dim]"}[o.ok]
            extra = f" ({o.detail})" if o.detail else ""
            cells.append(f"{mark} {o.got}" if o.ok is None else f"{mark} expected {o.expected}, got {o.got}{extra}")
        table.add_row(scenario.name, *cells)
    Console(highlight=False, width=max(120, 40 + 45 * len(hosts))).print(table)
    bad = [o for o in report.outcomes if o.ok is False]
    if bad:
        print(f"selftest: {len(bad)} mismatch(es)", file=sys.stderr)
        return int(ExitCode.FINDINGS)
    return int(ExitCode.OK)
