"""Door forms: what a front end fills in, and the ONE set-up per form that turns it into a run.

The CLI fills a form from its options, the TUI from its widgets; everything between "the user
chose" and `build_request` happens here, once, for every door: arm resolution (`runner/arms.resolve`), the
guarded and ignored files (the records file and its `.torn`), confinement (`confinement_for`),
the script (a bare script or a `canaries/*.json` canary file: `load_script_file`), host, model and
effort checks, the login pre-flight, cancel, and for a batch the early stop and one proof.

    canary_request(ws, CanaryForm)          -> RunRequest
    postinstall_request(ws, PostinstallForm) -> RunRequest
    batch_config(ws, BatchForm)             -> BatchConfig   (checked: `check_plan` ran)

A later door (tune, sessions) copies the shape: a frozen form of plain values, one set-up function
taking (workspace, form), the runner's types out.
"""

from __future__ import annotations

import fnmatch
import json
import threading
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.core.arms import DRAFT, WORKTREE, Arm, parse_arms, split_spec
from workbench.core.errors import InputError
from workbench.core.filesize import MAX_SCRIPT_BYTES, check_size
from workbench.core.hostinfo import NAMES
from workbench.core.models import Case, StopRule
from workbench.modelstub import Script, load_script, parse_script

if TYPE_CHECKING:
    from workbench.core.tiers import Tier
    from workbench.core.workspace import Workspace
    from workbench.runner.batch import BatchConfig
    from workbench.runner.executors import ExecutorChoice
    from workbench.runner.request import RunRequest

__all__ = ["EARLY_STOP", "BatchForm", "CanaryForm", "Draft", "PostinstallForm",
           "ScriptSource", "batch_caps", "batch_config", "can_confine", "canary_record", "canary_request", "carried_case",
           "check_hosts", "check_numbers", "check_workers", "confirm_above", "script_case", "whole_number",
           "load_script_file", "login_problem", "postinstall_case", "postinstall_record", "postinstall_request",
           "select_cases"]

SILENCE_TIMEOUT = 300.0
"""Seconds without host output before a run is stopped: the same on every door."""
EARLY_STOP = 3
"""A batch stops when the first this many runs of a host are all invalid for the same reason."""

ScriptSource = Script | Path | None
"""A scripted model: already parsed (tests, bench), a file (bare script or canary file), or None."""


@dataclass(frozen=True)
class Draft:
    """A row's unsaved wording: the routing file, the row's line in it and the new line's text."""

    row_id: str
    file: Path
    line: int
    text: str


@dataclass(frozen=True)
class CanaryForm:
    """One canary: a case on a host, with the arm under test."""

    case: Case
    host: str
    model: str | None = None
    effort: str | None = None
    script: ScriptSource = None
    arm: str = WORKTREE
    """`@worktree` (the plugin folder as it is), `@draft` (DRAFT applied in the run's copy), a
    workspace arm's NAME or NAME=REF (`workbench arm list`)."""
    draft: Draft | None = None
    plugin: Path | None = None
    """Plugin folder copied into the run (default: the workspace's)."""
    fixture: Path | None = None
    """Content of the throwaway repo (default: the workspace's base fixture)."""
    record: Path | None = None
    """Records file (default: the workspace's records/canary.jsonl)."""
    timeout: float = 300.0
    silence_timeout: float = SILENCE_TIMEOUT
    unconfined: bool = False
    home: Path | None = None
    """The real home (login pre-flight, hidden by the confinement); default $HOME."""
    cancel: threading.Event | None = field(default=None, compare=False)


@dataclass(frozen=True)
class PostinstallForm:
    """One run against the user's live install (real HOME and config)."""

    case: Case | None
    """None: the workspace's post-install canary (`runner.live.DEFAULT_CASE`)."""
    host: str
    model: str | None = None
    effort: str | None = None
    script: ScriptSource = None
    home: Path | None = None
    record: Path | None = None
    """Records file (default: the workspace's records/live-install.jsonl)."""
    binary: Path | None = None
    guard: tuple[Path, ...] = ()
    """Checkouts guarded besides the workspace and its plugin."""
    timeout: float = 600.0
    silence_timeout: float = SILENCE_TIMEOUT
    unconfined: bool = False
    cancel: threading.Event | None = field(default=None, compare=False)


