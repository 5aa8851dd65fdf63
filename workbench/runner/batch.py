"""A batch: cases x runs x hosts x arms, confined, guarded, J at once, one record appended per run.

Order: for each (case, run) slot and host, the arms run side by side and their order alternates
from slot to slot, so a rate limit or a slow hour hits every arm alike. Before the first run:
the confinement proof (same wrapper as the runs) and the self-checks (the guard sees a new ignored
file; a failed setup leaves nothing behind). After every run: the guard; any change outside the
run aborts the batch, names the run and keeps the records already written. A run's key is
(host, model, effort, arm source, case, run index) and every other input that changes how the run
behaves (confinement, the script's digest, the case's digest, the arm's environment): `resume`
skips keys already recorded valid, and invalid ones unless `retry_invalid`. Every record carries
the batch id (a hash of the plan) and the planned count, so a partial batch is visible from the
records alone.

Runs execute on an executor (`runner/executors.py`: this machine's threads, or Ray tasks); the
driver alone guards and appends, once per (batch id, key). Before each run is submitted it is
written to the started-journal (`runner/journal.py`); on `--resume`, a run started but never
recorded is reported as possibly spent. An infrastructure failure (a Ray worker or node died) is
never recorded; the driver submits the run again up to `infra_retries` times, else reports it.

Stop rules (`core.models.StopRule`, written into every record): `fixed` runs every planned run;
`until-decided` plans `max_runs` per cell run by run (run 0 of every case, then run 1, ...) and
drops the runs of each (host, target) comparison of the rule's two arms once the anytime-valid paired
test (`core.decide`) decides it. A budget (`core.budget`) stops launching before the next run would
pass it. Runs already in flight always finish and are recorded whole.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from workbench.core.arms import Arm
from workbench.core.budget import Budget
from workbench.core.decide import Comparison, Decision, decisions
from workbench.core.forecast import PlannedRun
from workbench.core.identity import UNKNOWN, case_digest, env_digest
from workbench.core.models import Case, GuardReport, RunRecord, StopRule
from workbench.core.records import Loaded, append_record, load_file
from workbench.hosts.base import clean_env
from workbench.modelstub import Script
from workbench.runner.arms import archive
from workbench.runner.confine import Confinement
from workbench.runner.executors import Executor, ExecutorChoice, Finished, Job, make_executor
from workbench.runner.guard import Guard, Snapshot
from workbench.runner.hostrun import HostRun, run_host
from workbench.runner.journal import journal_path, note_started, started
from workbench.runner.process import claim, sweep_dead_batches
from workbench.runner.proof import CheckResult, prove
from workbench.runner.request import Door, RunIdentity, RunRequest, build_request, condition_of


@dataclass(frozen=True, order=True)
class RunKey:
    """What makes two runs the same measurement: every input that changes how the run behaves."""

    host: str
    model: str
    effort: str
    arm: str
    """The arm's source (its sha, a draft's content hash, or its name for a worktree arm)."""
    case: str
    run: int
    condition: str = ""
    """The condition records of this run say (confined, unconfined, tune): the sandbox changes what a run can do."""
    script: str = ""
    """The script's digest ('' without one; `unknown` in a record from before scripts were recorded)."""
    case_digest: str = ""
    """The case as run (an edited case under the same id is another measurement)."""
    arm_env: str = ""
    """The arm's environment digest ('' without one): an env-only arm beside its base is another arm."""

    @classmethod
    def of(cls, r: RunRecord) -> RunKey:
        script = "" if r.script is None else r.script.digest or UNKNOWN
        return cls(r.host, r.model or "", r.effort or "", r.source or r.arm or "", r.case_id or "", r.run,
                   r.condition, script, r.case_digest or UNKNOWN, r.arm_env or "")

    def label(self, arm_name: str | None = None) -> str:
        return f"{self.host} {arm_name or self.arm[:12]} {self.case} #{self.run}"


@dataclass(frozen=True)
class Planned:
    """One run of the plan."""

    key: RunKey
    case: Case
    arm: Arm
    slot: int


