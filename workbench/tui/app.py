"""The workbench app and its ONE factory, used by the `workbench` command and by the tests.

The app owns the workspace view and switches between installed screens; screens own their
state; workers post messages. Every workbench message is kept in a short journal (tests assert
on it, and `journal` makes a session's story inspectable).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from importlib import import_module
from pathlib import Path

from textual import on, work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from workbench.core.workspace import Workspace, load_workspace
from workbench.failure import describe
from workbench.stdio import buffer_terminal_stream
from workbench.tui.data import KnownArms, WorkspaceView
from workbench.tui.keys import printable_actions, typing
from workbench.tui.messages import ArmsRead, CanaryRequested, WorkbenchMessage, WorkerFailed

JOURNAL_SIZE = 5000

SCREENS = {
    "rows": ("Rows", "routing rows, lint and audit badges, edit a row, save as arm"),
    "canary": ("Canary", "one case on one host, live call pane, verdict"),
    "batch": ("Batch", "promote a row: baseline vs arm, confined, live results"),
    "records": ("Records", "open records files, filter, open any run's calls"),
    "compare": ("Compare", "arms side by side with intervals, delta, paired p-value"),
    "postinstall": ("Post-install check", "one run against your live install, with the guard"),
}


def _lazy(name: str) -> Callable[[], Screen[None]]:
    """A factory for screen NAME: its module is imported when the screen is first shown."""

    def build() -> Screen[None]:
        module = import_module(f"workbench.tui.screens.{name}")
        screen: Screen[None] = getattr(module, SCREEN_CLASSES[name])()
        return screen

    return build


SCREEN_CLASSES = {"canary": "CanaryScreen", "batch": "BatchScreen", "records": "RecordsScreen",
                  "compare": "CompareScreen", "postinstall": "PostinstallScreen"}


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
        Binding("question_mark,f1", "help", "help"),
        Binding("q", "quit", "quit"),
        Binding("escape", "leave_input", "leave input", show=False),
    ]

    def __init__(self, ws: Workspace) -> None:
        super().__init__()
        self.view = WorkspaceView.load(ws)
        self.journal: deque[WorkbenchMessage] = deque(maxlen=JOURNAL_SIZE)

    @property
    def workspace_label(self) -> str:
        ws = self.view.ws
        return f"{ws.config.name}" + (" (bundled demo)" if ws.demo else "")

    def on_mount(self) -> None:
        from workbench.tui.screens.rows import RowsScreen

        self.install_screen(RowsScreen(), "rows")
        for name in SCREENS:
            if name != "rows":  # built (and their modules imported) on first visit: cold start
                self.install_screen(_lazy(name), name)  # type: ignore[arg-type]
        self.push_screen("rows")
        self.read_arms_job()

    @work(thread=True, exclusive=True, group="arms", exit_on_error=False)
    def read_arms_job(self) -> None:
        """The workspace's arms from git, off the UI thread (screens read `view.arms()`, never git)."""
        from workbench.tui.data import read_arms

        self.post_message(ArmsRead(read_arms(self.view.ws)))

    @on(ArmsRead)
    def arms_read(self, message: ArmsRead) -> None:
        self.arms_known(message.known)

    def arms_known(self, known: KnownArms) -> None:
        """Keep KNOWN as the workspace's arms and tell every screen built so far that offers arms."""
        self.view.known_arms = known
        for screen in self._installed_screens.values():
            changed = getattr(screen, "arms_changed", None)
            if isinstance(screen, Screen) and screen.is_mounted and changed is not None:
                changed()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR:
            self.worker_failed(self.screen, event.worker)

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
        rows = self.get_screen("rows")
        unsaved: list[str] = getattr(rows, "unsaved", list)()
        if unsaved:
            out.append(f"{len(unsaved)} unsaved draft(s): {', '.join(unsaved)}")
        for name, what in (("canary", "a canary"), ("batch", "a batch"), ("postinstall", "a post-install check")):
            screen = self._installed_screens.get(name)
            if isinstance(screen, Screen) and getattr(screen, "busy", False):
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
                for name in ("canary", "batch", "postinstall"):
                    screen = self._installed_screens.get(name)
                    stop = getattr(screen, "stop_work", None)
                    if isinstance(screen, Screen) and stop is not None:
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
        from workbench.tui.jobs import Draft
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

    async def promote(self, row_id: str, arm: str | None = None) -> None:
        """Open the batch screen set up for ROW: baseline vs ARM (default: the row's newest arm)."""
        from workbench.tui.screens.batch import BatchScreen

        await self.action_show("batch")
        screen = self.get_screen("batch")
        assert isinstance(screen, BatchScreen)
        screen.promote(row_id, arm)

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for name, (title, help_text) in SCREENS.items():
            yield SystemCommand(f"Go to {title}", help_text, lambda n=name: self.run_action(f"show('{n}')"))
        yield SystemCommand("Help", "keys of every screen", self.action_help)
        actions = {"rows": [("Run canary of the selected row's draft", "canary"),
                            ("Promote the selected row to a batch", "promote"), ("Save the draft as an arm", "save")],
                   "canary": [("Run canary", "run"), ("Cancel the canary", "cancel")],
                   "batch": [("Start the batch", "start"), ("Abort the batch", "abort")],
                   "records": [("Open the records files", "load")], "compare": [("Compare the arms", "compare")],
                   "postinstall": [("Run the post-install check", "run")]}
        for name, items in actions.items():
            if screen is self._installed_screens.get(name):
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
