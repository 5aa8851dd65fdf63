"""The blocking work behind the screens: canary, batch, post-install. Plain functions, no widgets.

Each job runs in a thread worker and reports ONLY through `post` (a thread-safe message post).
Scoring, records and batches are the core's and the runner's; this module only wires callbacks to
messages. Cancel is the runner's own hook: a `threading.Event` handed to `run_host` (through the
canary request, or the batch's host function); setting it stops the host's process group.
"""

from __future__ import annotations

import shutil
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.core.errors import InputError
from workbench.core.models import Case
from workbench.core.records import append_record
from workbench.core.workspace import Workspace
from workbench.runner.proof import ProofFailed
from workbench.tui.fields import in_fields, invalid_reason
from workbench.tui.messages import (
    BatchFinished,
    BatchRecordsLoaded,
    BatchRunFinished,
    BatchStarted,
    HostEventsSeen,
    ProofChecked,
    RunCancelled,
    RunFailed,
    RunPathsKnown,
    RunScored,
    WorkbenchMessage,
)
from workbench.tui.widgets.runform import load

Post = Callable[[WorkbenchMessage], Any]
WORKTREE = "@worktree"
DRAFT = "@draft"


@dataclass(frozen=True)
class Draft:
    """A row's unsaved wording: the routing file, the row's line in it and the new line's text."""

    row_id: str
    file: Path
    line: int
    text: str

    def arm(self, ws: Workspace) -> Any:
        """The runner's draft arm: the plugin folder as it is with this line replaced in the run's copy
        (read here, in the worker; the user's file is never written)."""
        from workbench.core.wording import replace_line
        from workbench.runner.arms import draft_arm

        edited = replace_line(self.file.read_text(encoding="utf-8"), self.line, self.text)
        return draft_arm(ws, {self.file: edited})


@dataclass
class EventBuffer:
    """A run's events between the worker and the UI: at most one HostEventsSeen is pending at a time."""

    run_id: int
    _events: list[Any] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def take(self) -> list[Any]:
        """The events seen since the last take (UI thread)."""
        with self._lock:
            events, self._events = self._events, []
        return events

    def seen(self, event: Any, post: Post) -> None:
        """Buffer EVENT; post a message only when none is pending (the buffer was empty)."""
        with self._lock:
            self._events.append(event)
            first = len(self._events) == 1
        if first:
            post(HostEventsSeen(self.run_id, self.take))


@dataclass
class CanaryJob:
    """One canary from the TUI: the case, where it runs, and how to stop it."""

    run_id: int
    ws: Workspace
    case: Case
    host: str = "sim"
    model: str | None = None
    arm: str = WORKTREE
    """`@worktree` (the plugin folder as it is), `@draft` (DRAFT applied in the run's copy) or a
    workspace arm's name (`workbench arm list`)."""
    draft: Draft | None = None
    effort: str | None = None
    timeout: float = 300.0
    script: Any = None
    """A `workbench.modelstub.Script` instead of a model (self-checks, tests); None: the host's model."""
    cancelled: threading.Event = field(default_factory=threading.Event)
    run_dir: Path | None = None
    buffer: EventBuffer = field(init=False)

    def __post_init__(self) -> None:
        self.buffer = EventBuffer(self.run_id)

    def _seen(self, event: Any, post: Post) -> None:
        self.buffer.seen(event, post)

    @property
    def record_path(self) -> Path:
        return self.ws.records_dir / "canary.jsonl"

    def request(self) -> Any:
        """The run, built as the CLI canary builds it: the folder as it is (@worktree), the draft applied
        to a copy of it (@draft, recorded as arm `draft` with the draft's content hash as source), or
        the workspace arm of that name (its sha and env)."""
        from workbench.runner.arms import resolve
        from workbench.runner.guard import checkouts_of
        from workbench.runner.request import build_request

        if self.arm == DRAFT:
            if self.draft is None:
                raise InputError("no draft to run: edit a row first (Rows, e)", field="arm")
            arm = self.draft.arm(self.ws)
        else:
            arm = None if self.arm == WORKTREE else resolve(self.ws, self.arm)
        repos = sorted({self.ws.root, *([arm.repo_root] if arm is not None else [])})
        return build_request(self.case, self.host, door="canary", plugin=self.ws.plugin_dir, arm=arm,
                             model=self.model or None, effort=self.effort, script=load(self.script),
                             fixture=self.ws.base_fixture, timeout=self.timeout, cancel=self.cancelled,
                             checkouts=repos, guarded=checkouts_of(repos), own=[self.record_path])

    def run(self, post: Post) -> None:
        """Run, score, record; post paths, every event, then RunScored / RunCancelled / RunFailed."""
        from workbench.runner.execute import execute

        def setup(paths: Any) -> None:
            self.run_dir = next((Path(p) for p, label in paths.items() if label == "<run>"), None)
            post(RunPathsKnown(self.run_id, paths))

        try:
            result = execute(self.request(), on_event=lambda e: self._seen(e, post), on_setup=setup)
        except (InputError, OSError, ValueError, ProofFailed) as exc:
            post(RunFailed(self.run_id, in_fields(exc)))
            return
        record = result.record  # a cancelled run is recorded invalid `cancelled` by the runner
        self.record_path.parent.mkdir(parents=True, exist_ok=True)
        append_record(self.record_path, record)
        if result.run.cancelled:
            post(RunCancelled(self.run_id))
        post(RunScored(self.run_id, record, str(self.record_path),
                       "cancelled: recorded as invalid" if result.run.cancelled else ""))

    def cancel(self) -> None:
        """Ask the runner to stop the host's process group (the run then ends as `cancelled`)."""
        self.cancelled.set()


