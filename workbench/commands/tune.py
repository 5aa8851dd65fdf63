"""`workbench tune ROW`: propose wordings for a row and keep only what a held-back test confirms.

stderr: the split, the candidates, the forecast, progress and the decision; stdout: one line, or with
`--json` one object with `winner` (`arm`, `trigger`, or null), `holdout` and `candidates`. Exit 0 a
winner, 1 no winner, 2 bad input (nothing run), 3 aborted.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from workbench.core.forecast import Forecast
from workbench.core.hostinfo import EFFORT_HELP
from workbench.exitcodes import ExitCode


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `tune` subcommand."""
    p = sub.add_parser("tune", help="propose before-clauses for a row; keep only what held-back cases confirm",
                       description="Tune one routing row: candidates (lint's rewrites, typed wordings or a proposer "
                                   "host) are arms, decided on selection cases (paired, anytime-valid), confirmed once "
                                   "on held-back cases, and checked on negatives on every host.")
    p.add_argument("row", metavar="ROW", help="the routing row (full or short id)")
    p.add_argument("--hosts", default=None, metavar="H[,H]", help="hosts the text reaches (default: the workspace's)")
    p.add_argument("--proposer", default="rules", metavar="rules|HOST[:MODEL]",
                   help="who proposes: lint's rules (default) or a host CLI you are logged in to")
    p.add_argument("--wording", action="append", default=[], metavar="TEXT",
                   help="a trigger (or whole row line) you propose; repeatable")
    p.add_argument("--budget-runs", type=int, default=None, metavar="N", help="runs at most (refused if too few to decide)")
    p.add_argument("--max-runs", type=int, default=20, metavar="N", help="selection: runs per case and arm at most (20)")
    p.add_argument("--holdout-runs", type=int, default=16, metavar="N", help="held-back: runs per case and arm (16)")
    p.add_argument("--negative-runs", type=int, default=2, metavar="N", help="negatives: runs per case and arm (2)")
    p.add_argument("--alpha", type=float, default=0.05, metavar="A", help="error level (0.05)")
    p.add_argument("--model", help="the model of the measured runs (real hosts: your login)")
    p.add_argument("--effort", help=EFFORT_HELP + "; every measured run, on every host")
    p.add_argument("--script", metavar="FILE", help="a scripted model for the measured runs (tests, self-checks)")
    p.add_argument("--proposer-script", metavar="FILE", help="a scripted proposer model (tests)")
    p.add_argument("--record", metavar="FILE", help="records file (default: records/tune-<row>.jsonl)")
    p.add_argument("--jobs", type=int, default=1, metavar="J", help="runs at once (1)")
    p.add_argument("--unconfined", action="store_true", help="run without bubblewrap (recorded so)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from workbench.core.workspace import load_workspace
    from workbench.runner.tune import TuneEvent, TuneForm, report_lines, result_json, run_tune, tune_setup

    ws = load_workspace()
    hosts = tuple(h.strip() for h in (args.hosts or "").split(",") if h.strip())
    form = TuneForm(row=args.row, hosts=hosts, proposer=args.proposer, wordings=tuple(args.wording),
                    budget_runs=args.budget_runs, max_runs=args.max_runs, holdout_runs=args.holdout_runs,
                    negative_runs=args.negative_runs, alpha=args.alpha, model=args.model,
                    effort=args.effort,
                    script=Path(args.script) if args.script else None,
                    proposer_script=Path(args.proposer_script) if args.proposer_script else None,
                    record=Path(args.record) if args.record else None, jobs=args.jobs, unconfined=args.unconfined)
    plan = tune_setup(ws, form)
    err = sys.stderr
    print(f"tune {plan.row.id}: selection {', '.join(c.id for c in plan.selection)}; held back "
          f"{', '.join(c.id for c in plan.holdout)}; {len(plan.negatives)} negative(s) on {', '.join(plan.hosts)}",
          file=err)

    def event(e: TuneEvent) -> None:
        print(f"[{e.runs}/{e.total}] {e.stage}: {e.message}", file=err, flush=True)

    def shown(f: Forecast) -> None:
        for line in f.lines():
            print(line + " (upper bound)", file=err)

    result = run_tune(plan, on_event=event, on_forecast=shown)
    if args.json:
        print(json.dumps(result_json(result), indent=2))
    else:
        print("\n".join(report_lines(result)))
    return int(ExitCode.OK if result.decision.winner else ExitCode.FINDINGS)