@dataclass
class BatchConfig:
    """Everything a batch needs; `confinement` None means unconfined (recorded so)."""

    cases: list[Case]
    hosts: list[str]
    arms: list[Arm]
    runs: int
    record: Path
    jobs: int = 1
    model: str | None = None
    effort: str | None = None
    resume: bool = False
    retry_invalid: bool = False
    confinement: Confinement | None = None
    guard: Guard = field(default_factory=Guard)
    fixture: Path | None = None
    script: Script | None = None
    """A scripted model (real hosts: the model server; sim: executed itself) instead of a real model."""
    timeout: float = 600.0
    silence_timeout: float | None = 300.0
    binaries: dict[str, Path] = field(default_factory=dict)
    workdir: Path | None = None
    """Where run folders are made (default: the system temp folder)."""
    real_home: Path | None = None
    """The real home hidden and guarded (default: the confinement's, else $HOME); records name it `~`."""
    stop: StopRule | None = None
    """The stop rule (None: fixed, `runs` runs); until-decided plans `runs` as its max_runs."""
    budget: Budget | None = None
    executor: ExecutorChoice = field(default_factory=ExecutorChoice)
    """Where runs execute: threads (default) or Ray (`runner/ray_executor.py`)."""
    cancel: threading.Event | None = None
    """Set it to stop the batch: no run is launched after, runs in flight are cancelled (Ray: killed)."""
    door: Door = "batch"
    """The door the runs come through (`tune`: records say condition `tune`)."""
    infra_retries: int = 0
    """Times the driver submits a run again whose worker or node died (each may be a re-purchase)."""
    early_stop: int | None = None
    """Stop (cancel) the batch when the first this many runs of a host are all invalid for one reason."""

    @property
    def stop_rule(self) -> StopRule:
        rule = self.stop or StopRule(rule="fixed", max_runs=self.runs)
        if self.budget is not None and self.budget.active:
            rule = rule.model_copy(update={"budget_usd": self.budget.usd, "budget_tokens": self.budget.tokens})
        return rule

    @property
    def until_decided(self) -> bool:
        return self.stop is not None and self.stop.rule == "until-decided"

    def compared(self) -> tuple[Arm, Arm]:
        """The two arms an until-decided rule compares (its `compare` names, else the first two)."""
        names = self.stop.compare if self.stop is not None and self.stop.compare else [a.name for a in self.arms[:2]]
        by_name = {a.name: a for a in self.arms}
        return by_name[names[0]], by_name[names[1]]


@dataclass
class RunOutcome:
    """One finished run: its record and where the harness spent its time."""

    planned: Planned
    record: RunRecord
    seconds: dict[str, float]
    leftovers: list[str] = field(default_factory=list)
    """Processes of the run found alive after it (escaped its process group); the guard treats them as escapes."""


@dataclass
class Progress:
    """Running totals shown while a batch runs."""

    planned: int
    skipped: int = 0
    done: int = 0
    invalid: int = 0
    tokens: int = 0
    cost: float = 0.0

    def add(self, record: RunRecord) -> None:
        self.done += 1
        self.invalid += not record.valid
        self.tokens += (record.usage.input_tokens or 0) + (record.usage.output_tokens or 0)
        self.cost += record.usage.cost_usd or 0.0

    def cost_estimate(self) -> float | None:
        """Cost of the whole batch at the mean cost per run so far."""
        return None if self.done == 0 or not self.cost else self.cost / self.done * (self.planned - self.skipped)


