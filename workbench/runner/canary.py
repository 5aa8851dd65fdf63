"""One canary: one case, one host, one fresh throwaway repo, scored into one anonymized RunRecord.

The run is set up the way a batch run is (fixture repo, a copy of the plugin given to the host the
way it loads skills: `run_host(plugin=...)`), streamed live to a callback, then scored by THE
scorer. The record carries the validity gates: host version, served model, whether
the entry skill was offered, a Skill load error, no model output, timeout.
"""

from __future__ import annotations

import shutil
import tempfile
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench import __version__
from workbench.core.errors import InputError
from workbench.core.events import Event
from workbench.core.models import Call, Case, RunRecord, Score, ScoreSpec
from workbench.core.scoring import SCORER_RULES, score
from workbench.modelstub import Fault, Script
from workbench.runner.arms import Arm, build_copy
from workbench.runner.fixture import make_fixture
from workbench.runner.hostrun import HostRun, run_host


@dataclass
class CanaryRequest:
    """Everything one canary run needs besides the case."""

    host: str
    plugin: Path
    fixture: Path | None = None
    script: Script | None = None
    model: str | None = None
    arm: str | None = None
    faults: tuple[Fault, ...] = ()
    no_output_fault: bool = False
    """Make the model produce nothing: sim's provider fault, or 529 on every request for real hosts."""
    timeout: float = 300.0
    silence_timeout: float | None = None
    outside_files: Mapping[str, str] = field(default_factory=dict)
    """Files written under `{outside}` (a folder no host is allowed to read)."""
    binary: Path | None = None
    keep: bool = False
    cancel: threading.Event | None = None
    """Set it to stop the run (its process group); the record is then invalid `cancelled`."""
    arm_from: Arm | None = None
    """The arm under test: the plugin copy is built from its commit (not copied from `plugin`), the
    record keeps its sha as `source`, and the host gets its env. `@worktree` arms copy the folder."""


@dataclass
class CanaryResult:
    """The record written, the score behind it and the host run (its run dir is gone unless kept)."""

    record: RunRecord
    score: Score
    run: HostRun
    run_dir: Path


def entry_skill(plugin: Path, required: Iterable[str]) -> str | None:
    """The plugin skill whose SKILL.md links a required file (the routing row's entry), else the only one."""
    skills = sorted(p.parent for p in plugin.glob("skills/*/SKILL.md"))
    names = [Path(r).name for r in required]
    for skill in skills:
        text = (skill / "SKILL.md").read_text(encoding="utf-8", errors="replace")
        if any(name in text for name in names):
            return skill.name
    return skills[0].name if len(skills) == 1 else None


def anonymizer(mapping: Mapping[str, str]) -> Callable[[Any], Any]:
    """A function replacing each path of MAPPING (longest first) by its label in any nested value."""
    pairs = sorted(((k, v) for k, v in mapping.items() if k), key=lambda kv: -len(kv[0]))

    def clean(value: Any) -> Any:
        if isinstance(value, str):
            for path, label in pairs:
                value = value.replace(path, label)
            return value
        if isinstance(value, list):
            return [clean(v) for v in value]
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items()}
        return value

    return clean


def skill_error(calls: Iterable[Call]) -> str | None:
    """The result of the first Skill call that failed, if any."""
    for call in calls:
        if call.kind == "skill" and call.status != "ok":
            return (call.result or call.status)[:300]
    return None


def run_failure(run: HostRun) -> str | None:
    """Why a run with model output still measured nothing reliable: the host died (killed by a signal,
    or its stream never ended) -> `host-crashed`; it ended on an error (API 429/5xx, a stream cut
    short, exit status not 0) -> `host-error`. A batch renames a quota error `quota`."""
    ended = run.parsed.ended
    if run.exit_code < 0 or ended is None:
        return "host-crashed"
    if ended.is_error or run.exit_code != 0:
        return "host-crashed" if run.exit_code >= 128 and not ended.is_error else "host-error"
    return None