@dataclass(frozen=True)
class BatchForm:
    """A batch: cases x runs x hosts x arms."""

    arms: tuple[str, ...]
    """Arm specs: a workspace arm's NAME or NAME=REF."""
    cases: tuple[str, ...] = ("all",)
    """Case ids, globs or case files (`select_cases`), or `all`."""
    hosts: tuple[str, ...] = ()
    """Default: the tier's, else the workspace's defaults."""
    runs: int | None = None
    jobs: int = 1
    record: Path | None = None
    """Records file (default: the workspace's records/batch.jsonl)."""
    model: str | None = None
    effort: str | None = None
    script: ScriptSource = None
    resume: bool = False
    retry_invalid: bool = False
    unconfined: bool = False
    timeout: float = 600.0
    silence_timeout: float = SILENCE_TIMEOUT
    guard: tuple[Path, ...] = ()
    home: Path | None = None
    until_decided: bool = False
    alpha: float | None = None
    max_runs: int | None = None
    control: bool = False
    tier: str | None = None
    executor: ExecutorChoice | None = None
    infra_retries: int = 0
    budget_usd: float | None = None
    budget_tokens: int | None = None
    """Stop before the next run would pass these (`core.budget`); here only checked against their caps."""
    early_stop: int | None = EARLY_STOP
    """Stop when the first this many runs of a host are all invalid for one reason (None: never)."""
    cancel: threading.Event | None = field(default=None, compare=False)


CONFIRM_PLANNED = 200
"""A batch planning more runs than this asks before it starts (any door that can ask)."""
CONFIRM_COST_USD = 5.0
"""A batch whose forecast costs more than this asks before it starts."""


def batch_caps() -> dict[str, int]:
    """The runner's caps on a batch's numbers (runs per cell, jobs, planned runs: `runner/bounds.py`),
    for a form to show beside its fields and check before planning."""
    from workbench.runner.bounds import MAX_JOBS, MAX_PLANNED, MAX_RUNS

    return {"runs": MAX_RUNS, "jobs": MAX_JOBS, "planned": MAX_PLANNED}


def check_numbers(form: CanaryForm | PostinstallForm | BatchForm) -> None:
    """Every number of FORM within its floor and cap (`runner/bounds.py`), checked first: before a case,
    script, arm or records file is loaded. InputError names the flag and the cap."""
    from workbench.runner.bounds import check_budget, check_count, check_timeouts

    check_timeouts(form.timeout, form.silence_timeout)
    if not isinstance(form, BatchForm):
        return
    if form.runs is not None:
        check_count("--runs", form.runs)
    check_count("--jobs", form.jobs)
    if form.max_runs is not None:
        check_count("--max-runs", form.max_runs)
    check_count("--infra-retries", form.infra_retries, least=0)
    check_budget(form.budget_usd, form.budget_tokens)


def check_workers(workers: int) -> int:
    """The self-test's runs in parallel, from 1 to the jobs cap."""
    from workbench.runner.bounds import check_count

    return check_count("--workers", workers)


def whole_number(raw: str, field: str, cap: int) -> int:
    """RAW as a whole number from 1 to CAP, else InputError naming FIELD (`2.5`, `1e2`, `-1` refused,
    never read as 25 or 12)."""
    text = raw.strip()
    if not text.isascii() or not text.isdigit():
        raise InputError(f"{text!r} is not a whole number (digits only, at least 1)", field=field)
    value = int(text)
    if value < 1:
        raise InputError("must be at least 1", field=field)
    if value > cap:
        raise InputError(f"{value:,} is above the cap of {cap:,}", field=field)
    return value