@dataclass
class BatchResult:
    """How the batch ended: complete, aborted by the guard, stopped by a quota error, or failed."""

    batch: str
    planned: int
    skipped: int
    outcomes: list[RunOutcome] = field(default_factory=list)
    aborted: str | None = None
    quota: str | None = None
    write_failed: bool = False
    """A record could not be appended (disk full): the batch aborted; later outcomes are not recorded."""
    swept: list[str] = field(default_factory=list)
    """Processes of a dead earlier batch killed on `--resume` (`process.sweep_dead_batches`)."""
    budget: str | None = None
    """Why a budget stopped the batch (None: no budget stop)."""
    stop_rule: StopRule | None = None
    decisions: dict[Comparison, Decision] = field(default_factory=dict)
    """until-decided: every comparison as it stood at the end."""
    not_needed: int = 0
    """until-decided: planned runs left out because their comparison was decided."""
    possibly_spent: list[str] = field(default_factory=list)
    """Runs the started-journal says an earlier driver launched that were never recorded (labels)."""
    lost: list[str] = field(default_factory=list)
    """Runs of this batch lost to an infrastructure failure and not recorded (`--resume` runs them)."""
    executor: str = "threads"
    cancelled: bool = False
    stopped_early: str | None = None
    """Why the batch stopped itself: the first runs of a host all invalid for one reason (`early_stop`)."""

    @property
    def complete(self) -> bool:
        return (self.aborted is None and self.quota is None and self.budget is None and not self.lost
                and not self.cancelled and all(o.record.valid for o in self.outcomes))

    def stop_reason(self) -> str:
        """Why the batch ended, one line."""
        if self.aborted:
            return f"aborted: {self.aborted}"
        if self.stopped_early:
            return self.stopped_early
        if self.quota:
            return f"quota: {self.quota}"
        if self.budget:
            return self.budget
        if self.stop_rule is not None and self.stop_rule.rule == "until-decided":
            undecided = [d for d in self.decisions.values() if not d.decided]
            if not undecided:
                return f"until-decided: every comparison decided ({self.not_needed} planned run(s) not needed)"
            return (f"until-decided: {len(self.decisions) - len(undecided)} of {len(self.decisions)} comparison(s) "
                    f"decided, the rest ran to {self.stop_rule.max_runs} run(s)")
        return "fixed: every planned run"


class BatchAborted(RuntimeError):
    """The guard saw a change outside the run: the batch stopped; records written so far stay."""


def plan(cfg: BatchConfig) -> list[Planned]:
    """Every run, slot by slot; within a slot the arm order alternates (A,B then B,A ...). Fixed: case
    by case; until-decided: run by run, so every comparison gains a pair per round and can stop early.
    InputError, before anything is planned, for numbers above their caps (`runner/bounds.py`)."""
    from workbench.runner.bounds import check_batch

    check_batch(runs=cfg.runs, jobs=cfg.jobs, cases=len(cfg.cases), hosts=len(cfg.hosts), arms=len(cfg.arms),
                runs_flag="--max-runs" if cfg.until_decided else "--runs")
    out: list[Planned] = []
    slot = 0
    cells = ([(case, run) for run in range(cfg.runs) for case in cfg.cases] if cfg.until_decided
             else [(case, run) for case in cfg.cases for run in range(cfg.runs)])
    for case, run in cells:
        for host in cfg.hosts:
            mine = [a for a in cfg.arms if a.cases is None or case.id in a.cases]
            arms = mine if slot % 2 == 0 else list(reversed(mine))
            for arm in arms:
                key = RunKey(host, _model(cfg, host), cfg.effort or "", arm.source or arm.name, case.id, run,
                             condition_of(cfg.door, cfg.confinement),
                             cfg.script.digest() if cfg.script is not None else "", case_digest(case),
                             env_digest(arm.env) or "")
                out.append(Planned(key, case, arm, slot))
            slot += 1
    return out


def comparison_of(p: Planned) -> Comparison:
    """The (host, target, kind) comparison a planned run belongs to."""
    return Comparison(p.key.host, p.case.target, p.case.kind)


def planned_run(p: Planned) -> PlannedRun:
    """What the forecast and the budget need to know of a planned run."""
    return PlannedRun(p.key.host, p.key.model or None, p.case.id)


def _model(cfg: BatchConfig, host: str) -> str:
    """The model recorded for HOST: the real model, `scripted`, or the sim's policy name."""
    if cfg.script is not None:
        return "scripted"
    return cfg.model or ("sim-policy" if host == "sim" else "")


def batch_id(items: Sequence[Planned]) -> str:
    """A stable id of the plan: the same plan (a resume) gets the same id."""
    h = hashlib.sha256()
    for p in sorted(i.key for i in items):
        h.update(repr(p).encode())
    return "b-" + h.hexdigest()[:12]


