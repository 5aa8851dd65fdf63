"""`workbench batch`: cases x runs x hosts x arms, confined and guarded, with live progress on stderr.

stdout gets one summary line at the end (batch id, runs, invalid, whether it is complete); the
records go to `--record FILE`. Before launch the forecast (runs, tokens, cost, wall time, from earlier
records) goes to stderr; `--json` prints one object (forecast, stop rule, result) instead of the line.
Exit 0 complete, 1 partial (invalid runs, a quota or budget stop), 3 aborted (proof, self-check or
guard), 2 bad input.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeRemainingColumn

from workbench.commands.unconfined import add_flag, warn
from workbench.core.budget import Budget
from workbench.core.decide import Decision
from workbench.core.errors import InputError
from workbench.core.hostinfo import EFFORT_HELP
from workbench.core.models import RunRecord
from workbench.core.summary import decision_text
from workbench.exitcodes import ExitCode

if TYPE_CHECKING:
    from workbench.runner.batch import BatchConfig, BatchResult
    from workbench.runner.doors import BatchForm
    from workbench.runner.executors import ExecutorChoice

def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `batch` subcommand."""
    p = sub.add_parser("batch", help="run cases x runs x hosts x arms, confined, guarded, resumable",
                       description="Run a measured batch: every case, N runs, on each host, for each arm (arms "
                                   "alternate within each slot). One record is appended per run as it ends.")
    p.add_argument("--cases", default="all", metavar="SEL", help="case ids or globs, comma-separated, or all")
    p.add_argument("--hosts", default=None, metavar="H[,H]", help="hosts (default: the workspace's defaults)")
    p.add_argument("--arms", required=True, metavar="A=REF[,B]",
                   help="arms: NAME=REF (a git ref of the plugin repo, or a workspace arm's name) or a "
                        "workspace arm's NAME (`workbench arm list`)")
    p.add_argument("--runs", type=int, default=None, metavar="N", help="runs per case, host and arm (default 1)")
    p.add_argument("--jobs", type=int, default=1, metavar="J", help="runs at once (default 1)")
    p.add_argument("--record", required=True, metavar="FILE", help="records file to append to")
    p.add_argument("--model", help="the model (real hosts: your login; sim: the name it reports)")
    p.add_argument("--effort", help=EFFORT_HELP)
    p.add_argument("--script", metavar="FILE", help="a scripted model instead of a real one (tests, self-checks)")
    p.add_argument("--resume", action="store_true", help="skip runs already recorded (valid ones always)")
    p.add_argument("--retry-invalid", action="store_true", help="with --resume: run invalid runs again")
    add_flag(p)
    p.add_argument("--timeout", type=float, default=600.0, help="seconds per run before it is stopped (600)")
    p.add_argument("--silence-timeout", type=float, default=300.0, help="seconds without output before stop (300)")
    p.add_argument("--guard", action="append", default=[], metavar="PATH", help="another checkout to guard")
    p.add_argument("--home", metavar="DIR", help="the real home to hide and guard (default: $HOME)")
    p.add_argument("--until-decided", action="store_true",
                   help="stop each host/row comparison of the first two arms once the anytime-valid paired test "
                        "decides it (needs --max-runs)")
    p.add_argument("--alpha", type=float, default=None, metavar="A", help="until-decided: error level (0.05)")
    p.add_argument("--max-runs", type=int, default=None, metavar="N", help="until-decided: runs per cell at most")
    p.add_argument("--budget-usd", type=float, default=None, metavar="X",
                   help="stop before the next run would pass X dollars (estimated from earlier records)")
    p.add_argument("--budget-tokens", type=int, default=None, metavar="T",
                   help="stop before the next run would pass T tokens")
    p.add_argument("--force", action="store_true", help="with --budget-usd: run even when the cost is unknown")
    p.add_argument("--control", action="store_true",
                   help="add the no-row control arm: the first arm's commit with every row the positive cases target "
                        "removed (a description emptied to the skill's name), committed on workbench/arm/control")
    p.add_argument("--tier", metavar="NAME",
                   help="a preset of workbench.toml [tiers.NAME] (built in: smoke, decide, publish); options given "
                        "explicitly override it")
    p.add_argument("--executor", choices=("threads", "ray"), default="threads",
                   help="where runs execute: this machine's threads (default) or Ray tasks (extra: workbench[ray])")
    p.add_argument("--address", metavar="ADDR", help="--executor ray: a running Ray cluster (default: a local Ray)")
    p.add_argument("--login-slots", action="append", default=[], metavar="HOST=N",
                   help="--executor ray: runs of HOST at once across the cluster (Ray resource login:HOST)")
    p.add_argument("--infra-retries", type=int, default=0, metavar="N",
                   help="submit a run again up to N times when its worker or node died (each may be re-bought)")
    p.add_argument("--json", action="store_true", help="print the forecast, stop rule and result as JSON")
    p.set_defaults(handler=run)