def confirm_above(planned: int, cost_usd: float | None) -> str | None:
    """Why a plan of PLANNED runs costing COST_USD (None: unknown or free) should be confirmed before
    it starts, or None."""
    reasons = []
    if planned > CONFIRM_PLANNED:
        reasons.append(f"{planned:,} runs (more than {CONFIRM_PLANNED})")
    if cost_usd is not None and cost_usd > CONFIRM_COST_USD:
        reasons.append(f"about ${cost_usd:,.2f} (more than ${CONFIRM_COST_USD:.0f})")
    return " and ".join(reasons) or None


def load_script_file(path: Path | str) -> Script:
    """THE script loader: a bare script (.json/.toml) or a canary file (`{"case": ..., "script": ...}`,
    `canaries/*.json`), whose script it gives."""
    path = Path(path)
    if path.suffix.lower() == ".json":
        data = _script_json(path)
        if isinstance(data, dict) and "script" in data and "steps" not in data:
            return parse_script(data["script"], file=str(path))
    return load_script(path)


SCENARIO_TARGET = "selftest"
"""The target of a case a canary file carries (the self-test's, so its records group as one)."""


def carried_case(data: object, name: str, file: str | None = None) -> Case | None:
    """The case a decoded canary file DATA carries (`{"case": ..., "script": ...}`), its id NAME (the
    file's stem), as the self-test and the canary door run it; None for a bare script."""
    from workbench.core.cases import parse_case

    if not (isinstance(data, dict) and isinstance(data.get("case"), dict) and "script" in data):
        return None
    return parse_case({"id": name, "target": SCENARIO_TARGET, **data["case"]}, file=file)


def script_case(path: Path | str) -> Case | None:
    """The case the script file PATH carries (a `canaries/*.json` scenario), None for a bare script:
    such a script is written for that case (its files, its moment) and runs it unless told otherwise."""
    path = Path(path)
    if path.suffix.lower() != ".json":
        return None
    return carried_case(_script_json(path), path.stem, str(path))


def _script_json(path: Path) -> object:
    """A .json script file decoded; unreadable or invalid JSON is one InputError naming file and line."""
    check_size(path, MAX_SCRIPT_BYTES, "the script", "--script")  # by stat, before a byte is read
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read script: {exc}", file=str(path), field="--script") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON: {exc.msg}", file=str(path), line=exc.lineno, field="--script") from None
    return data


def script_fault(source: ScriptSource) -> str | None:
    """The fault a canary file SOURCE injects (`"fault": "no-output"`: every model request answered with
    an error), as the self-test injects it; None for a bare script or a Script."""
    path = Path(source) if isinstance(source, (str, Path)) else None
    if path is None or path.suffix.lower() != ".json":
        return None
    data = _script_json(path)
    fault = data.get("fault") if isinstance(data, dict) and "script" in data else None
    if fault not in (None, "no-output"):
        raise InputError(f"unknown fault {fault!r} (known: no-output)", file=str(path), field="fault")
    return fault


def script_of(source: ScriptSource) -> Script | None:
    """SOURCE as a Script (a file loaded by `load_script_file`)."""
    if source is None or isinstance(source, Script):
        return source
    return load_script_file(source)


def can_confine() -> bool:
    """Whether runs can be confined here (bubblewrap installed): a form's default."""
    from workbench.runner.confine import bwrap_path

    return bwrap_path() is not None


def check_hosts(hosts: tuple[str, ...] | list[str], field: str = "--host") -> None:
    """InputError naming the first unknown host."""
    for h in hosts:
        if h not in NAMES:
            raise InputError(f"unknown host {h!r}; known: {', '.join(NAMES)}", field=field)


def login_problem(host: str, home: Path) -> str | None:
    """Why HOST cannot run on the user's login: none of its login files is in HOME (None: one is)."""
    from workbench.hosts import adapter

    files = adapter(host).login_files
    if host == "sim" or not files or any((home / f).exists() for f in files):
        return None
    return (f"{host}: no login found (~/{', ~/'.join(files)}): log in with the {host} CLI first, "
            "or pick a script for an offline self-check")


