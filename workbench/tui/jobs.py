"""The blocking work behind the screens: canary, batch, post-install. Plain functions, no widgets.

Each job runs in a thread worker and reports ONLY through `post` (a thread-safe message post).
Scoring, records and batches are the core's and the runner's; this module only wires callbacks to
messages. Cancel is the runner's own hook: a `threading.Event` handed to `run_host` (through the
canary's form, or the batch's); setting it stops the host's process group. All run set-up is the
runner's door (`runner/doors.py`), the same the CLI fills.
"""

from __future__ import annotations

import shutil
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from workbench.core.errors import InputError
from workbench.core.records import append_record
from workbench.core.workspace import Workspace
from workbench.runner.doors import (
    BatchForm,
    CanaryForm,
    PostinstallForm,
    batch_config,
    canary_record,
    canary_request,
    postinstall_record,
    postinstall_request,
)
from workbench.runner.proof import ProofFailed
from workbench.tui.fields import in_fields
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

Post = Callable[[WorkbenchMessage], Any]

ABORTED_AT_START = "aborted by you before any run started"


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
    """One canary from the TUI: its form (`runner.doors.CanaryForm`), the run's folder once known, and
    how to stop it (the form's cancel event, handed to the runner)."""

    run_id: int
    ws: Workspace
    form: CanaryForm
    run_dir: Path | None = None
    buffer: EventBuffer = field(init=False)

    def __post_init__(self) -> None:
        self.buffer = EventBuffer(self.run_id)
        if self.form.cancel is None:
            self.form = replace(self.form, cancel=threading.Event())

    @property
    def record_path(self) -> Path:
        return canary_record(self.ws, self.form)

    def request(self) -> Any:
        """The run, set up by the one canary door (`runner.doors.canary_request`), as the CLI's."""
        return canary_request(self.ws, self.form)

    def run(self, post: Post) -> None:
        """Run, score, record; post paths, every event, then RunScored / RunCancelled / RunFailed."""
        from workbench.runner.execute import execute

        def setup(paths: Any) -> None:
            self.run_dir = next((Path(p) for p, label in paths.items() if label == "<run>"), None)
            post(RunPathsKnown(self.run_id, paths))

        try:
            result = execute(self.request(), on_event=lambda e: self.buffer.seen(e, post), on_setup=setup)
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
        assert self.form.cancel is not None
        self.form.cancel.set()


@dataclass
class PostinstallJob:
    """The post-install check from the TUI: its form (`runner.doors.PostinstallForm`), streamed like a canary."""

    run_id: int
    ws: Workspace
    form: PostinstallForm
    buffer: EventBuffer = field(init=False)

    def __post_init__(self) -> None:
        self.buffer = EventBuffer(self.run_id)

    @property
    def record_path(self) -> Path:
        return postinstall_record(self.ws, self.form)

    def run(self, post: Post) -> None:
        """Run once on the live install; post paths, every event, then RunScored (the guard's result
        as its note) or RunFailed."""
        from workbench.runner.execute import execute

        try:
            req = postinstall_request(self.ws, self.form)
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


@dataclass
class BatchJob:
    """A batch from the TUI: its form (`runner.doors.BatchForm`, set up in the worker: arms, login and
    binaries are git and disk), the plan's records already in the file, the runs as they end, abort."""

    ws: Workspace
    form: BatchForm
    cancelled: threading.Event = field(default_factory=threading.Event)
    workdir: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="wb-tui-batch-")))
    cfg: Any = None
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _started: bool = False
    _muted: bool = False

    def run(self, post: Post) -> None:
        """The batch (`_run`) in a thread of its own, so that an abort during start-up (arms from git,
        the records already in the file, the proof: each can take seconds) ends the job at once (`abort`
        says so to the screen): the start-up then ends by itself, never launches a run, and its messages
        go unseen. After BatchStarted an abort waits for the runs in flight to stop, as `_run` posts."""

        def guarded(message: WorkbenchMessage) -> None:
            with self._lock:
                if self._muted:
                    return
                self._started = self._started or isinstance(message, BatchStarted)
                post(message)

        finished = threading.Event()

        def batch() -> None:
            try:
                self._run(guarded)
            finally:
                finished.set()

        threading.Thread(target=batch, name="tui-batch", daemon=True).start()
        while not finished.wait(0.05):
            if self._muted:
                return

    def _run(self, post: Post) -> None:
        """Set up and check the plan, post the plan's records already in the file, show the proof, run
        the batch, post progress per run, then BatchFinished (always)."""
        from workbench.core.records import load_file
        from workbench.runner.batch import BatchAborted, RunKey, plan, run_batch

        def not_started(note: str) -> None:
            shutil.rmtree(self.workdir, ignore_errors=True)
            post(BatchFinished(None, note))

        try:
            cfg = self.cfg = batch_config(self.ws, replace(self.form, cancel=self.cancelled))
            if self.cancelled.is_set():
                return not_started(ABORTED_AT_START)
            keys = {p.key for p in plan(cfg)}
            if self.cancelled.is_set():
                return not_started(ABORTED_AT_START)
            held = load_file(cfg.record, lenient=True).records if cfg.record.is_file() else []
        except (InputError, OSError, ValueError) as exc:
            return not_started(f"not started: {in_fields(exc)}")
        if self.cancelled.is_set():
            return not_started(ABORTED_AT_START)
        post(BatchRecordsLoaded([r for r in held if RunKey.of(r) in keys], str(cfg.record), len(keys)))
        cfg.workdir = self.workdir
        result = None
        note = "complete"
        try:
            result = run_batch(cfg, on_outcome=lambda o, p: post(BatchRunFinished(o, p)),
                               on_start=lambda p: post(BatchStarted(p)),
                               on_proof=lambda checks: post(ProofChecked(checks, cfg.confinement is not None)))
            note = (result.aborted or result.quota or result.budget or "partial: invalid runs") if not result.complete \
                else "complete" if result.stop_rule is None or result.stop_rule.rule == "fixed" \
                else f"complete · {result.stop_reason()}"
            if result.stopped_early:
                note = result.stopped_early
            elif result.cancelled:
                note = "aborted by you: the records already written stay"
        except (ProofFailed, BatchAborted, InputError, OSError) as exc:
            note = f"not started or stopped: {in_fields(exc)}"
        finally:
            shutil.rmtree(self.workdir, ignore_errors=True)
            post(BatchFinished(result, note))

    def abort(self) -> bool:
        """Stop launching runs and stop those in flight (the runner kills their groups); half runs are
        never recorded, the records already written stay. True: the batch had not started (no
        BatchStarted yet), it is over now and the caller says so; none of its messages follow."""
        with self._lock:
            self.cancelled.set()
            if not self._started:
                self._muted = True
            return self._muted
