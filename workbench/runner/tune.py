"""The tune door: one frozen form, one set-up that does every check before anything runs, and the run.

`tune_setup(workspace, form)` finds the row, its cases and their recorded split, checks hosts, the
proposer and the run budget (all bad input is one InputError, nothing run). `run_tune(plan)` then
makes the candidates (rules, typed wordings, a proposer host), commits each new one as an arm, and
runs ordinary resumable batches (`runner/batch.py`, condition `tune`): selection until decided per
candidate, the held-back cases once for the pick, the negatives on every host. Candidates and
verdicts are remembered in `.workbench/tune/<row>.toml` of the workspace.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, MutableMapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

import tomlkit

from workbench.authoring.tomledit import editing, table, update
from workbench.core import tune
from workbench.core.errors import InputError
from workbench.core.forecast import Forecast, PlannedRun, forecast
from workbench.core.hostinfo import NAMES
from workbench.core.locate import parse_toml
from workbench.core.models import Case, RunRecord, StopRule
from workbench.core.routing import Row, find_row, slug, unknown_row_message
from workbench.core.summary import is_hit, overall
from workbench.core.workspace import Workspace
from workbench.modelstub import Script


@dataclass(frozen=True)
class TuneForm:
    """What the user chose (CLI or TUI)."""

    row: str
    hosts: tuple[str, ...] = ()
    proposer: str = "rules"
    wordings: tuple[str, ...] = ()
    budget_runs: int | None = None
    max_runs: int = 20
    holdout_runs: int = 16
    negative_runs: int = 2
    alpha: float = 0.05
    model: str | None = None
    effort: str | None = None
    """The reasoning effort of every measured run (None: each host's own default)."""
    script: Path | None = None
    proposer_script: Path | None = None
    record: Path | None = None
    jobs: int = 1
    unconfined: bool = False
    home: Path | None = None
    binaries: Mapping[str, Path] = field(default_factory=lambda: MappingProxyType({}))
    workdir: Path | None = None
    seed: int = 0


@dataclass
class Memory:
    """The workspace's tune memory of one row: the split and every candidate tried."""

    path: Path
    split: tune.Split | None = None
    candidates: list[dict[str, str]] = field(default_factory=list)

    def tried(self) -> dict[str, str]:
        return {c["key"]: c["status"] for c in self.candidates}

    def arm_of(self, key: str) -> str | None:
        return next((c["arm"] for c in self.candidates if c["key"] == key and c.get("arm")), None)

    def put(self, cand: tune.Candidate, status: str, reason: str = "") -> None:
        key = tune.wording_key(cand.text)
        entry = {"key": key, "text": cand.text, "trigger": cand.trigger, "source": cand.source,
                 "arm": cand.arm or "", "status": status, "reason": reason}
        self.candidates = [c for c in self.candidates if c["key"] != key] + [entry]

    def save(self) -> None:
        """Write the split and the candidates through tomlkit: what the user wrote in the file stays."""
        with editing(self.path) as doc:
            if self.split is not None:
                _put(doc, "split", {"seed": self.split.seed, "selection": list(self.split.selection),
                                    "holdout": list(self.split.holdout), "negatives": list(self.split.negatives)})
            if not self.candidates and "candidates" not in doc:
                return
            tables = doc.setdefault("candidates", tomlkit.aot())
            wanted = {c["key"]: c for c in self.candidates}
            for i in reversed(range(len(tables))):
                if tables[i].get("key") not in wanted:
                    del tables[i]
            have = {t.get("key"): t for t in tables}
            for key, c in wanted.items():
                if key in have:
                    update(have[key], c)
                else:
                    if len(tables) and not tables[-1].as_string().endswith("\n\n"):
                        tables[-1].add(tomlkit.nl())  # a blank line between the last one and the new one
                    tables.append(table(c))


def _put(doc: MutableMapping[str, Any], name: str, values: Mapping[str, object]) -> None:
    """Table NAME of DOC holds VALUES: a new table, or the existing one with only what differs changed."""
    if name in doc:
        update(doc[name], values)
    else:
        doc[name] = table(values)


def load_memory(path: Path) -> Memory:
    """The memory file at PATH (empty when absent); a broken one is bad input naming it."""
    if not path.is_file():
        return Memory(path)
    data = parse_toml(path.read_text(encoding="utf-8"), file=str(path))
    try:
        s = data.get("split")
        split = tune.Split(tuple(s["selection"]), tuple(s["holdout"]), tuple(s["negatives"]), int(s["seed"])) \
            if s else None
        return Memory(path, split, [{k: str(v) for k, v in c.items()} for c in data.get("candidates", [])])
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise InputError(f"tune memory is unreadable: {exc}", file=str(path), field="candidates") from None


@dataclass
class TunePlan:
    """Everything `run_tune` needs, checked."""

    ws: Workspace
    form: TuneForm
    row: Row
    rows: list[Row]
    file_text: str
    hosts: list[str]
    selection: list[Case]
    holdout: list[Case]
    negatives: list[Case]
    memory: Memory
    record: Path
    min_runs: int
    proposer_host: str | None
    proposer_model: str | None


@dataclass(frozen=True)
class Tally:
    """Valid runs and hits so far of one stage's batch: the current text vs one candidate."""

    hits_current: int = 0
    runs_current: int = 0
    hits_candidate: int = 0
    runs_candidate: int = 0

    def text(self) -> str:
        return f"{self.hits_candidate}/{self.runs_candidate} vs current {self.hits_current}/{self.runs_current}"


@dataclass(frozen=True)
class TuneEvent:
    """What the tune is doing, for a progress bar or a log line; a screen also gets the candidates
    (stage `candidates`), each run's tally of its stage (`arm`, `tally`) and each selection verdict."""

    stage: str
    message: str
    runs: int
    total: int
    arm: str | None = None
    tally: Tally | None = None
    candidates: tuple[tune.Candidate, ...] = ()
    verdict: tune.Verdict | None = None


@dataclass
class TuneResult:
    """The end of a tune: the candidates, the decision, the forecast, the runs used."""

    candidates: list[tune.Candidate]
    decision: tune.Decision
    forecast: Forecast
    runs: int
    record: Path
    split: tune.Split
    winner_trigger: str | None = None
    alpha: float = 0.05


def parse_proposer(spec: str) -> tuple[str | None, str | None]:
    """`rules` -> (None, None); `HOST[:MODEL]` -> (HOST, MODEL)."""
    if spec == "rules":
        return None, None
    host, _, model = spec.partition(":")
    if host not in NAMES:
        raise InputError(f"proposer {spec!r}: use rules or HOST[:MODEL] with a host of {', '.join(NAMES)}",
                         field="--proposer")
    return host, model or None


def tune_setup(ws: Workspace, form: TuneForm) -> TunePlan:
    """Every check of a tune before anything runs (one InputError each): the row, its cases, hosts, model,
    the effort (every host must take it, as every door checks it), the proposer host (installed, logged
    in), the budget and the held-back size."""
    from workbench.authoring.arms import head_rows, open_repo
    from workbench.core.cases import load_cases
    from workbench.hosts import adapter
    from workbench.hosts.install import require_binary
    from workbench.runner.doors import login_problem
    from workbench.runner.request import check_effort

    rows, texts = head_rows(ws, open_repo(ws.plugin_dir))
    row = find_row(rows, form.row)
    if row is None or row.file is None:
        raise InputError(unknown_row_message(rows, form.row), field="ROW")
    if row.kind == "description":
        raise InputError(f"row {row.id} is a description; tune rewrites table, list and prose rows", field="ROW")
    cases = load_cases(ws.cases_dir) if ws.cases_dir.is_dir() else []
    positives = tune.row_positives(row, rows, cases)
    if not positives:
        raise InputError(f"row {row.id} has no cases: add positives with `workbench case new --row {row.id}`",
                         field="ROW")
    if len(positives) < 2:
        raise InputError(f"row {row.id} has 1 positive case ({positives[0].id}); tune needs at least 2 (selection "
                         "and held-back): add one with `workbench case new`", field="ROW")
    hosts = list(form.hosts) or list(ws.config.defaults.hosts)
    for h in hosts:
        if h not in NAMES:
            raise InputError(f"unknown host {h!r}; known: {', '.join(NAMES)}", field="--hosts")
        check_effort(h, form.effort)
        if h not in form.binaries and adapter(h).default_binary() is None:
            require_binary(h)
    if form.script is None and form.model is None and any(h != "sim" for h in hosts):
        raise InputError("real hosts need --model (your login) or --script", field="--model")
    p_host, p_model = parse_proposer(form.proposer)
    if p_host is not None:
        if p_host not in form.binaries and adapter(p_host).default_binary() is None:
            require_binary(p_host)
        if form.proposer_script is None:
            problem = login_problem(p_host, form.home or Path.home())
            if problem:
                raise InputError(f"proposer {problem}", field="--proposer")
            if p_host != "sim" and p_model is None:
                raise InputError(f"proposer {p_host} needs a model: --proposer {p_host}:MODEL", field="--proposer")
    if not 0 < form.alpha < 1:
        raise InputError(f"--alpha must be between 0 and 1, got {form.alpha}", field="--alpha")
    negatives = tune.negatives_for(row, rows, cases)
    memory = load_memory(ws.root / ".workbench" / "tune" / f"{slug(row.id)}.toml")
    split = tune.split_cases(row, positives, negatives, seed=form.seed, recorded=memory.split)
    memory.split = split
    by_id = {c.id: c for c in [*positives, *negatives]}
    holdout = [by_id[i] for i in split.holdout]
    for flag, runs, n in (("--max-runs", form.max_runs, len(split.selection)),
                          ("--holdout-runs", form.holdout_runs, len(holdout)),
                          ("--negative-runs", form.negative_runs, len(negatives))):
        _check_stage(flag, runs, form.jobs, n, len(hosts))
    if form.holdout_runs * len(holdout) < tune.min_confirm(form.alpha):
        raise InputError(f"--holdout-runs {form.holdout_runs} x {len(holdout)} held-back case(s) can never confirm "
                         f"at alpha {form.alpha} (needs {tune.min_confirm(form.alpha)} pairs)", field="--holdout-runs")
    selection_cells = form.max_runs * len(split.selection)
    if selection_cells < tune.min_pairs(form.alpha):
        raise InputError(f"--max-runs {form.max_runs} x {len(split.selection)} selection case(s) can never decide "
                         f"at alpha {form.alpha} (needs {tune.min_pairs(form.alpha)} pairs)", field="--max-runs")
    proposer_runs = 1 if p_host is not None else 0
    fixed = 2 * len(hosts) * (form.holdout_runs * len(holdout) + form.negative_runs * len(negatives))
    min_runs = proposer_runs + fixed + 2 * len(hosts) * tune.min_pairs(form.alpha)
    if form.budget_runs is not None and form.budget_runs < min_runs:
        raise InputError(f"--budget-runs {form.budget_runs} is too small to decide: at least {min_runs} runs "
                         f"(selection >= 2 x {tune.min_pairs(form.alpha)} per host, held-back and negatives "
                         f"{fixed})", field="--budget-runs")
    record = form.record or ws.records_dir / f"tune-{slug(row.id)}.jsonl"
    return TunePlan(ws, form, row, rows, texts[row.file], hosts, [by_id[i] for i in split.selection], holdout,
                    negatives, memory, record.resolve(), min_runs, p_host, p_model)


def _check_stage(flag: str, runs: int, jobs: int, cases: int, hosts: int) -> None:
    """One stage's batch (current text vs one candidate) within the runner's caps (`runner/bounds.py`, as
    every batch is planned), checked before anything runs; the error names the tune's own flag."""
    from workbench.runner.bounds import check_batch

    try:
        check_batch(runs=runs, jobs=jobs, cases=cases, hosts=hosts, arms=2)
    except InputError as exc:
        raise InputError(exc.message.replace("--runs", flag), field=flag if exc.field == "--runs" else exc.field) \
            from None


PROPOSER_PROMPT = """You improve one routing row of a coding-agent plugin. The agent must read the linked
procedure BEFORE the action the row governs. The row now reads:

{row}

The action its cases measure: {action}. Lint says: {lint}.
Propose up to 3 new triggers (the first cell) that name that action as a before-clause.
Answer with one line per proposal, exactly `TRIGGER: <text>`, and nothing else."""


def propose(plan: TunePlan, confinement: object) -> list[tune.Candidate]:
    """Ask the proposer host (its CLI, the user's login or the scripted model server) for triggers."""
    from workbench.core.lint import lint_rows, moment_action
    from workbench.modelstub import load_script
    from workbench.runner.arms import resolve
    from workbench.runner.execute import execute
    from workbench.runner.request import build_request

    assert plan.proposer_host is not None
    findings = [f.message for f in lint_rows([plan.row])] or ["no findings"]
    action = moment_action(plan.selection[0].moment)
    case = Case(id="tune-proposer", target=plan.row.id, kind="negative", required=[], moment="end",
                prompt=PROPOSER_PROMPT.format(row=plan.row.text, action=action, lint="; ".join(findings)))
    form = plan.form
    request = build_request(case, plan.proposer_host, door="canary", plugin=plan.ws.plugin_dir,
                            arm=resolve(plan.ws, "baseline", "HEAD"), model=plan.proposer_model,
                            script=load_script(form.proposer_script) if form.proposer_script else None,
                            unconfined=form.unconfined, home=form.home, timeout=300.0,
                            binary=form.binaries.get(plan.proposer_host), workdir=form.workdir)
    del confinement
    result = execute(request)
    texts = [*result.run.parsed.texts, *([result.run.parsed.ended.text] if result.run.parsed.ended
                                         and result.run.parsed.ended.text else [])]
    out: dict[str, tune.Candidate] = {}
    for text in texts:
        for line in text.splitlines():
            head, sep, rest = line.strip().strip("`*-> ").partition("TRIGGER:")
            if sep and not head.strip() and rest.strip():
                trigger = rest.strip().strip("`\"'")
                cand = tune.Candidate(tune.with_trigger(plan.row, plan.row.text, trigger), trigger, "proposer",
                                      note=f"proposed by {plan.form.proposer}")
                out.setdefault(tune.wording_key(cand.text), cand)
    return list(out.values())


def candidates_of(plan: TunePlan, confinement: object, *, ask_proposer: bool = True) -> list[tune.Candidate]:
    """Rules, typed wordings and the proposer's (unless not ASK_PROPOSER: a preview runs nothing),
    screened (duplicates, rejected before, lint errors)."""
    found = tune.rule_candidates(plan.row, plan.rows, [*plan.selection, *plan.holdout]) \
        if plan.proposer_host is None else []
    for w in plan.form.wordings:
        text = w if w.lstrip().startswith("|") or "](" in w else tune.with_trigger(plan.row, plan.row.text, w)
        found.append(tune.Candidate(text, w if text != w else w, "author"))
    if plan.proposer_host is not None and ask_proposer:
        found += propose(plan, confinement)
    out = []
    for c in tune.screen(found, plan.row.text, plan.memory.tried()):
        if c.status == "new":
            problems = tune.lint_problems(plan.file_text, plan.row, c.text, plan.ws.plugin_dir,
                                          plan.ws.config.audit.max_row_chars)
            if problems:
                c = replace(c, status="lint", note="; ".join(problems))
        out.append(c)
    return out


PROPOSALS = 3
"""The proposer is asked for at most this many triggers (the preview's forecast counts them all)."""


def planned_runs(plan: TunePlan, arms: int) -> list[PlannedRun]:
    """The most runs a tune of ARMS new candidates can launch: selection to its maximum per candidate,
    then (when there is a candidate) the held-back cases and the negatives once."""
    form, hosts = plan.form, plan.hosts
    planned = [PlannedRun(h, _model(form, h), c.id) for _ in range(arms) for c in plan.selection for h in hosts
               for _ in range(2 * form.max_runs)]
    if arms:
        planned += [PlannedRun(h, _model(form, h), c.id) for c in plan.holdout for h in hosts
                    for _ in range(2 * form.holdout_runs)]
        planned += [PlannedRun(h, _model(form, h), c.id) for c in plan.negatives for h in hosts
                    for _ in range(2 * form.negative_runs)]
    return planned


def tune_forecast(plan: TunePlan, arms: int) -> Forecast:
    """The forecast (an upper bound) of a tune of ARMS candidates, from the workspace's earlier records."""
    from workbench.runner.preview import load_history

    return forecast(planned_runs(plan, arms), load_history([plan.record, plan.ws.records_dir]))


def preview(plan: TunePlan) -> tuple[list[tune.Candidate], Forecast]:
    """What a tune of PLAN would try and cost, before anything runs: the rule and typed candidates,
    screened (a proposer's are not asked for: its `PROPOSALS` are counted in the forecast)."""
    candidates = candidates_of(plan, None, ask_proposer=False)
    new = sum(c.status == "new" for c in candidates) + (PROPOSALS if plan.proposer_host is not None else 0)
    return candidates, tune_forecast(plan, new)


def run_tune(plan: TunePlan, on_event: Callable[[TuneEvent], None] | None = None,
             on_forecast: Callable[[Forecast], None] | None = None,
             cancel: threading.Event | None = None) -> TuneResult:
    """Propose, commit arms, select until decided, confirm once on held-back, check negatives, decide."""
    from workbench.authoring.arms import create_arm
    from workbench.core.arms import Arm
    from workbench.core.records import load_file
    from workbench.runner.arms import resolve
    from workbench.runner.batch import BatchAborted, BatchConfig, RunOutcome, run_batch
    from workbench.runner.guard import Guard
    from workbench.runner.request import confinement_for

    form, ws = plan.form, plan.ws
    home = form.home or Path.home()
    record = plan.record
    guard = Guard.for_home(home, [ws.root], own=[record, record.with_name(record.name + ".torn")])
    confinement = confinement_for("tune", unconfined=form.unconfined, home=home, checkouts=guard.checkouts)
    spent = 1 if plan.proposer_host is not None else 0
    candidates = candidates_of(plan, confinement)
    new = [c for c in candidates if c.status == "new"]
    arms: list[tuple[tune.Candidate, Arm]] = []
    taken = {c.get("arm") for c in plan.memory.candidates}
    for c in new:
        name = plan.memory.arm_of(tune.wording_key(c.text))
        if name is None:
            i = 1
            while f"tune-{slug(plan.row.id.split('/')[-1])}-{i}" in taken:
                i += 1
            name = f"tune-{slug(plan.row.id.split('/')[-1])}-{i}"
            taken.add(name)
            create_arm(ws, plan.row.id, name, text=c.text, force=True)
        c2 = replace(c, arm=name)
        plan.memory.put(c2, "pending")
        arms.append((c2, resolve(ws, name)))
    plan.memory.save()
    candidates = [next((a for a, _ in arms if a.text == c.text), c) for c in candidates]
    base = resolve(ws, "baseline", "HEAD")
    k = max(1, len(arms))
    alpha_sel = form.alpha / k
    hosts = plan.hosts

    def cfg(cases: list[Case], arm: Arm, runs: int, stop: StopRule) -> BatchConfig:
        return BatchConfig(cases=cases, hosts=hosts, arms=[base, arm], runs=runs, record=record, jobs=form.jobs,
                           model=form.model, effort=form.effort, resume=True, confinement=confinement, guard=guard,
                           fixture=ws.base_fixture if ws.base_fixture.is_dir() else None,
                           script=_script(form.script), real_home=home, stop=stop, door="tune",
                           binaries=dict(form.binaries), workdir=form.workdir)

    sel_rule = StopRule(rule="until-decided", max_runs=form.max_runs, alpha=alpha_sel)
    outlook = tune_forecast(plan, len(arms))
    if on_forecast is not None:
        on_forecast(outlook)
    total = spent + outlook.runs
    if on_event is not None:
        on_event(TuneEvent("candidates", f"{len(arms)} new candidate(s) of {len(candidates)}", spent, total,
                           candidates=tuple(candidates)))
    budget_stop: str | None = None
    reserve = 2 * len(hosts) * (form.holdout_runs * len(plan.holdout) + form.negative_runs * len(plan.negatives))
    limit = form.budget_runs

    def run_stage(stage: str, config: BatchConfig, allowance: int | None) -> None:
        nonlocal spent, budget_stop
        stop = threading.Event()
        config.cancel = stop
        start = spent
        candidate = config.arms[-1].name
        tally = Tally()

        def done(outcome: RunOutcome, progress: object) -> None:
            nonlocal spent, tally
            spent += 1
            r = outcome.record
            if r.valid:
                hit = int(is_hit(r.kind, overall(r)))
                tally = replace(tally, hits_candidate=tally.hits_candidate + hit,
                                runs_candidate=tally.runs_candidate + 1) if outcome.planned.arm.name == candidate \
                    else replace(tally, hits_current=tally.hits_current + hit, runs_current=tally.runs_current + 1)
            if on_event is not None:
                p = outcome.planned
                on_event(TuneEvent(stage, p.key.label(p.arm.name), spent, total, arm=candidate, tally=tally))
            if (allowance is not None and spent - start >= allowance) or (cancel is not None and cancel.is_set()):
                stop.set()

        result = run_batch(config, on_outcome=done)
        if result.aborted:
            raise BatchAborted(f"tune stopped: {result.aborted}")
        if result.cancelled and cancel is not None and cancel.is_set():
            budget_stop = "cancelled"
        elif result.cancelled:
            budget_stop = f"--budget-runs {limit} reached"

    def records() -> list[RunRecord]:
        """The records this tune decides on: its effort's only (a file may hold a tune at another effort)."""
        kept = load_file(record).records if record.is_file() else []
        return [r for r in kept if (r.effort or None) == form.effort]

    verdicts: list[tune.Verdict] = []
    for c, arm in arms:
        if budget_stop:
            break
        allowance = None if limit is None else max(0, limit - spent - reserve)
        if allowance == 0:
            budget_stop = f"--budget-runs {limit} reached"
            break
        if on_event is not None:
            on_event(TuneEvent("selection", f"{arm.name}: {c.trigger}", spent, total))
        run_stage("selection", cfg(plan.selection, arm, form.max_runs,
                                   sel_rule.model_copy(update={"compare": [base.name, arm.name]})), allowance)
        verdicts.append(tune.selection_verdict(arm.name, c.trigger, records(), base.key, arm.key,
                                               [x.id for x in plan.selection], hosts, alpha_sel))
        if on_event is not None:
            on_event(TuneEvent("verdict", verdicts[-1].reason, spent, total, arm=arm.name, verdict=verdicts[-1]))
    best = tune.pick(verdicts)
    holdout = negatives = None
    if best is not None and not budget_stop:
        arm = next(a for c, a in arms if a.name == best.arm)
        if on_event is not None:
            on_event(TuneEvent("held-back", f"{arm.name}: once, {form.holdout_runs} run(s) per case", spent, total))
        run_stage("held-back", cfg(plan.holdout, arm, form.holdout_runs,
                                   StopRule(rule="fixed", max_runs=form.holdout_runs)), None)
        recs = records()
        holdout = {h: tune.paired_counts(recs, [x.id for x in plan.holdout], base.key, arm.key, h)
                   for h in hosts}
        if plan.negatives and all(p.only_b > p.only_a and tune.confirm_p(p) <= form.alpha for p in holdout.values()):
            if on_event is not None:
                on_event(TuneEvent("negatives", f"{arm.name}: {len(plan.negatives)} negative(s)", spent, total))
            run_stage("negatives", cfg(plan.negatives, arm, form.negative_runs,
                                       StopRule(rule="fixed", max_runs=form.negative_runs)), None)
            recs = records()
            negatives = {h: tune.paired_counts(recs, [x.id for x in plan.negatives], base.key, arm.key, h)
                         for h in hosts}
        elif not plan.negatives:
            negatives = {}
    decision = tune.decide(verdicts, holdout, negatives, form.alpha, budget_stop=budget_stop)
    by_arm = {v.arm: v for v in verdicts}
    for c, _ in arms:
        if c.arm == decision.winner:
            plan.memory.put(c, "winner", decision.reason)
        elif c.arm in by_arm and not budget_stop:
            plan.memory.put(c, "rejected", by_arm[c.arm].reason if c.arm != decision.picked else decision.reason)
    plan.memory.save()
    trigger = next((c.trigger for c, _ in arms if c.arm == decision.winner), None)
    if on_event is not None:
        on_event(TuneEvent("decided", decision.reason, spent, spent))
    return TuneResult(candidates, decision, outlook, spent, record, plan.memory.split or tune.Split((), (), ()),
                      trigger, form.alpha)


def _script(path: Path | None) -> Script | None:
    from workbench.modelstub import load_script

    return load_script(path) if path else None


def _model(form: TuneForm, host: str) -> str | None:
    if form.script is not None:
        return "scripted"
    return form.model or ("sim-policy" if host == "sim" else None)


def result_json(result: TuneResult) -> dict[str, object]:
    """The tune's answer as `--json` prints it (and the TUI shows it)."""
    d = result.decision

    def paired(p: tune.Paired) -> dict[str, object]:
        return {"pairs": p.pairs, "only_current": p.only_a, "only_candidate": p.only_b,
                "hits_current": p.hits_a, "hits_candidate": p.hits_b}

    verdicts = {v.arm: v for v in d.verdicts}
    return {
        "winner": {"arm": d.winner, "trigger": result.winner_trigger} if d.winner else None,
        "decision": d.reason,
        "holdout": None if not d.holdout else {
            "arm": d.picked, "cases": list(result.split.holdout),
            "hosts": {h: {**paired(p), "p": round(d.holdout_p.get(h, 1.0), 6)} for h, p in d.holdout.items()},
            "confirmed": d.winner is not None or (bool(d.holdout_p) and all(
                d.holdout[h].only_b > d.holdout[h].only_a and v <= result.alpha for h, v in d.holdout_p.items()))},
        "negatives": {h: paired(p) for h, p in d.negatives.items()},
        "gap_points": d.gap,
        "split": {"selection": sorted(result.split.selection), "holdout": sorted(result.split.holdout),
                  "negatives": sorted(result.split.negatives)},  # a set of cases: the same whichever door wrote it
        "candidates": [{"trigger": c.trigger, "text": c.text, "source": c.source, "status": c.status,
                        "note": c.note, "arm": c.arm,
                        "selection": None if c.arm not in verdicts else {
                            "decided": verdicts[c.arm].decided, "reason": verdicts[c.arm].reason,
                            "e": verdicts[c.arm].e_values,
                            "hosts": {h: paired(p) for h, p in verdicts[c.arm].selection.items()}}}
                       for c in result.candidates],
        "runs": result.runs,
        "record": str(result.record),
    }


def report_lines(result: TuneResult) -> list[str]:
    """The tune's report section: candidates, decisions, the selection−holdout gap (markdown)."""
    d = result.decision
    verdicts = {v.arm: v for v in d.verdicts}
    out = ["## Tune", "", "| Candidate | Source | Arm | Status | Selection |", "| --- | --- | --- | --- | --- |"]
    for c in result.candidates:
        v = verdicts.get(c.arm or "")
        sel = v.reason if v else (c.note or "-")
        out.append(f"| {c.trigger} | {c.source} | {c.arm or '-'} | {c.status} | {sel} |")
    out += ["", f"Decision: {d.reason}"]
    if d.holdout:
        for h, p in d.holdout.items():
            out.append(f"Held-back ({h}): candidate {p.hits_b}/{p.pairs} vs current {p.hits_a}/{p.pairs}, "
                       f"p = {d.holdout_p.get(h, 1.0):.3g}")
    if d.gap is not None:
        out.append(f"Selection − held-back gap: {d.gap:+.1f} points")
    out.append(f"Runs: {result.runs}")
    return out
