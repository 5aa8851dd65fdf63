"""The workbench app and its ONE factory, used by the `workbench` command and by the tests.

The app owns the workspace view and switches between installed screens; screens own their
state; workers post messages. Every workbench message is kept in a short journal (tests assert
on it, and `journal` makes a session's story inspectable).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterable
from importlib import import_module
from pathlib import Path

from textual import on, work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen
from textual.worker import Worker, WorkerState, get_current_worker

from workbench.core.workspace import Workspace, load_workspace
from workbench.failure import describe
from workbench.stdio import buffer_terminal_stream
from workbench.tui.data import KnownArms, WorkspaceView
from workbench.tui.keys import printable_actions, typing
from workbench.tui.messages import (
    ArmsRead,
    CanaryRequested,
    PromoteRequested,
    ScriptsRead,
    TuneRequested,
    WorkbenchMessage,
    WorkerErrored,
    WorkerFailed,
    WorkspaceRead,
)

JOURNAL_SIZE = 5000

SCREENS = {
    "rows": ("Rows", "routing rows, lint and audit badges, edit a row, save as arm"),
    "canary": ("Canary", "one case on one host, live call pane, verdict"),
    "batch": ("Batch", "promote a row: baseline vs arm, confined, live results"),
    "records": ("Records", "open records files, filter, open any run's calls"),
    "compare": ("Compare", "arms side by side with intervals, delta, paired p-value"),
    "postinstall": ("Post-install check", "one run against your live install, with the guard"),
    "sessions": ("Sessions", "your past real sessions, read-only, scored beside the lab"),
    "tune": ("Tune", "a row's candidate wordings as arms; kept only when held-back cases confirm"),
}


def _lazy(name: str, view: WorkspaceView, label: str, built: dict[str, Screen[None]]) -> Callable[[], Screen[None]]:
    """A factory for screen NAME on VIEW: its module is imported when the screen is first shown; the
    screen is kept in BUILT (the app tells built screens when the arms change)."""

    def build() -> Screen[None]:
        module = import_module(f"workbench.tui.screens.{name}")
        screen: Screen[None] = getattr(module, SCREEN_CLASSES[name])(view, label)
        built[name] = screen
        return screen

    return build


SCREEN_CLASSES = {"canary": "CanaryScreen", "batch": "BatchScreen", "records": "RecordsScreen",
                  "compare": "CompareScreen", "postinstall": "PostinstallScreen",
                  "sessions": "SessionsScreen", "tune": "TuneScreen"}


class WorkbenchApp(App[None]):
    """Trigger Workbench: rows → canary → batch → records/compare."""

    CSS_PATH = "app.tcss"
    TITLE = "Trigger Workbench"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (140, "-wide")]
    """Below 140 columns, Rows stacks its detail under the table (screens read the class from CSS)."""
    BINDINGS = [
        Binding("1", "show('rows')", "screens", key_display="1…6"),
        Binding("2", "show('canary')", "canary", show=False),
        Binding("3", "show('batch')", "batch", show=False),
        Binding("4", "show('records')", "records", show=False),
        Binding("5", "show('compare')", "compare", show=False),
        Binding("6", "show('postinstall')", "post-install", show=False),
        Binding("7", "show('sessions')", "sessions", show=False),
        Binding("question_mark,f1", "help", "help"),
        Binding("q", "quit", "quit"),
        Binding("escape", "leave_input", "leave input", show=False),
    ]

    def __init__(self, ws: Workspace) -> None:
        super().__init__()
        self.view = WorkspaceView.load(ws)
        self.journal: deque[WorkbenchMessage] = deque(maxlen=JOURNAL_SIZE)
        self.built: dict[str, Screen[None]] = {}
        """The screens built so far, by name (screens are built on first visit)."""
        self._ending = threading.Event()
        """Set when the app ends: the scripts watch stops waiting."""

    @property
    def workspace_label(self) -> str:
        ws = self.view.ws
        return f"{ws.config.name}" + (" (bundled demo)" if ws.demo else "")

    def on_mount(self) -> None:
        from workbench.tui.screens.rows import RowsScreen

        self.built["rows"] = RowsScreen(self.view, self.workspace_label)
        self.install_screen(self.built["rows"], "rows")
        for name in SCREENS:
            if name != "rows":  # built (and their modules imported) on first visit: cold start
                self.install_screen(_lazy(name, self.view, self.workspace_label, self.built), name)  # type: ignore[arg-type]
        self.push_screen("rows")
        self.read_arms_job()
        self.watch_scripts_job()

    @work(thread=True, exclusive=True, group="arms", exit_on_error=False)
    def read_arms_job(self) -> None:
        """The workspace's arms from git, off the UI thread (screens read `view.arms()`, never git)."""
        from workbench.tui.data import read_arms

        self.post_message(ArmsRead(read_arms(self.view.ws)))

    @work(thread=True, exclusive=True, group="scripts", exit_on_error=False)
    def watch_scripts_job(self) -> None:
        """Read the canaries folder's scripts again each time a file there changes, until the app ends
        (the forms offer a script added while the app runs)."""
        from workbench.tui.data import read_scripts
        from workbench.tui.folderwatch import FolderWatch

        worker = get_current_worker()
        watch = FolderWatch(self.view.ws.canaries_dir)
        try:
            while not worker.is_cancelled:
                if watch.wait(0.5, self._ending) and not worker.is_cancelled:
                    self.post_message(ScriptsRead(read_scripts(self.view.ws.canaries_dir)))
        finally:
            watch.close()

    def on_unmount(self) -> None:
        self._ending.set()

    @on(WorkspaceRead)
    def workspace_read(self, message: WorkspaceRead) -> None:
        """The files were read again: every screen shows them as they are now."""
        self.view.take(message.view)
        self.tell("view_changed")

    @on(ScriptsRead)
    def scripts_read(self, message: ScriptsRead) -> None:
        if message.scripts != self.view.scripts:
            self.view.scripts = message.scripts
            self.tell("scripts_changed")

    @on(ArmsRead)
    def arms_read(self, message: ArmsRead) -> None:
        self.arms_known(message.known)

    def arms_known(self, known: KnownArms) -> None:
        """Keep KNOWN as the workspace's arms and tell every screen built so far that offers arms."""
        self.view.known_arms = known
        self.tell("arms_changed")

    def tell(self, method: str) -> None:
        """Call METHOD of every screen built so far that has one (the view it shows changed)."""
        for screen in self.built.values():
            changed = getattr(screen, method, None)
            if screen.is_mounted and changed is not None:
                changed()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR:
            self.worker_failed(self.screen, event.worker)

    @on(WorkerErrored)
    def worker_errored(self, message: WorkerErrored) -> None:
        self.worker_failed(message.screen, message.worker)

    @on(WorkbenchMessage)
    def keep(self, message: WorkbenchMessage) -> None:
        self.journal.append(message)

    def worker_failed(self, screen: Screen[object], worker: Worker[object]) -> None:
        """The TUI's one error boundary: a worker's exception becomes one error line (a notification,
        and WorkerFailed to its screen, which resets its own state), never a crash."""
        error = worker.error if worker.error is not None else RuntimeError("worker failed")
        line = describe(error).line
        self.notify(line, title=f"{worker.group} failed", severity="error", timeout=10)
        screen.post_message(WorkerFailed(worker.group, line))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Digit, `q` and `?` keys type into a focused input: hidden from the footer then."""
        if action in printable_actions(self.BINDINGS) and typing(self.screen):
            return False
        if action == "leave_input":
            return typing(self.screen)
        return True

    def action_leave_input(self) -> None:
        """Escape leaves an input: the screen's keys act again."""
        self.screen.set_focus(None)

    def busy(self) -> list[str]:
        """What quitting now would throw away: unsaved drafts and running work."""
        out = []
        unsaved: list[str] = getattr(self.built["rows"], "unsaved", list)()
        if unsaved:
            out.append(f"{len(unsaved)} unsaved draft(s): {', '.join(unsaved)}")
        for name, what in (("canary", "a canary"), ("batch", "a batch"), ("postinstall", "a post-install check"),
                           ("tune", "a tune")):
            if getattr(self.built.get(name), "busy", False):
                out.append(f"{what} is running")
        return out

    async def action_quit(self) -> None:
        """Quit; unsaved drafts or running work are named first and must be confirmed."""
        from workbench.tui.screens.confirm import ConfirmScreen

        busy = self.busy()
        if not busy:
            self.exit()
            return

        def answered(go: bool | None) -> None:
            if go:
                for name in ("canary", "batch", "postinstall", "tune"):
                    stop = getattr(self.built.get(name), "stop_work", None)
                    if stop is not None:
                        stop()
                self.exit()

        self.push_screen(ConfirmScreen("Quit? " + "; ".join(busy) + " (running work is stopped, drafts are lost)."),
                         answered)

    def kinds(self) -> list[str]:
        """Names of the journal's messages, in order (tests)."""
        return [type(m).__name__ for m in self.journal]

    async def action_show(self, name: str) -> None:
        if self.screen is not self.get_screen(name):
            while len(self.screen_stack) > 2:  # a modal or a calls view on top: leave it first
                await self.pop_screen()
            await self.switch_screen(name)

    def action_help(self) -> None:
        from workbench.tui.screens.help import HelpScreen

        self.push_screen(HelpScreen())

    @on(CanaryRequested)
    async def canary_requested(self, message: CanaryRequested) -> None:
        from workbench.runner.doors import Draft
        from workbench.tui.screens.canary import CanaryScreen

        case = self.view.first_positive(message.row_id)
        if case is None:
            self.notify(f"row {message.row_id} has no positive case in {self.view.ws.cases_dir}", severity="warning")
            return
        row = self.view.row(message.row_id)
        draft = None
        if message.draft is not None and row is not None and row.file is not None:
            draft = Draft(row.id, row.file, row.line, message.draft)
        await self.action_show("canary")
        screen = self.get_screen("canary")
        assert isinstance(screen, CanaryScreen)
        screen.launch(case, draft)

    @on(PromoteRequested)
    async def promote_requested(self, message: PromoteRequested) -> None:
        await self.promote(message.row_id, message.arm)

    async def promote(self, row_id: str, arm: str | None = None) -> None:
        """Open the batch screen set up for ROW: baseline vs ARM (default: the row's newest arm)."""
        from workbench.tui.screens.batch import BatchScreen

        await self.action_show("batch")
        screen = self.get_screen("batch")
        assert isinstance(screen, BatchScreen)
        screen.promote(row_id, arm)

    @on(TuneRequested)
    async def tune_requested(self, message: TuneRequested) -> None:
        """Open the Tune screen on the row Rows asked for."""
        from workbench.tui.screens.tune import TuneScreen

        await self.action_show("tune")
        screen = self.get_screen("tune")
        assert isinstance(screen, TuneScreen)
        screen.tune(message.row_id)

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for name, (title, help_text) in SCREENS.items():
            yield SystemCommand(f"Go to {title}", help_text, lambda n=name: self.run_action(f"show('{n}')"))
        yield SystemCommand("Help", "keys of every screen", self.action_help)
        actions = {"rows": [("Run canary of the selected row's draft", "canary"),
                            ("Promote the selected row to a batch", "promote"), ("Save the draft as an arm", "save"),
                            ("Tune the selected row", "tune"), ("Search the rows", "search"),
                            ("Open the row's file in $EDITOR", "open_editor('row')"),
                            ("Open the row's procedures in $EDITOR", "open_editor('procedures')")],
                   "canary": [("Run canary", "run"), ("Cancel the canary", "cancel")],
                   "batch": [("Start the batch", "start"), ("Abort the batch", "abort")],
                   "records": [("Open the records files", "load")], "compare": [("Compare the arms", "compare"),
                                                                   ("Write and open the HTML report", "report")],
                   "postinstall": [("Run the post-install check", "run")],
                   "tune": [("Start the tune", "start"), ("Cancel the tune", "cancel")]}
        for name, items in actions.items():
            if screen is self.built.get(name):
                for title, action in items:
                    yield SystemCommand(title, f"{SCREENS[name][0]}: {action}",
                                        lambda a=action: self.screen.run_action(a))


def run_app() -> None:
    """Run the workbench on the current folder's workspace until the user quits (frames never torn)."""
    buffer_terminal_stream()
    make_app().run()


def make_app(ws: Workspace | None = None, *, cwd: Path | None = None) -> WorkbenchApp:
    """The app on WS, else on the workspace found from CWD (default: the current folder), else the demo."""
    return WorkbenchApp(ws if ws is not None else load_workspace(cwd))