def repair_tail(path: Path) -> bytes:
    """Cut a torn last line (a crash mid-write) off the records file, keeping it in FILE.torn; return it."""
    if not path.is_file() or path.stat().st_size == 0:
        return b""
    with path.open("rb+") as fh:
        data = fh.read()
        if data.endswith(b"\n"):
            return b""
        cut = data.rfind(b"\n") + 1
        torn = data[cut:]
        with path.with_name(path.name + ".torn").open("ab") as keep:
            keep.write(torn + b"\n")
        fh.truncate(cut)
        fh.flush()
        os.fsync(fh.fileno())
    return torn


def todo(items: Sequence[Planned], loaded: Loaded, *, resume: bool, retry_invalid: bool) -> list[Planned]:
    """The planned runs still to do given what the records file holds."""
    valid = {RunKey.of(r) for r in loaded.records if r.valid}
    invalid = {RunKey.of(r) for r in loaded.records if not r.valid}
    recorded = valid | invalid
    if not resume:
        clash = [p for p in items if p.key in recorded]
        if clash:
            from workbench.core.errors import InputError

            raise InputError(f"{len(clash)} planned runs are already recorded (e.g. {clash[0].key.label()}); "
                             "use --resume to skip them", field="--record")
        return list(items)
    return [p for p in items if p.key not in valid and (retry_invalid or p.key not in invalid)]


@contextlib.contextmanager
def run_folder(root: Path, prefix: str = "run-") -> Iterator[Path]:
    """A fresh folder for one run under ROOT, removed (links included) however the run ends."""
    path = Path(tempfile.mkdtemp(prefix=prefix, dir=root))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def self_check_cleanup(root: Path) -> None:
    """A setup that fails after making files and a link must leave nothing under ROOT."""
    before = set(root.iterdir())
    with contextlib.suppress(RuntimeError), run_folder(root, "selfcheck-") as path:
        (path / "home").mkdir()
        (path / "home" / "login").symlink_to(root)
        raise RuntimeError("injected setup failure")
    left = set(root.iterdir()) - before
    if left:
        raise BatchAborted(f"self-check failed: a failed setup left {sorted(map(str, left))}")


def self_check_guard(root: Path) -> None:
    """The guard must see a new IGNORED file in a checkout."""
    import git

    repo_dir = root / "guard-selfcheck"
    repo = git.Repo.init(repo_dir, initial_branch="main")
    (repo_dir / ".gitignore").write_text("*.log\n", encoding="utf-8")
    repo.index.add([".gitignore"])
    actor = git.Actor("workbench", "workbench@localhost")
    repo.index.commit("guard self-check", author=actor, committer=actor)
    guard = Guard([repo_dir])
    before = guard.snapshot()
    (repo_dir / "new.log").write_text("x", encoding="utf-8")
    seen = guard.changes(before)
    shutil.rmtree(repo_dir, ignore_errors=True)
    if not seen:
        raise BatchAborted("self-check failed: the guard did not see a new ignored file")


def request_for(p: Planned, cfg: BatchConfig, root: Path, tars: dict[str, bytes], batch: str,
                planned: int) -> RunRequest:
    """The planned run as a RunRequest, through the one builder every door uses."""
    return build_request(
        p.case, p.key.host, door=cfg.door, plugin=p.arm.repo_root / p.arm.subdir, arm=p.arm, model=cfg.model,
        effort=cfg.effort, script=cfg.script, fixture=cfg.fixture, unconfined=cfg.confinement is None,
        confinement=cfg.confinement, home=cfg.real_home,
        identity=RunIdentity(batch=batch, planned=planned, run=p.key.run, seed=p.key.run, stop_rule=cfg.stop_rule),
        timeout=cfg.timeout,
        silence_timeout=cfg.silence_timeout, binary=cfg.binaries.get(p.key.host), workdir=root,
        archive=tars.get(p.arm.sha or ""), cancel=cfg.cancel)


