"""THE run: one RunRequest in, one scored, redacted record out, the same way for every door.

Fixture repo, plugin copy (the arm's commit, or the folder as it is), the host (inside the
request's confinement, or on the live home for a live-install run), the parse (Codex re-parsed
with its rollout; the live view is then reset to those final calls), THE scorer, then one record
built once with every field, redacted by the one walker, and (live-install) the guard's verdict.
Nothing else builds a record.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from workbench import __version__
from workbench.core.effects import Attribution, CallClock, attribute_run
from workbench.core.events import CallFinished, CallsReset, Event, ParsedRun
from workbench.core.fingerprints import Fingerprints, call_evidence, fingerprints_for
from workbench.core.identity import case_digest, env_digest
from workbench.core.models import Call, CallEffect, EntryGate, GuardReport, RunRecord, Score, ScoreSpec, ScriptRef
from workbench.core.offered import row_shown, skill_description
from workbench.core.scoring import SCORER_RULES, score
from workbench.hosts import adapter
from workbench.hosts.base import Launch, login_digests
from workbench.runner.api_bodies import offered_entries, transcript_entries
from workbench.runner.arms import build_copy
from workbench.runner.fixture import make_fixture
from workbench.runner.hostrun import HostRun, run_host
from workbench.runner.procedures import load_procedures
from workbench.runner.process import sweep
from workbench.runner.redact import Redactor, login_secrets
from workbench.runner.request import RunRequest
from workbench.runner.watcher import RepoWatcher

Watched = Literal["watched", "incomplete"]

QUOTA = re.compile(r"quota|rate[ _-]?limit|usage limit|credit balance|resource_exhausted|\b429\b", re.IGNORECASE)
"""An invalid batch run whose error says this hit the account's limits: `quota`, never retried in a loop."""


@dataclass
class RunResult:
    """The record written for a run, the score behind it and the host run (its folder is gone unless kept)."""

    record: RunRecord
    score: Score
    run: HostRun
    run_dir: Path
    seconds: dict[str, float] = field(default_factory=dict)
    """Where the harness spent its time: fixture, arm, host, score, cleanup."""
    attributions: list[Attribution] = field(default_factory=list)
    """Every first change the repo watcher saw, with the call it was given to (bench, tests)."""
    leftovers: list[str] = field(default_factory=list)
    """Processes of the run found alive after it (escaped its process group), killed."""


def entry_skill(plugin: Path, required: Iterable[str]) -> str | None:
    """The plugin skill whose SKILL.md links a required file (the routing row's entry), else the only one."""
    skills = sorted(p.parent for p in plugin.glob("skills/*/SKILL.md"))
    names = [Path(r).name for r in required]
    for skill in skills:
        text = (skill / "SKILL.md").read_text(encoding="utf-8", errors="replace")
        if any(name in text for name in names):
            return skill.name
    return skills[0].name if len(skills) == 1 else None


