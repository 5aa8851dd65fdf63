"""Every message the workbench's workers and widgets post, named for what already happened.

Workers (threads) only ever post these; handlers on screens and the app own all state. Each
subclasses `WorkbenchMessage` so the app can keep a short journal of them (tests assert on it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from textual.message import Message

from workbench.core.events import Event
from workbench.core.models import Case, RunRecord

if TYPE_CHECKING:
    from workbench.core.arms import Arm
    from workbench.core.lint import Finding
    from workbench.core.summary import Summary
    from workbench.core.tune import Candidate
    from workbench.runner.batch import BatchResult, Progress, RunOutcome
    from workbench.runner.proof import CheckResult
    from workbench.runner.tune import TuneEvent
    from workbench.tui.data import KnownArms, ScriptFile, WorkspaceView


class WorkbenchMessage(Message):
    """Base of the workbench's own messages."""


class RunPathsKnown(WorkbenchMessage):
    """A run set up its folders: path -> label (`<repo>`), for short paths in the pane."""

    def __init__(self, run_id: int, paths: Mapping[str, str]) -> None:
        super().__init__()
        self.run_id = run_id
        self.paths = dict(paths)


class HostEventsSeen(WorkbenchMessage):
    """The host's stream produced normalized events; `take()` hands over all not yet taken.

    At most one such message is pending per run: a burst of thousands of calls is one message,
    so keypresses never queue behind it.
    """

    def __init__(self, run_id: int, take: Callable[[], list[Event]]) -> None:
        super().__init__()
        self.run_id = run_id
        self.take = take


class RunScored(WorkbenchMessage):
    """A run ended, was scored by the scorer and its record written to `path`."""

    def __init__(self, run_id: int, record: RunRecord, path: str, note: str = "") -> None:
        super().__init__()
        self.run_id = run_id
        self.record = record
        self.path = path
        self.note = note


class RunCancelled(WorkbenchMessage):
    """The user cancelled a run and the runner stopped its process group (TERM, then KILL)."""

    def __init__(self, run_id: int) -> None:
        super().__init__()
        self.run_id = run_id


class RunFailed(WorkbenchMessage):
    """A run could not be started or scored (bad input, missing host)."""

    def __init__(self, run_id: int, error: str) -> None:
        super().__init__()
        self.run_id = run_id
        self.error = error


class EditLinted(WorkbenchMessage):
    """A worker linted TEXT, the editor's wording of ROW_ID (DANGLING and UNSHIPPED links included: it
    reads the disk)."""

    def __init__(self, row_id: str, text: str, findings: list[Finding] | None) -> None:
        super().__init__()
        self.row_id = row_id
        self.text = text
        self.findings = findings


class CaseRead(WorkbenchMessage):
    """A worker read the case a run names (a file or an id in the cases folder): RUN_ID may start."""

    def __init__(self, run_id: int, case: Case) -> None:
        super().__init__()
        self.run_id = run_id
        self.case = case


class CanaryRequested(WorkbenchMessage):
    """A screen asked for a canary of a row's case (the app switches to the canary screen); `draft` is
    the row's unsaved wording to run instead of the file's (None: the row as it is)."""

    def __init__(self, row_id: str, draft: str | None = None) -> None:
        super().__init__()
        self.row_id = row_id
        self.draft = draft


class TuneRequested(WorkbenchMessage):
    """Rows asked for a tune of a row (the app switches to the Tune screen)."""

    def __init__(self, row_id: str) -> None:
        super().__init__()
        self.row_id = row_id


class WorkerErrored(Message):
    """A screen's worker raised (sent up to the app's one error boundary; not journalled itself: the
    app answers with WorkerFailed)."""

    def __init__(self, screen: Any, worker: Any) -> None:
        super().__init__()
        self.screen = screen
        self.worker = worker


class PromoteRequested(WorkbenchMessage):
    """A screen asked for a batch of a row: baseline vs ARM (None: the row's newest arm)."""

    def __init__(self, row_id: str, arm: str | None = None) -> None:
        super().__init__()
        self.row_id = row_id
        self.arm = arm


class ArmCreated(WorkbenchMessage):
    """A row's edited wording was committed as an arm (`promote`: a batch of it was asked for); `known`
    is every arm read again after it."""

    def __init__(self, arm: Arm, known: KnownArms, row_id: str | None = None, promote: bool = False) -> None:
        super().__init__()
        self.arm = arm
        self.known = known
        self.row_id = row_id
        self.promote = promote


class ArmsRead(WorkbenchMessage):
    """The workspace's arms were read from git in a worker (at start)."""

    def __init__(self, known: KnownArms) -> None:
        super().__init__()
        self.known = known


class ArmRowRead(WorkbenchMessage):
    """A row's wording in the baseline and in one of its arms was read from git in a worker (for `d`);
    or ERROR, the one line why not."""

    def __init__(self, row_id: str, arm: str, baseline: str = "", text: str = "", error: str | None = None) -> None:
        super().__init__()
        self.row_id = row_id
        self.arm = arm
        self.baseline = baseline
        self.text = text
        self.error = error