@dataclass
class PostinstallJob:
    """The post-install check from the TUI: the live-install door of `execute`, streamed like a canary."""

    run_id: int
    ws: Workspace
    case: Case
    host: str = "sim"
    model: str | None = None
    effort: str | None = None
    home: Path = field(default_factory=Path.home)
    script: Any = None
    """A `workbench.modelstub.Script` instead of a model (tests); None: the host's model or policy."""
    buffer: EventBuffer = field(init=False)

    def __post_init__(self) -> None:
        self.buffer = EventBuffer(self.run_id)

    @property
    def record_path(self) -> Path:
        return self.ws.records_dir / "live-install.jsonl"

    def run(self, post: Post) -> None:
        """Run once on the live install; post paths, every event, then RunScored (the guard's result
        as its note) or RunFailed."""
        from workbench.runner.execute import execute
        from workbench.runner.request import build_request

        try:
            req = build_request(self.case, self.host, door="postinstall", plugin=self.ws.plugin_dir,
                                model=self.model, effort=self.effort, script=load(self.script),
                                fixture=self.ws.base_fixture, home=self.home,
                                guarded=[self.ws.root, self.ws.plugin_dir], own=[self.record_path],
                                checkouts=[self.ws.root, self.ws.plugin_dir])
            self.record_path.parent.mkdir(parents=True, exist_ok=True)
            record = execute(req, on_event=lambda e: self.buffer.seen(e, post),
                             on_setup=lambda paths: post(RunPathsKnown(self.run_id, paths))).record
            append_record(self.record_path, record)
        except (InputError, OSError, ValueError, ProofFailed) as exc:
            post(RunFailed(self.run_id, in_fields(exc)))
            return
        changes = record.guard.changes if record.guard else []
        guard = "guard: no change outside the run" if not changes else "guard: " + "; ".join(changes)
        post(RunScored(self.run_id, record, str(self.record_path), guard))


class BatchCancelled(RuntimeError):
    """The user aborted the batch; runs in flight are dropped, records already written stay."""


EARLY_STOP = 3
"""A batch stops when the first this many runs of a host are all invalid for the same reason."""


def login_problem(host: str, home: Path) -> str | None:
    """Why HOST cannot run on the user's login: none of its login files is in HOME (None: one is)."""
    from workbench.hosts import adapter

    files = adapter(host).login_files
    if host == "sim" or not files or any((home / f).exists() for f in files):
        return None
    return (f"{host}: no login found (~/{', ~/'.join(files)}): log in with the {host} CLI first, "
            "or pick a script for an offline self-check")