def check_plan(cfg: BatchConfig) -> dict[str, Path]:
    """The pre-flight checks of every batch door, before anything starts: each host installed (its
    binary, returned), a model or script for real hosts, and every case's moment possible in its fixture."""
    from workbench.core.errors import InputError
    from workbench.hosts import adapter
    from workbench.hosts.install import require_binary
    from workbench.runner.bounds import check_batch
    from workbench.runner.fixture import check_possible
    from workbench.runner.request import check_effort

    check_batch(runs=cfg.runs, jobs=cfg.jobs, cases=len(cfg.cases), hosts=len(cfg.hosts), arms=len(cfg.arms),
                runs_flag="--max-runs" if cfg.until_decided else "--runs")
    if cfg.until_decided:
        if len(cfg.arms) < 2:
            raise InputError("--until-decided compares two arms; give --arms A=REF,B=REF", field="--arms")
        if len({x.name for x in cfg.arms}) < len(cfg.arms):
            raise InputError("--until-decided with one control arm per row: run one row (--cases) at a time",
                             field="--control")
        a, b = cfg.compared()
        if (a.sha or a.name) == (b.sha or b.name):
            raise InputError(f"arms {a.name} and {b.name} are the same commit; nothing to decide", field="--arms")
    binaries = {h: cfg.binaries.get(h) or adapter(h).default_binary() or require_binary(h) for h in cfg.hosts}
    for host in cfg.hosts:
        check_effort(host, cfg.effort)
    if cfg.script is None and cfg.model is None and any(h != "sim" for h in cfg.hosts):
        raise InputError("real hosts need --model (your login) or --script", field="--model")
    for case in cfg.cases:
        try:
            check_possible(case)
        except InputError as err:
            raise InputError(f"case {case.id}: {err.message}", field=err.field) from None
    return binaries


def preflight(cfg: BatchConfig, root: Path) -> list[CheckResult]:
    """The proof (confined batches: its checks returned) and the self-checks; any failure raises before
    the first run."""
    checks: list[CheckResult] = []
    if cfg.confinement is not None:
        with run_folder(root, "proof-") as rd:
            checks = prove(cfg.confinement, rd, clean_env(os.environ))
    self_check_guard(root)
    self_check_cleanup(root)
    return checks


def run_batch(cfg: BatchConfig, on_outcome: Callable[[RunOutcome, Progress], None] | None = None,
              on_start: Callable[[Progress], None] | None = None,
              run_host_fn: Callable[..., HostRun] = run_host,
              on_proof: Callable[[list[CheckResult]], None] | None = None) -> BatchResult:
    """Run the batch; records are appended as runs end. Raises ProofFailed / BatchAborted before any run
    when the proof or a self-check fails; a guard trip during the batch ends it with `aborted` set.
    ON_PROOF sees the proof's checks (none when unconfined), once per batch."""
    items = plan(cfg)
    bid = batch_id(items)
    cfg.record.parent.mkdir(parents=True, exist_ok=True)
    repair_tail(cfg.record)
    loaded = load_file(cfg.record) if cfg.record.is_file() else Loaded()
    pending = todo(items, loaded, resume=cfg.resume, retry_invalid=cfg.retry_invalid)
    result = BatchResult(bid, len(items), len(items) - len(pending), stop_rule=cfg.stop_rule)
    keys = {p.key for p in items}
    mine = [r for r in loaded.records if RunKey.of(r) in keys]
    pending = _still_needed(cfg, pending, mine, result)
    progress = Progress(len(items), skipped=result.skipped)
    journal = journal_path(cfg.record)
    recorded = {RunKey.of(r) for r in mine if r.batch == bid}
    by_key = {p.key: p for p in items}
    for key in started(journal, bid):
        with contextlib.suppress(TypeError):
            k = RunKey(**key)
            if k not in recorded and k in by_key:
                result.possibly_spent.append(k.label(by_key[k].arm.name))
    own = os.path.realpath(journal)
    if Path(own) not in cfg.guard.own:
        cfg.guard.own.append(Path(own))
    if cfg.resume:  # a batch killed with -9 may have left host processes and its scratch folder
        result.swept = sweep_dead_batches(Path(cfg.workdir or tempfile.gettempdir()))
    root = Path(tempfile.mkdtemp(prefix="wb-batch-", dir=cfg.workdir))
    owner = claim(root)
    try:
        checks = preflight(cfg, root)
        if on_proof is not None:
            on_proof(checks)
        if on_start is not None:
            on_start(progress)
        tars = {a.sha: archive(a) for a in cfg.arms if a.sha}
        before = cfg.guard.snapshot()
        executor = make_executor(cfg.executor, cfg.jobs, cfg.hosts, run_host_fn, root)
        result.executor = executor.kind
        try:
            _loop(cfg, executor, pending, root, tars, bid, len(items), before, result, progress, on_outcome, mine)
        except BaseException:
            executor.cancel()  # Ctrl-C, the TUI's abort, a crash: nothing keeps running remotely
            raise
        finally:
            executor.close()
    finally:
        os.close(owner)
        shutil.rmtree(root, ignore_errors=True)
    _still_needed(cfg, [], mine, result)
    return result