def shown(path: Path, home: Path) -> str:
    """PATH as printed: relative to the current folder when inside it, else with the home as `~`, so a
    pasted log names neither the user's home nor their user name."""
    cwd = Path.cwd()
    if path.is_relative_to(cwd):
        return str(path.relative_to(cwd))
    for base in (home, Path.home()):
        if path.is_relative_to(base):
            return str(Path("~") / path.relative_to(base))
    return str(path)


def run(args: argparse.Namespace) -> int:
    """Build the batch from the workspace and options, run it with a progress bar, report."""
    from workbench.core.workspace import load_workspace
    from workbench.runner.batch import BatchAborted, run_batch
    from workbench.runner.doors import batch_config
    from workbench.runner.proof import ProofFailed

    ws = load_workspace()
    cfg = batch_config(ws, form_of(args))
    record, home, confinement = cfg.record, cfg.real_home or Path.home(), cfg.confinement
    warn(args, "batch")  # after every input check: bad input stays one line
    console = Console(file=sys.stderr, highlight=False)
    from workbench.runner.preview import batch_forecast, load_history

    history = load_history([record, ws.records_dir])
    outlook = batch_forecast(cfg, history)
    for line in outlook.lines():
        console.print(line, soft_wrap=True, markup=False)
    cfg.budget = budget_of(args, cfg, history, console)
    console.print(f"stop rule: {cfg.stop_rule.text()}", markup=False)
    bar = Progress(TextColumn("[bold]batch[/bold]"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                   TextColumn("{task.fields[info]}"), TimeRemainingColumn(), console=console, transient=False)
    task: TaskID | None = None
    try:
        with bar:
            def started(progress: object) -> None:
                nonlocal task
                from workbench.runner.batch import Progress as Totals

                assert isinstance(progress, Totals)
                task = bar.add_task("batch", total=progress.planned, completed=progress.skipped,
                                    info=f"{progress.skipped} already recorded")

            def finished(outcome: object, progress: object) -> None:
                from workbench.runner.batch import Progress as Totals

                assert isinstance(progress, Totals) and task is not None
                estimate = progress.cost_estimate()
                info = (f"invalid {progress.invalid} · tokens {progress.tokens:,} · ${progress.cost:.2f}"
                        + (f" (est. ${estimate:.2f})" if estimate is not None else ""))
                bar.update(task, completed=progress.skipped + progress.done, info=info)

            result = run_batch(cfg, on_outcome=finished, on_start=started)
    except ProofFailed as exc:
        console.print(f"[red]workbench: batch not started: {exc}[/red]")
        return int(ExitCode.ABORTED)
    except BatchAborted as exc:
        console.print(f"[red]workbench: batch not started: {exc}[/red]")
        return int(ExitCode.ABORTED)
    invalid = sum(not o.record.valid for o in result.outcomes)
    condition = "confined" if confinement is not None else "UNCONFINED"
    state = "complete" if result.complete else "PARTIAL"
    if result.swept:
        console.print(f"workbench: --resume killed {len(result.swept)} leftover process(es) of a dead batch: "
                      + "; ".join(result.swept[:3]), soft_wrap=True, markup=False)
    for label in result.possibly_spent:
        console.print(f"workbench: possibly spent, not recorded (an earlier driver started it): {label}",
                      soft_wrap=True, markup=False)
    for label in result.lost:
        console.print(f"[yellow]workbench: lost to the executor, not recorded (possibly spent; --resume runs it): "
                      f"{label}[/yellow]", soft_wrap=True, markup=False)
    if result.aborted:
        console.print(f"[red]workbench: batch ABORTED: {result.aborted}[/red]", soft_wrap=True)
    if result.quota:
        console.print(f"[yellow]workbench: quota: {result.quota}; stopped launching runs. Later: "
                      f"--resume --retry-invalid[/yellow]")
    if result.budget:
        console.print(f"[yellow]workbench: {result.budget}; stopped launching runs[/yellow]", soft_wrap=True)
    for d in result.decisions.values():
        console.print(f"{d.comparison.host} {d.comparison.target} ({d.comparison.kind}): {decision_line(d, cfg)}",
                      markup=False, soft_wrap=True)
    console.print(f"stopped: {result.stop_reason()}", markup=False, soft_wrap=True)
    line = (f"{result.batch} {state} {condition}: {len(result.outcomes)} run(s), {invalid} invalid, "
            f"{result.skipped} already recorded, {result.planned} planned -> {shown(record, home)}")
    if args.json:
        print(json.dumps({"forecast": dataclasses.asdict(outlook), "stop_rule": cfg.stop_rule.model_dump(),
                          "result": result_json(result, invalid, state), "line": line}, indent=2))
    else:
        print(line)
    if result.aborted:
        return int(ExitCode.ABORTED)
    return int(ExitCode.OK if result.complete else ExitCode.FINDINGS)


def form_of(args: argparse.Namespace) -> BatchForm:
    """The batch door's form from the options (`runner.doors.batch_config` does the rest)."""
    from workbench.runner.doors import BatchForm

    return BatchForm(arms=tuple(a for a in args.arms.split(",") if a.strip()), cases=tuple(args.cases.split(",")),
                     hosts=tuple(h.strip() for h in (args.hosts or "").split(",") if h.strip()), runs=args.runs,
                     jobs=args.jobs, record=Path(args.record), model=args.model, effort=args.effort,
                     script=Path(args.script) if args.script else None, resume=args.resume,
                     retry_invalid=args.retry_invalid, unconfined=args.unconfined, timeout=args.timeout,
                     silence_timeout=args.silence_timeout, guard=tuple(map(Path, args.guard)),
                     home=Path(args.home) if args.home else None, until_decided=args.until_decided,
                     alpha=args.alpha, max_runs=args.max_runs, control=args.control, tier=args.tier,
                     executor=executor_choice(args), infra_retries=args.infra_retries,
                     budget_usd=args.budget_usd, budget_tokens=args.budget_tokens)


def executor_choice(args: argparse.Namespace) -> ExecutorChoice:
    """The executor options; Ray options without `--executor ray`, or Ray not installed, are bad input."""
    import importlib.util

    from workbench.runner.executors import ExecutorChoice, parse_login_slots

    if args.executor != "ray":
        if args.address or args.login_slots:
            raise InputError("--address and --login-slots go with --executor ray", field="--executor")
        return ExecutorChoice()
    if importlib.util.find_spec("ray") is None:
        raise InputError("--executor ray needs the ray extra: pip install 'trigger-workbench[ray]'", field="--executor")
    return ExecutorChoice(kind="ray", address=args.address, login_slots=parse_login_slots(args.login_slots))


def budget_of(args: argparse.Namespace, cfg: BatchConfig, history: list[RunRecord], console: Console) -> Budget | None:
    """The budget from the options; a USD budget whose cost no record knows is refused unless --force."""
    if args.budget_usd is None and args.budget_tokens is None:
        return None
    from workbench.runner.batch import plan, planned_run

    budget = Budget(args.budget_usd, args.budget_tokens, list(history))
    if args.budget_usd is not None:
        unknown = budget.unknown_cost([planned_run(p) for p in plan(cfg)])
        if unknown and not args.force:
            raise InputError(f"--budget-usd cannot be checked: no earlier record knows the cost of "
                             f"{', '.join(unknown)}; pass --force to run with the budget checked only against "
                             "spending seen", field="--budget-usd")
        if unknown:
            console.print(f"[yellow]workbench: the cost of {', '.join(unknown)} is unknown; the USD budget is checked "
                          "only against spending seen[/yellow]", soft_wrap=True)
    return budget


def decision_line(d: Decision, cfg: BatchConfig) -> str:
    """`decided: B better (e = …, after n pairs)` / `undecided: ~k more pairs at the observed rate`."""
    a, b = cfg.compared()
    return decision_text({"better": d.better, "name_a": a.name, "name_b": b.name, "e_value": d.e_value,
                          "pairs": d.pairs, "more_pairs": d.more_pairs})


def result_json(result: BatchResult, invalid: int, state: str) -> dict[str, object]:
    """The batch result as `--json` prints it."""
    return {"batch": result.batch, "state": state, "runs": len(result.outcomes), "invalid": invalid,
            "skipped": result.skipped, "planned": result.planned, "not_needed": result.not_needed,
            "aborted": result.aborted, "quota": result.quota, "budget": result.budget,
            "stop_reason": result.stop_reason(), "executor": result.executor,
            "possibly_spent": result.possibly_spent, "lost": result.lost,
            "decisions": [{"host": d.comparison.host, "target": d.comparison.target, "kind": d.comparison.kind,
                           "pairs": d.pairs, "only_a": d.only_a, "only_b": d.only_b, "e_value": d.e_value,
                           "better": d.better, "more_pairs": d.more_pairs} for d in result.decisions.values()]}