@dataclass
class BatchJob:
    """A batch from the TUI: the core's BatchConfig (built in the worker by `build`), the plan's records
    already in the file, the runs as they end, abort, and the early stop."""

    build: Callable[[], Any]
    """Makes the `workbench.runner.batch.BatchConfig` (arms, pre-flight checks: git and disk, so here)."""
    prove: bool = True
    cancelled: threading.Event = field(default_factory=threading.Event)
    workdir: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="wb-tui-batch-")))
    stopped: str | None = None
    """Why the batch stopped itself early (the first runs of a host all invalid for one reason)."""
    cfg: Any = None

    def watch(self, record: Any, first: dict[str, list[Any]]) -> None:
        """Stop early when the first EARLY_STOP runs of RECORD's host are all invalid for one reason."""
        seen = first.setdefault(record.host, [])
        if len(seen) >= EARLY_STOP:
            return
        seen.append(record)
        reasons = {invalid_reason(r) for r in seen}
        if len(seen) == EARLY_STOP and not any(r.valid for r in seen) and len(reasons) == 1:
            self.stopped = (f"stopped early: the first {EARLY_STOP} runs on {record.host} were all invalid: "
                            f"{reasons.pop()}")
            self.cancelled.set()

    def run(self, post: Post) -> None:
        """Build and check the plan, post the plan's records already in the file, show the proof, run
        the batch, post progress per run, then BatchFinished (always)."""
        import os

        from workbench.core.records import load_file
        from workbench.hosts.base import clean_env
        from workbench.runner.batch import BatchAborted, RunKey, plan, run_batch, run_folder
        from workbench.runner.hostrun import run_host
        from workbench.runner.proof import ProofFailed, prove

        try:
            cfg = self.cfg = self.build()
            if cfg.script is None:
                for host in cfg.hosts:
                    problem = login_problem(host, cfg.real_home or Path.home())
                    if problem:
                        raise InputError(problem, field="hosts")
            keys = {p.key for p in plan(cfg)}
            held = load_file(cfg.record, lenient=True).records if cfg.record.is_file() else []
        except (InputError, OSError, ValueError) as exc:
            shutil.rmtree(self.workdir, ignore_errors=True)
            post(BatchFinished(None, f"not started: {in_fields(exc)}"))
            return
        post(BatchRecordsLoaded([r for r in held if RunKey.of(r) in keys], str(cfg.record), len(keys)))
        cfg.workdir = self.workdir
        cfg.cancel = self.cancelled  # an executor without run_host_fn (Ray) cancels its runs on abort

        def host_fn(*args: Any, **kwargs: Any) -> Any:
            if self.cancelled.is_set():
                raise BatchCancelled("aborted before this run started")
            run = run_host(*args, **{**kwargs, "cancel": self.cancelled})
            if run.cancelled or self.cancelled.is_set():
                raise BatchCancelled("aborted during this run")
            return run

        first: dict[str, list[Any]] = {}

        def outcome(o: Any, p: Any) -> None:
            post(BatchRunFinished(o, p))
            self.watch(o.record, first)

        result = None
        note = "complete"
        try:
            if cfg.confinement is not None and self.prove:
                with run_folder(self.workdir, "tui-proof-") as rd:
                    post(ProofChecked(prove(cfg.confinement, rd, clean_env(os.environ)), True))
            else:
                post(ProofChecked([], False))
            result = run_batch(cfg, on_outcome=outcome, on_start=lambda p: post(BatchStarted(p)), run_host_fn=host_fn)
            note = (result.aborted or result.quota or result.budget or "partial: invalid runs") if not result.complete \
                else "complete" if result.stop_rule is None or result.stop_rule.rule == "fixed" \
                else f"complete · {result.stop_reason()}"
            if result.cancelled:
                note = "aborted by you: the records already written stay"
        except BatchCancelled:
            note = self.stopped or "aborted by you: the records already written stay"
        except (ProofFailed, BatchAborted, InputError, OSError) as exc:
            note = f"not started or stopped: {in_fields(exc)}"
        finally:
            shutil.rmtree(self.workdir, ignore_errors=True)
            post(BatchFinished(result, note))

    def abort(self) -> None:
        """Stop launching runs and stop those in flight (the runner kills their groups); half runs are
        never recorded, the records already written stay."""
        self.cancelled.set()