def _still_needed(cfg: BatchConfig, pending: list[Planned], records: list[RunRecord],
                  result: BatchResult) -> list[Planned]:
    """PENDING without the runs of comparisons the batch's RECORDS already decide (until-decided);
    updates the result's decisions and its count of runs not needed."""
    if not cfg.until_decided:
        return pending
    a, b = cfg.compared()
    result.decisions = decisions(records, cfg.stop_rule, a.sha or a.name, b.sha or b.name)
    done = {k for k, d in result.decisions.items() if d.decided}
    kept = [p for p in pending if comparison_of(p) not in done]
    result.not_needed += len(pending) - len(kept)
    return kept


def _loop(cfg: BatchConfig, executor: Executor, pending: list[Planned], root: Path, tars: dict[str, bytes], bid: str,
          planned: int, before: Snapshot, result: BatchResult, progress: Progress,
          on_outcome: Callable[[RunOutcome, Progress], None] | None, mine: list[RunRecord]) -> None:
    """Keep J runs going; after each: guard, append, progress, the stop rule; stop launching on a guard
    trip, a quota error, a budget or the cancel event. MINE (the batch's records) grows as runs are recorded."""
    queue: list[Job] = [Job(p, request_for(p, cfg, root, tars, bid, planned)) for p in reversed(pending)]
    spent: list[RunRecord] = []
    appended: set[tuple[RunKey, str]] = set()
    """(key, arm name): two arms on one commit (an env-only arm beside its base) share a key."""
    journal = journal_path(cfg.record)
    poll = None if cfg.cancel is None and executor.kind == "threads" else 0.2
    watch = EarlyStop(cfg.early_stop) if cfg.early_stop else None
    while queue or executor.running():
        if cfg.cancel is not None and cfg.cancel.is_set():
            result.cancelled = True
            queue.clear()
            if executor.kind != "threads":  # thread runs stop through the TUI's run_host_fn
                executor.cancel()
        while (queue and len(executor.running()) < max(1, cfg.jobs) and result.aborted is None
               and result.quota is None and not result.cancelled):
            if cfg.budget is not None and cfg.budget.active:
                nxt = queue[-1].planned
                reason = cfg.budget.stop_reason(spent, [planned_run(j.planned) for j in executor.running()],
                                                planned_run(nxt), nxt.key.label(nxt.arm.name))
                if reason is not None:
                    result.budget = reason
                    queue.clear()
                    break
            job = queue.pop()
            note_started(journal, bid, asdict(job.planned.key), executor.kind, job.attempt)
            executor.submit(job)
        if not executor.running():
            break
        for fin in executor.wait(poll):
            p = fin.job.planned
            if fin.record is None:
                _failed(cfg, fin, queue, result)
                continue
            if (p.key, p.arm.name) in appended:  # exactly once per (batch, key, arm), whatever the executor says
                continue
            if fin.record.invalid_reason == "cancelled" and cfg.cancel is not None and cfg.cancel.is_set():
                continue  # a half run of a cancelled batch is never recorded
            outcome = RunOutcome(p, fin.record.model_copy(update={"executor": fin.executor}), fin.seconds,
                                 fin.leftovers)
            record = outcome.record
            t = time.perf_counter()
            changes = outcome.leftovers + cfg.guard.changes(before)
            outcome.seconds["guard"] = time.perf_counter() - t
            if changes:  # seen only here, after the run: across runs in flight
                record = record.model_copy(update={"valid": False, "invalid_reason": "guard",
                                                   "guard": GuardReport(changes=changes)})
                others = ", ".join(j.planned.key.label(j.planned.arm.name) for j in executor.running())
                result.aborted = result.aborted or (f"the guard saw a change after run {p.key.label(p.arm.name)}"
                                  + (f" (also running: {others})" if others else "") + ": "
                                  + "; ".join(changes[:5]))
            elif record.invalid_reason == "quota" and result.quota is None:
                result.quota = f"{p.key.label(p.arm.name)}: the host reported a quota or rate limit"
            outcome.record = record
            if not _append(cfg.record, record, result):
                continue
            appended.add((p.key, p.arm.name))
            result.outcomes.append(outcome)
            progress.add(record)
            spent.append(record)
            mine.append(record)
            if cfg.budget is not None:
                cfg.budget.history.append(record)
            if cfg.until_decided:
                still = {q.key for q in _still_needed(cfg, [j.planned for j in reversed(queue)], mine, result)}
                queue = [j for j in queue if j.planned.key in still]
            if on_outcome is not None:
                on_outcome(outcome, progress)
            _early_stop(cfg, record, watch, result)
        if result.aborted is not None or result.quota is not None:
            queue.clear()