def _check_login(hosts: list[str] | tuple[str, ...], home: Path, script: Script | None,
                 field: str = "--host") -> None:
    """The login pre-flight: a real host with no script needs one of its login files in HOME."""
    if script is not None:
        return
    for host in hosts:
        problem = login_problem(host, home)
        if problem:
            raise InputError(problem, field=field)


def _arm(ws: Workspace, spec: str, draft: Draft | None, plugin: Path) -> Arm | None:
    """The canary's arm: None for @worktree (the plugin folder as it is), the draft, or a resolved arm."""
    from workbench.runner.arms import draft_arm, resolve

    if spec in (WORKTREE, ""):
        return None
    if spec == DRAFT:
        if draft is None:
            raise InputError("no draft to run: edit a row first (Rows, e)", field="arm")
        from workbench.core.wording import replace_line

        edited = replace_line(draft.file.read_text(encoding="utf-8"), draft.line, draft.text)
        return draft_arm(ws, {draft.file: edited})
    return resolve(ws, *split_spec(spec), plugin=plugin, allow_worktree=True)


def _own(record: Path) -> list[Path]:
    """Files the workbench writes meanwhile: the records file and its `.torn` (never a guard change)."""
    return [record, record.with_name(record.name + ".torn")]


def check_offered(ws: Workspace, cases: list[Case], hosts: list[str] | tuple[str, ...], field: str = "--cases") -> None:
    """Refuse a positive case whose row the host would not offer (`core.listing`, the model `audit`
    reports, per plugin, at the host's default context window): one line naming case, row and why.
    A run of a row the model never sees measures nothing; fix the listing or pick another host."""
    from workbench.core.audit import plugin_listings
    from workbench.core.listing import LIMITS, listed_name, not_offered_reason
    from workbench.core.routing import find_row, parse_files

    modelled = [h for h in hosts if h in LIMITS]
    positives = [c for c in cases if c.kind == "positive"]
    if not modelled or not positives or not ws.plugin_dir.is_dir():
        return
    rows = parse_files(ws.routing_files(), plugin=ws.plugin_dir)
    listings = {(x.plugin, x.host): x for x in plugin_listings(ws, rows)[0]}
    for case in positives:
        row = find_row(rows, case.target)
        mine = [row] if row is not None else [r for r in rows if case.target in (r.skill, listed_name(r))]
        for host in modelled:
            for r in mine:
                shown = listings.get((r.plugin, host))
                why = not_offered_reason(r, shown) if shown is not None else None
                if why:
                    raise InputError(f"row {r.id} (case {case.id}) would not be offered: {why}", field=field)


def canary_request(ws: Workspace, form: CanaryForm) -> RunRequest:
    """The canary's RunRequest: every check and choice made here, InputError for bad input."""
    from workbench.runner.guard import checkouts_of
    from workbench.runner.request import build_request

    check_numbers(form)
    check_hosts([form.host])
    plugin = form.plugin or ws.plugin_dir
    if not plugin.is_dir():
        raise InputError(f"plugin folder not found: {plugin}", field="--plugin")
    if form.fixture is not None and not form.fixture.is_dir():
        raise InputError(f"fixture folder not found: {form.fixture}", field="--fixture")
    fixture = form.fixture or ws.base_fixture
    script = script_of(form.script)
    check_offered(ws, [form.case], [form.host], "case")
    arm = _arm(ws, form.arm, form.draft, plugin)
    record = canary_record(ws, form)
    repos = sorted({ws.root, *([arm.repo_root] if arm is not None else [])})
    home = form.home or Path.home()
    req = build_request(form.case, form.host, door="canary", plugin=plugin, arm=arm, model=form.model or None,
                        script=script, effort=form.effort or None, fixture=fixture, timeout=form.timeout,
                        silence_timeout=form.silence_timeout, unconfined=form.unconfined,
                        home=form.home, checkouts=repos, guarded=checkouts_of(repos), own=_own(record),
                        cancel=form.cancel, no_output=script_fault(form.script) == "no-output")
    _check_login([form.host], home, script)
    return req


def canary_record(ws: Workspace, form: CanaryForm) -> Path:
    """Where the canary's record goes."""
    return form.record.resolve() if form.record is not None else ws.records_dir / "canary.jsonl"