def build_record(case: Case, req: CanaryRequest, run: HostRun, result: Score, entry: str | None,
                 paths: Mapping[str, str]) -> RunRecord:
    """The anonymized record of one scored run, with its validity gates."""
    calls = run.parsed.calls
    valid, reason = True, None
    if run.timed_out is not None:
        valid, reason = False, "timeout"
    if not run.parsed.model_output:
        valid, reason = False, reason or "no-output"
    failure = run_failure(run)
    if failure is not None:
        valid, reason = False, reason or failure
    kept = calls if result.moment_at is None else calls[:result.moment_at + 1]
    clean = anonymizer(paths)
    offered = (run.skill_offered(entry) if entry else None) if (run.offered_skills or run.offered_plugins
                                                                or run.parsed.init) else None
    record = RunRecord(
        condition="canary", host=run.host, host_version=run.host_version,
        model=req.model or ("scripted" if req.script is not None else None), served_model=run.served_model,
        arm=req.arm, source=req.arm_from.sha if req.arm_from else None,
        case_id=case.id, target=case.target, kind=case.kind, moment=case.moment,
        required=list(case.required), calls=[Call.model_validate(clean(c.model_dump())) for c in kept],
        required_read_at=dict(result.reads), moment_at=result.moment_at,
        entry_loaded_at=result.entry_loaded_at, verdict=dict(result.verdicts), overall=result.overall, valid=valid,
        invalid_reason=reason, tool_calls=len(calls), failed_calls=[c.index for c in calls if c.status != "ok"],
        usage=run.parsed.usage, started_at=run.started_at, finished_at=run.finished_at,
        workbench_version=__version__, scorer_rules=SCORER_RULES,
        entry_skill=entry, entry_offered=offered, offered_skills=clean(run.offered_skills),
        skill_error=clean(skill_error(calls)), exit_code=run.exit_code,
        run_error=clean(run.parsed.ended.error) if run.parsed.ended and run.parsed.ended.error else None,
    )
    return record


def run_canary(case: Case, req: CanaryRequest, on_event: Callable[[Event], None] | None = None,
               on_setup: Callable[[Mapping[str, str]], None] | None = None) -> CanaryResult:
    """Set up a fresh repo and plugin copy, run the host once, score it and build the record.

    `on_setup` gets the path -> label mapping (`<repo>`, `<plugin>`, ...) before the host starts,
    so a live view can show short paths.
    """
    run_dir = Path(tempfile.mkdtemp(prefix="wb-canary-"))
    try:
        repo, plugin, home, outside = (run_dir / n for n in ("repo", "plugin", "home", "outside"))
        make_fixture(repo, case, req.fixture)
        if req.arm_from is not None:
            build_copy(req.arm_from, plugin)
        else:
            shutil.copytree(req.plugin, plugin, ignore=shutil.ignore_patterns(".git"))
        home.mkdir()
        outside.mkdir()
        for rel, text in req.outside_files.items():
            (outside / rel).parent.mkdir(parents=True, exist_ok=True)
            (outside / rel).write_text(text, encoding="utf-8")
        prompt = case.prompt.replace("{repo}", str(repo))
        placeholders = {"repo": str(repo), "plugin": str(plugin), "home": str(home), "outside": str(outside)}
        paths = {**{str(p): f"<{n}>" for n, p in (("repo", repo), ("plugin", plugin), ("home", home),
                                                     ("outside", outside))},
                 str(run_dir): "<run>", str(Path.home()): "~"}
        paths.update({str(Path(p).resolve()): v for p, v in list(paths.items())})
        if on_setup is not None:
            on_setup(paths)
        run = _run(req, prompt, repo, run_dir, plugin, placeholders, on_event)
        entry = entry_skill(plugin, case.required)
        spec = ScoreSpec(kind=case.kind, required=case.required, moment=case.moment, entry_skill=entry,
                         entry_file=f"skills/{entry}/SKILL.md" if entry else None)
        result = score(spec, run.parsed.calls, model_output=run.parsed.model_output)
        record = build_record(case, req, run, result, entry, paths)
        if run.cancelled:
            record = record.model_copy(update={"valid": False, "invalid_reason": "cancelled"})
        return CanaryResult(record, result, run, run_dir)
    finally:
        if not req.keep:
            shutil.rmtree(run_dir, ignore_errors=True)


def _run(req: CanaryRequest, prompt: str, repo: Path, run_dir: Path, plugin: Path,
         placeholders: dict[str, str], on_event: Callable[[Event], None] | None) -> HostRun:
    """Run the host once: sim offline (script or policy), a real host on a script or the user's login."""
    faults = list(req.faults)
    if req.no_output_fault:
        faults.append(Fault("status", status=529))  # sim simulates it itself
    if req.host != "sim" and req.script is None and req.model is None:
        raise InputError(f"{req.host} needs --model (the user's login) or --script (the scripted model server)",
                         field="--model")
    return run_host(req.host, prompt, repo, run_dir, script=req.script, faults=faults, on_event=on_event,
                    timeout=req.timeout, silence_timeout=req.silence_timeout, model=req.model,
                    placeholders=placeholders, add_dirs=(plugin,), binary=req.binary, plugin=plugin,
                    cancel=req.cancel, extra_env=dict(req.arm_from.env) if req.arm_from else None)