class ReportWritten(WorkbenchMessage):
    """The HTML report was written (`workbench.report.page.write_report`, as `workbench report`): its path,
    its runs, and whether a browser was asked to open it; or ERROR, the one line why not."""

    def __init__(self, path: str, runs: int = 0, opened: bool = False, error: str | None = None) -> None:
        super().__init__()
        self.path = path
        self.runs = runs
        self.opened = opened
        self.error = error


class WorkspaceRead(WorkbenchMessage):
    """The workspace's files were read again in a worker (after the user's editor exited): `view` holds
    the rows, findings, cases and scripts as they are now."""

    def __init__(self, view: WorkspaceView) -> None:
        super().__init__()
        self.view = view


class ScriptsRead(WorkbenchMessage):
    """The canaries folder changed and its scripts were read again in a worker (`tui.data.read_scripts`)."""

    def __init__(self, scripts: list[ScriptFile]) -> None:
        super().__init__()
        self.scripts = scripts


class ArmFailed(WorkbenchMessage):
    """Saving the wording as an arm was refused (the reason is user-facing)."""

    def __init__(self, error: str) -> None:
        super().__init__()
        self.error = error


class ProofChecked(WorkbenchMessage):
    """The confinement proof ran before a batch: each check and whether it came out as required."""

    def __init__(self, results: list[CheckResult], confined: bool) -> None:
        super().__init__()
        self.results = results
        self.confined = confined


class BatchRecordsLoaded(WorkbenchMessage):
    """The batch's records file was read: the records of this plan already in it (resume, re-runs)."""

    def __init__(self, records: list[RunRecord], path: str, planned: int) -> None:
        super().__init__()
        self.records = records
        self.path = path
        self.planned = planned


class RecordsRead(WorkbenchMessage):
    """Records files were read in a worker: `records` is all of them (`appended`: False) or only what was
    appended since the last message (`appended`: True); `skipped` counts bad lines so far; `paths` are
    the files, `listed` when they are the workspace's own (not typed by the user)."""

    def __init__(self, records: list[RunRecord], *, appended: bool, skipped: int, paths: list[str],
                 listed: bool = False) -> None:
        super().__init__()
        self.records = records
        self.appended = appended
        self.skipped = skipped
        self.paths = paths
        self.listed = listed


class ComparisonRead(WorkbenchMessage):
    """Records files were read and summarized in a worker, for the compare screen (all numbers the core's);
    `listed` when they are the workspace's own."""

    def __init__(self, summary: Summary, funnel: list[dict[str, Any]], confusion: list[dict[str, Any]],
                 paths: list[str], listed: bool, first: bool = True) -> None:
        super().__init__()
        self.summary = summary
        self.funnel = funnel
        self.confusion = confusion
        self.paths = paths
        self.listed = listed
        self.first = first
        """False: a re-read of the files after one was added or written (the picked arms stay)."""


class BatchStarted(WorkbenchMessage):
    """The batch passed its proof and self-checks and launched its first runs."""

    def __init__(self, progress: Progress) -> None:
        super().__init__()
        self.progress = progress


class BatchRunFinished(WorkbenchMessage):
    """One run of the batch ended and its record was appended."""

    def __init__(self, outcome: RunOutcome, progress: Progress) -> None:
        super().__init__()
        self.outcome = outcome
        self.progress = progress


class BatchFinished(WorkbenchMessage):
    """The batch ended: complete, aborted (by the guard or the user) or stopped; records stay."""

    def __init__(self, result: BatchResult | None, note: str) -> None:
        super().__init__()
        self.result = result
        self.note = note


class ForecastReady(WorkbenchMessage):
    """The batch form's forecast (runs, tokens, cost, wall time from earlier records), as lines to show."""

    def __init__(self, lines: list[str], cost_usd: float | None = None) -> None:
        super().__init__()
        self.lines = lines
        self.cost_usd = cost_usd
        """The forecast's total cost (None: unknown)."""


class WorkerFailed(WorkbenchMessage):
    """A worker raised instead of posting its own outcome; `error` is the one line the app showed."""

    def __init__(self, group: str, error: str) -> None:
        super().__init__()
        self.group = group
        self.error = error


class TuneForecast(WorkbenchMessage):
    """The tune's forecast as lines (`preview`: before launch, with the SPLIT and the CANDIDATES the
    runner would try), or the one-line ERROR of its set-up."""

    def __init__(self, lines: list[str], split: str = "", candidates: list[Candidate] | None = None, *,
                 preview: bool = False, error: str | None = None) -> None:
        super().__init__()
        self.lines = lines
        self.split = split
        self.candidates = candidates
        self.preview = preview
        self.error = error


class TuneProgressed(WorkbenchMessage):
    """The running tune did something: the runner's event (stage, runs so far, tallies, a verdict)."""

    def __init__(self, event: TuneEvent) -> None:
        super().__init__()
        self.event = event


class TuneFinished(WorkbenchMessage):
    """The tune ended: RESULT is the runner's `result_json` (the CLI's `--json`), or None with the one-line
    ERROR of a bad form; KNOWN is every arm read again after it."""

    def __init__(self, result: dict[str, Any] | None, *, error: str | None = None,
                 known: KnownArms | None = None) -> None:
        super().__init__()
        self.result = result
        self.error = error
        self.known = known