def postinstall_case(ws: Workspace, form: PostinstallForm) -> Case:
    """The post-install check's case (the form's, else the workspace's post-install canary)."""
    from workbench.core.cases import find_case
    from workbench.runner.live import DEFAULT_CASE

    return form.case if form.case is not None else find_case(str(ws.root / DEFAULT_CASE), ws.cases_dir)


def postinstall_record(ws: Workspace, form: PostinstallForm) -> Path:
    """Where the post-install record goes."""
    return form.record.resolve() if form.record is not None else ws.records_dir / "live-install.jsonl"


def postinstall_request(ws: Workspace, form: PostinstallForm) -> RunRequest:
    """The post-install RunRequest: the live HOME, the guard over the workspace, its plugin and GUARD."""
    from workbench.runner.request import build_request

    check_numbers(form)
    check_hosts([form.host])
    home = form.home.resolve() if form.home is not None else Path.home()
    record = postinstall_record(ws, form)
    guarded = [ws.root, ws.plugin_dir, *form.guard]
    script = script_of(form.script)
    req = build_request(postinstall_case(ws, form), form.host, door="postinstall", plugin=ws.plugin_dir,
                        model=form.model or None, effort=form.effort or None, script=script,
                        fixture=ws.base_fixture, home=home, guarded=guarded, own=_own(record), checkouts=guarded,
                        binary=form.binary, timeout=form.timeout, silence_timeout=form.silence_timeout,
                        unconfined=form.unconfined, cancel=form.cancel)
    _check_login([form.host], home, script)
    return req


def select_cases(selectors: tuple[str, ...] | list[str], folder: Path) -> list[Case]:
    """Cases by id or glob, `all`, or case files; in the order given, each once."""
    from workbench.core.cases import load_case, load_cases

    available = load_cases(folder) if folder.is_dir() else []
    parts = [s.strip() for s in selectors if s.strip()]
    if parts == ["all"]:
        if not available:
            raise InputError(f"no cases in {folder}", field="--cases")
        return available
    out: list[Case] = []
    for part in parts:
        if part.endswith(".toml") and Path(part).is_file():
            found = [load_case(part)]
        else:
            found = [c for c in available if fnmatch.fnmatchcase(c.id, part)]
        if not found:
            raise InputError(f"no case matches {part!r} in {folder}", field="--cases")
        out += [c for c in found if c.id not in {o.id for o in out}]
    if not out:
        raise InputError("select at least one case", field="--cases")
    return out


def batch_config(ws: Workspace, form: BatchForm) -> BatchConfig:
    """The batch's BatchConfig, checked before anything starts (`check_plan`: binaries, model, moments)."""
    from workbench.runner.arms import resolve
    from workbench.runner.batch import BatchConfig, check_plan
    from workbench.runner.executors import ExecutorChoice
    from workbench.runner.guard import Guard
    from workbench.runner.request import confinement_for

    check_numbers(form)
    tier = _tier(ws, form.tier)
    hosts = list(form.hosts) or list((tier and tier.hosts) or ws.config.defaults.hosts)
    if not hosts:
        raise InputError("name at least one host", field="--hosts")
    check_hosts(hosts, "--hosts")
    if form.retry_invalid and not form.resume:
        raise InputError("--retry-invalid needs --resume", field="--retry-invalid")
    cases = select_cases(form.cases, ws.cases_dir)
    if tier is not None and tier.negatives:
        cases += [c for c in select_cases(("all",), ws.cases_dir) if c.kind == "negative" and c not in cases]
    specs = parse_arms(",".join(form.arms))
    arms = [resolve(ws, n, r) for n, r in specs]
    if form.control:
        arms += control_arms(ws, arms, cases)
    home = form.home.resolve() if form.home is not None else Path.home()
    record = form.record.resolve() if form.record is not None else ws.records_dir / "batch.jsonl"
    guard = Guard.for_home(home, [ws.root, *(a.repo_root for a in arms), *form.guard], own=_own(record))
    confinement = confinement_for("batch", unconfined=form.unconfined, home=home, checkouts=guard.checkouts)
    script = script_of(form.script)
    runs = form.runs if form.runs is not None else (tier.runs if tier else 1)
    cfg = BatchConfig(cases=cases, hosts=hosts, arms=arms, runs=runs,
                      record=record, jobs=form.jobs, model=form.model or None, effort=form.effort or None,
                      resume=form.resume, retry_invalid=form.retry_invalid, confinement=confinement, guard=guard,
                      fixture=ws.base_fixture if ws.base_fixture.is_dir() else None, script=script,
                      timeout=form.timeout, silence_timeout=form.silence_timeout, real_home=home,
                      executor=form.executor or ExecutorChoice(), infra_retries=form.infra_retries,
                      cancel=form.cancel or threading.Event(), early_stop=form.early_stop)
    cfg.stop = stop_rule(form, [n for n, _ in specs], tier)
    if cfg.stop is not None:
        cfg.runs = cfg.stop.max_runs
    check_offered(ws, cases, hosts)
    cfg.binaries = check_plan(cfg)  # a missing host, model or impossible case is named before anything starts
    _check_login(hosts, home, script, "--hosts")
    return cfg