def entry_description(plugin: Path, skill: str | None) -> str | None:
    """The description SKILL's SKILL.md gives (None: no skill, or none readable)."""
    if skill is None:
        return None
    try:
        return skill_description((plugin / "skills" / skill / "SKILL.md").read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return None


def reached_model(run: HostRun, skill: str | None) -> bool | None:
    """Whether SKILL's row reached the model: the skill listed WITH its description whole
    (`run.entry_description`; a description dropped or clipped for the listing budget did not offer
    the row). Read from the model server's log of scripted requests, or the request bodies a
    real-model run wrote, else what the host's transcript kept of its listing (runner/api_bodies.py);
    what the host loaded but never sent does not count. None: no such log, no skill, or a host that
    listed no skill at all (Grok CLI has no skills: its listing says nothing)."""
    served = [entry for entry in run.offered if entry.get("scripted") or entry.get("source") == "api-body"]
    served = served or [entry for entry in run.offered if entry.get("source") == "transcript"]
    listed = {s for entry in served for s in entry.get("skills", ())} | {
        p for entry in served for p in entry.get("plugins", ())}
    if skill is None or not listed:
        return None
    if not any(skill in (s, s.split(":")[-1]) for s in listed):
        return False
    return any(row_shown(entry.get("rows") or {}, skill, run.entry_description) is not None for entry in served)


def skill_error(calls: Iterable[Call]) -> str | None:
    """The result of the first Skill call that failed, if any."""
    for call in calls:
        if call.kind == "skill" and call.status != "ok":
            return (call.result or call.status)[:300]
    return None


def run_failure(run: HostRun) -> str | None:
    """Why a run with model output still measured nothing reliable: the host died (killed by a signal,
    or its stream never ended) -> `host-crashed`; it ended on an error (API 429/5xx, a stream cut
    short, exit status not 0) -> `host-error`."""
    ended = run.parsed.ended
    if run.exit_code < 0 or ended is None:
        return "host-crashed"
    if ended.is_error or run.exit_code != 0:
        return "host-crashed" if run.exit_code >= 128 and not ended.is_error else "host-error"
    return None


def invalid_reason(request: RunRequest, run: HostRun, changes: list[str], quota: bool,
                   refresh: bool = False) -> str | None:
    """The first gate the run failed, in order of precedence; None when the run measured. QUOTA: the
    run's error or stderr said it hit the account's limits (a batch then says `quota`). REFRESH: it said
    the host could not write its login (a refreshed token into the read-only login: `login-refresh`)."""
    if changes:
        return "guard"
    if run.cancelled:
        return "cancelled"
    reason = ("timeout" if run.timed_out is not None else "no-output" if not run.parsed.model_output
              else run_failure(run))
    if reason is not None and refresh:
        return "login-refresh"
    if reason is not None and request.door == "batch" and quota:
        return "quota"
    return reason


def failed_login_write(run: HostRun, tail: str | None = None) -> bool:
    """The run's error or stderr tail (TAIL: already read) says the host could not write its login file
    (its adapter's words, `HostAdapter.login_write_failed`); read before the run folder goes."""
    ended = run.parsed.ended
    tail = _tail(run.stderr_path) if tail is None else tail
    text = "\n".join(filter(None, [ended.error if ended else None, tail]))
    return adapter(run.host).login_write_failed(text)


def hit_quota(run: HostRun, tail: str | None = None) -> bool:
    """The run's error or the last 2,000 bytes of its stderr tail (TAIL: already read) say it hit the
    account's limits (read before the run folder goes)."""
    ended = run.parsed.ended
    tail = _tail(run.stderr_path) if tail is None else tail
    text = " ".join(filter(None, [ended.error if ended else None, tail[-2000:]]))
    return QUOTA.search(text) is not None


def _tail(path: Path, size: int = 8000) -> str:
    """The last SIZE bytes of PATH, read from there (a long stderr is not read whole)."""
    try:
        with path.open("rb") as f:
            f.seek(max(0, f.seek(0, os.SEEK_END) - size))
            data = f.read()
    except OSError:
        return ""
    return data.decode("utf-8", errors="replace")


def build_record(request: RunRequest, run: HostRun, spec: ScoreSpec, redactor: Redactor,
                 changes: list[str], quota: bool = False, logins: list[str] | None = None,
                 effects_watched: Literal["watched", "incomplete"] | None = None,
                 refresh: bool = False) -> tuple[RunRecord, Score]:
    """THE record builder: the scored, redacted record of one run, every field set once.

    The run's calls already carry their evidence (content per procedure, effects per call: `execute`);
    the record keeps the calls up to the moment, and the read bases and conflicts about those calls,
    so rescoring the record alone gives back every field. LOGINS: the login files whose hash changed
    during the run (the run is then invalid, like a guard change)."""
    case, calls = request.case, run.parsed.calls
    result = score(spec, calls, model_output=run.parsed.model_output)
    logins = logins or []
    reason = invalid_reason(request, run, changes + [f"login file changed: {n}" for n in logins], quota, refresh)
    kept = calls if result.moment_at is None else calls[:result.moment_at + 1]
    read_basis = {k: b for k, b in result.read_basis.items() if (result.reads.get(k) or 0) < len(kept)}
    known = bool(run.offered_skills or run.offered_plugins or run.parsed.init)
    offered = run.skill_offered(spec.entry_skill) if spec.entry_skill and known else None
    row_offered = reached_model(run, spec.entry_skill)
    if reason is None and row_offered is False:
        reason = "not-offered"
    ended = run.parsed.ended
    arm = request.arm
    record = RunRecord(
        condition=request.condition, unconfined_reason=request.unconfined_reason, host=run.host,
        host_version=run.host_version, model=request.recorded_model,
        served_model=run.served_model, effort=request.effort, **run_inputs(request), arm=arm.name if arm else None,
        source=arm.source if arm else None, case_id=case.id, target=case.target, kind=case.kind,
        run=request.identity.run, batch=request.identity.batch, batch_planned=request.identity.planned,
        stop_rule=request.identity.stop_rule,
        moment=case.moment, required=list(case.required), calls=kept, required_read_at=dict(result.reads),
        moment_at=result.moment_at, entry_loaded_at=result.entry_loaded_at, verdict=dict(result.verdicts),
        overall=result.overall, order_basis=result.order_basis, read_basis=read_basis,
        moment_basis=result.moment_basis, fired_by=result.fired_by,
        evidence_conflicts=[c for c in result.conflicts if c.call < len(kept)],
        effects_watched=effects_watched, offered={case.target: row_offered}, valid=reason is None,
        invalid_reason=reason, tool_calls=len(calls),
        failed_calls=[c.index for c in calls if c.status != "ok"], usage=run.parsed.usage,
        started_at=run.started_at, finished_at=run.finished_at, workbench_version=__version__,
        scorer_rules=SCORER_RULES, exit_code=run.exit_code, run_error=ended.error if ended else None,
        entry=EntryGate(skill=spec.entry_skill, file=spec.entry_file, offered=offered,
                        skill_error=skill_error(calls), offered_skills=list(run.offered_skills)),
        guard=GuardReport(changes=changes) if changes else None,
        login_files_changed=logins, env_names=run.launch.env_names(),
    )
    return redactor.record(record), result


def run_inputs(request: RunRequest) -> dict[str, Any]:
    """The record's fields naming what else the run was given that changes how it behaves: the
    script (name and digest), injected faults, the case as run and the arm's environment."""
    script = request.script
    return {"script": ScriptRef(name=script.name, digest=script.digest()) if script is not None else None,
            "faults": [fault_line(f) for f in request.faults], "case_digest": case_digest(request.case),
            "arm_env": env_digest(request.arm.env) if request.arm is not None else None}


def fault_line(fault: Any) -> str:
    """One injected fault as a record names it: `status 529 at every turn, always`."""
    what = {"status": f"status {fault.status}", "delay": f"delay {fault.delay:g}s"}.get(fault.kind, fault.kind)
    when = "every turn" if fault.step is None else f"turn {fault.step}"
    return f"{what} at {when}, " + ("always" if fault.times is None else f"{fault.times} time(s)")


def labels(request: RunRequest, run_dir: Path, plugin: Path) -> dict[str, str]:
    """Path -> label for the run's folders and the homes (each also by its real path)."""
    paths = {str(run_dir / "repo"): "<repo>", str(plugin): "<plugin>", str(run_dir / "home"): "<home>",
             str(run_dir / "outside"): "<outside>", str(run_dir): "<run>", str(Path.home()): "~"}
    for home in (request.real_home, request.confinement.real_home if request.confinement else None,
                 request.live.home if request.live else None):
        if home is not None:
            paths[str(home)] = "~"
    paths.update({os.path.realpath(k): v for k, v in list(paths.items())})
    return paths


def execute(request: RunRequest, on_event: Callable[[Event], None] | None = None,
            on_setup: Callable[[Mapping[str, str]], None] | None = None,
            run_host_fn: Callable[..., HostRun] = run_host) -> RunResult:
    """Run REQUEST once and build its record. `on_setup` gets the path -> label mapping before the host
    starts (a live view shows short paths); `on_event` every parsed event, then `CallsReset` when a
    re-parse (Codex with its rollout) changed the calls. `run_host_fn` stands in for `run_host`
    (the TUI's cancellable batch)."""
    from workbench.runner.guard import Guard, login_files_changed

    prove_first(request)
    guard, before = None, None
    if request.live is not None:
        guard = Guard.for_home(request.live.home, list(request.live.guarded), own=list(request.live.own))
    elif request.guarded:
        guard = Guard.for_home(request.real_home or Path.home(), list(request.guarded), own=list(request.own))
    if guard is not None:
        before = guard.snapshot()
    seconds: dict[str, float] = {}
    t0 = time.perf_counter()
    run_dir = Path(tempfile.mkdtemp(prefix=f"wb-{request.door}-", dir=request.workdir))
    try:
        repo, home, outside = run_dir / "repo", run_dir / "home", run_dir / "outside"
        make_fixture(repo, request.case, request.fixture)
        t1 = time.perf_counter()
        plugin = _plugin(request, run_dir)
        home.mkdir()
        outside.mkdir()
        for rel, text in request.outside_files.items():
            (outside / rel).parent.mkdir(parents=True, exist_ok=True)
            (outside / rel).write_text(text, encoding="utf-8")
        t2 = time.perf_counter()
        paths = labels(request, run_dir, plugin)
        procedures = load_procedures(plugin, check=True)  # a fresh copy: its folder name may be reused
        fingerprints = fingerprints_for(procedures) if procedures else None
        if on_setup is not None:
            on_setup(paths)
        run, watched, attributions = _run(request, run_dir, plugin, on_event, run_host_fn, fingerprints)
        run.offered += offered_entries(run_dir) + transcript_entries(run_dir)
        t3 = time.perf_counter()
        leftovers = [f"leftover process of the run, killed: {d}" for d in sweep(home)]
        logins = login_files_changed(run.launch.login_before)
        leftovers += [f"login file changed: {n}" for n in logins]
        entry = entry_skill(plugin, request.case.required)
        run.entry_description = entry_description(plugin, entry)
        spec = ScoreSpec(kind=request.case.kind, required=request.case.required, moment=request.case.moment,
                         entry_skill=entry, entry_file=f"skills/{entry}/SKILL.md" if entry else None)
        secrets = run_secrets(request, run.launch)
        tail = _tail(run.stderr_path)
        quota, refresh = hit_quota(run, tail), failed_login_write(run, tail)
    finally:
        t4 = time.perf_counter()
        if not request.keep:
            shutil.rmtree(run_dir, ignore_errors=True)
        seconds["cleanup"] = time.perf_counter() - t4
    changes = guard.changes(before) if guard is not None and before is not None else []
    record, result = build_record(request, run, spec, Redactor(paths, secrets), changes, quota, logins, watched,
                                  refresh)
    seconds.update(fixture=t1 - t0, arm=t2 - t1, host=t3 - t2, score=t4 - t3 + time.perf_counter() - t4
                   - seconds["cleanup"])
    return RunResult(record, result, run, run_dir, seconds, attributions, leftovers)


def run_secrets(request: RunRequest, launch: Launch) -> list[str]:
    """Values no record, stream or view may carry: the login files the run was given (a post-install
    run: the live login files), and the launch's secret variables."""
    from workbench.runner.live import live_logins

    logins = [*launch.links.values(), *(live_logins(request.host, request.live.home) if request.live else [])]
    return [*login_secrets(logins), *launch.secret_values()]


def prove_first(request: RunRequest) -> None:
    """A confined canary, self-test or post-install run proves its confinement first, once per session
    and configuration (`prove_cached`); a batch proves its own before its first run. ProofFailed
    names the failed check."""
    if request.confinement is None or request.door == "batch":
        return
    from workbench.hosts.base import clean_env
    from workbench.runner.proof import prove_cached

    args = (request.confinement, Path(request.workdir or tempfile.gettempdir()), clean_env(os.environ))
    if request.cancel is None:
        prove_cached(*args)
        return
    # a cancellable run waits for its proof or its cancel: once cancelled the host is never started
    # (`run_process`), so nothing needs the proof; it ends in its thread (and is cached if it passed)
    done, failed = threading.Event(), []

    def prove() -> None:
        try:
            prove_cached(*args)
        except BaseException as exc:  # handed to the run's thread below
            failed.append(exc)
        finally:
            done.set()

    threading.Thread(target=prove, name="proof", daemon=True).start()
    while not done.wait(0.05):
        if request.cancel.is_set():
            return
    if failed:
        raise failed[0]


def _plugin(request: RunRequest, run_dir: Path) -> Path:
    """The plugin the host gets: the live install's folder as is, else a copy (arm commit or folder)."""
    if request.live is not None:
        return request.plugin
    dest = run_dir / "plugin"
    if request.arm is not None:
        return build_copy(request.arm, dest, request.archive)
    shutil.copytree(request.plugin, dest, ignore=shutil.ignore_patterns(".git"))
    return dest


def with_effects(calls: list[Call], attributions: Iterable[Attribution]) -> list[Call]:
    """CALLS with each attributed first change stored on the call it was given to (`Call.effects`)."""
    given: dict[int, list[CallEffect]] = {}
    for a in attributions:
        e = a.effect
        sha = e.detail if e.kind in ("commit", "merge", "tag", "branch") else None
        given.setdefault(a.call, []).append(CallEffect(path=e.path, kind=e.kind, sha=sha,
                                                       basis=a.basis, others=list(a.others)))
    return [c.model_copy(update={"effects": given[i]}) if i in given else c for i, c in enumerate(calls)]


def _run(request: RunRequest, run_dir: Path, plugin: Path, on_event: Callable[[Event], None] | None,
         run_host_fn: Callable[..., HostRun], fingerprints: Fingerprints | None
         ) -> tuple[HostRun, Watched | None, list[Attribution]]:
    """The host run for the request's door, watched: the repo watcher runs around the host (from
    outside any sandbox), every event is stamped for attribution, each finished call's output is
    matched against the procedures as it arrives (the live view sees the evidence), and the FINAL
    parse (Codex re-parsed with its rollout) gets its content evidence and its effects. The live view
    is reset when those final calls differ from what it was shown."""
    repo = run_dir / "repo"
    prompt = request.case.prompt.replace("{repo}", str(repo))
    kwargs: dict[str, Any] = {}
    if request.live is not None:
        from workbench.runner.live import guarded_logins, live_launch

        home, scripted = request.live.home, request.script is not None
        placeholders = {"repo": str(repo), "home": str(home)}
        conf = request.confinement

        def live_wrap(launch: Launch) -> Launch:
            launch = live_launch(launch, run_dir / "home", home, scripted=scripted)
            launch.login_before = {**launch.login_before, **login_digests(guarded_logins(request.host, home))}
            return conf.wrap(launch, request.host, run_dir, repo) if conf is not None else launch

        kwargs.update(plugin=plugin if request.host == "sim" else None, wrap=live_wrap)
    else:
        placeholders = {"repo": str(repo), "plugin": str(plugin), "home": str(run_dir / "home"),
                        "outside": str(run_dir / "outside")}
        kwargs.update(plugin=plugin, add_dirs=(plugin,))
        conf = request.confinement
        if conf is not None:
            kwargs["wrap"] = lambda launch: conf.wrap(launch, request.host, run_dir, repo)
    if request.arm is not None and request.arm.env:
        kwargs["extra_env"] = dict(request.arm.env)
    if request.faults:
        kwargs["faults"] = list(request.faults)
    if request.cancel is not None:
        kwargs["cancel"] = request.cancel
    if request.silence_timeout is not None:
        kwargs["silence_timeout"] = request.silence_timeout
    if request.binary is not None:
        kwargs["binary"] = request.binary
    live = ParsedRun()  # what a live view folded: the record's parse may differ (Codex's rollout)
    hidden = [Redactor()]  # the launch's login and env secrets, once the launch is built
    inner_wrap: Callable[[Launch], Launch] | None = kwargs.get("wrap")

    def secrets_known(launch: Launch) -> Launch:
        launch = inner_wrap(launch) if inner_wrap is not None else launch
        hidden[0] = Redactor(secrets=run_secrets(request, launch))
        return launch

    kwargs["wrap"] = secrets_known

    def seen(event: Event) -> None:
        if fingerprints is not None and isinstance(event, CallFinished) and event.call.output is not None:
            event = CallFinished(call_evidence(fingerprints, event.call))
        event = hidden[0].event(event)
        live.apply(event)
        assert on_event is not None
        on_event(event)

    if on_event is not None:
        kwargs["on_event"] = seen
    clock = CallClock()
    host = adapter(request.host)
    watcher = RepoWatcher(repo, noise=host.repo_noise).start()
    kwargs.update(on_timed_event=clock.see, before_stamp=watcher.sync)
    try:
        run = run_host_fn(request.host, prompt, repo, run_dir, script=request.script, timeout=request.timeout,
                          model=request.model, placeholders=placeholders, seed=request.identity.seed,
                          effort=request.effort, **kwargs)
    finally:
        effects = watcher.stop()
    calls = run.parsed.calls
    if fingerprints is not None:
        calls = [call_evidence(fingerprints, c) for c in calls]
    timed = attribute_run(calls, effects, clock.spans(), run.asked, host.live_stream)
    attributions = timed or []
    run.parsed.calls = with_effects(calls, attributions)
    if on_event is not None and [hidden[0].call(c) for c in run.parsed.calls] != live.calls:
        on_event(hidden[0].event(CallsReset(tuple(run.parsed.calls))))
    watched: Watched | None = None if timed is None else "incomplete" if watcher.overflowed else "watched"
    return run, watched, attributions