@dataclass
class EarlyStop:
    """Says stop when the first N runs of a host are all invalid for one reason: the login, the host or
    the plan is broken, and every later run would be too (a valid run among them: never)."""

    n: int
    first: dict[str, list[RunRecord]] = field(default_factory=dict)

    def watch(self, record: RunRecord) -> str | None:
        """Why the batch stops after RECORD (None: it goes on)."""
        seen = self.first.setdefault(record.host, [])
        if len(seen) >= self.n:
            return None
        seen.append(record)
        reasons = {" · ".join(p for p in (r.invalid_reason or "invalid", r.run_error) if p)[:200] for r in seen}
        if len(seen) == self.n and not any(r.valid for r in seen) and len(reasons) == 1:
            return f"stopped early: the first {self.n} runs on {record.host} were all invalid: {reasons.pop()}"
        return None


def _early_stop(cfg: BatchConfig, record: RunRecord, watch: EarlyStop | None, result: BatchResult) -> None:
    """Cancel the batch when WATCH says so (`EarlyStop`); the reason goes into the result."""
    why = watch.watch(record) if watch is not None else None
    if why is None or result.stopped_early:
        return
    result.stopped_early = why
    if cfg.cancel is None:
        cfg.cancel = threading.Event()
    cfg.cancel.set()


def _failed(cfg: BatchConfig, fin: Finished, queue: list[Job], result: BatchResult) -> None:
    """A run lost to the infrastructure: abort on a failed proof, else submit it again (infra_retries)
    or report it lost. Nothing is recorded for it: it may have been spent."""
    p = fin.job.planned
    label = p.key.label(p.arm.name)
    if fin.fatal:
        result.aborted = result.aborted or f"{label}: {fin.failure}"
        return
    if result.cancelled:
        return
    if fin.job.attempt < cfg.infra_retries:
        queue.append(Job(p, fin.job.request, fin.job.attempt + 1))
        return
    result.lost.append(f"{label}: {fin.failure}")


def _append(path: Path, record: RunRecord, result: BatchResult) -> bool:
    """Append RECORD unless an earlier append failed; a failure (disk full) aborts the batch, named."""
    if result.write_failed:
        return False
    try:
        append_record(path, record)
    except OSError as exc:
        result.write_failed = True
        why = os.strerror(exc.errno) if exc.errno else str(exc)
        result.aborted = (f"cannot append to {path}: {why}; stopped after {len(result.outcomes)} recorded run(s), "
                          "no torn line. Free space, then --resume")
        return False
    return True