def _tier(ws: Workspace, name: str | None) -> Tier | None:
    """The tier preset NAME (None without one); an unknown name is bad input naming the known ones."""
    if name is None:
        return None
    tiers = ws.config.tiers
    if name not in tiers:
        raise InputError(f"no tier {name!r}; known: {', '.join(tiers)}", field="--tier")
    return tiers[name]


def stop_rule(form: BatchForm, names: list[str], tier: Tier | None = None) -> StopRule | None:
    """The stop rule from the form over the tier: until-decided, or fixed with the tier's name (None:
    fixed runs, no tier)."""
    until = form.until_decided or (tier is not None and tier.until_decided)
    if not until:
        if form.alpha is not None or form.max_runs is not None:
            raise InputError("--alpha and --max-runs go with --until-decided", field="--max-runs")
        if tier is None:
            return None
        runs = form.runs if form.runs is not None else tier.runs
        if tier.min_runs is not None and runs < tier.min_runs:
            raise InputError(f"tier {form.tier} needs at least {tier.min_runs} runs, got --runs {runs}", field="--runs")
        return StopRule(rule="fixed", max_runs=runs, tier=form.tier)
    max_runs = form.max_runs if form.max_runs is not None else (tier.max_runs if tier else None)
    if max_runs is None or max_runs < 1:
        raise InputError("--until-decided needs --max-runs N (at least 1)", field="--max-runs")
    alpha = form.alpha if form.alpha is not None else (tier.alpha if tier else 0.05)
    if not 0 < alpha < 1:
        raise InputError(f"--alpha must be between 0 and 1, got {alpha}", field="--alpha")
    return StopRule(rule="until-decided", max_runs=max_runs, alpha=alpha, compare=names[:2],
                    tier=form.tier if tier else None)


def control_arms(ws: Workspace, arms: list[Arm], cases: list[Case]) -> list[Arm]:
    """The no-row controls: per row the positive cases target, the first arm's commit without that row,
    run only with that row's cases."""
    from workbench.authoring.arms import create_control
    from workbench.core.control import CONTROL
    from workbench.runner.arms import resolve

    if any(a.name == CONTROL for a in arms):
        raise InputError(f"--control adds the arm {CONTROL!r}; another arm has that name", field="--arms")
    base = arms[0]
    if base.sha is None:
        raise InputError("--control needs a committed first arm", field="--control")
    by_target: dict[str, set[str]] = {}
    for c in cases:
        if c.kind == "positive":
            by_target.setdefault(c.target, set()).add(c.id)
    if not by_target:
        raise InputError("--control needs a positive case (its target is the row removed)", field="--control")
    out = []
    for target, ids in by_target.items():
        info = create_control(ws, base.sha, [target])
        out.append(replace(resolve(ws, CONTROL, info.sha or info.ref), cases=frozenset(ids)))
    return out
