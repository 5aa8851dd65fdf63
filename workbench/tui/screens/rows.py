"""Rows: the workspace's routing rows with lint/audit badges; edit a row's wording, save it as an arm.

Lint findings follow the editor as you type (the core's lint on the edited line, dangling links
included). Each row keeps its own unsaved draft while the cursor moves (marked `●` in the table).
`c` runs a canary of the draft (the wording being edited, applied in the run's plugin copy only);
`b` promotes the row to a batch (an unsaved draft is saved as an arm first). Saving commits ONLY
that row's change on `workbench/arm/NAME` through the core's `create_arm`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePosixPath

from rich.markup import escape
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Footer, Header, Input, Label, Static, TextArea

from workbench.core.arms import BASELINE, Arm, check_arm_name
from workbench.core.audit import BROKEN_LINK_RULES
from workbench.core.errors import InputError
from workbench.core.lint import Finding
from workbench.core.routing import Row, slug
from workbench.core.rowsearch import search_line, search_rows
from workbench.tui.data import WorkspaceView, arm_row_texts, lint_edit, read_arms
from workbench.tui.fields import in_fields
from workbench.tui.fit import clip
from workbench.tui.keys import ActsNow
from workbench.tui.messages import (
    ArmCreated,
    ArmFailed,
    ArmRowRead,
    ArmsRead,
    CanaryRequested,
    EditLinted,
    PromoteRequested,
    TuneRequested,
    WorkspaceRead,
)
from workbench.tui.screens.confirm import ConfirmScreen
from workbench.tui.widgets.table import Table
from workbench.tui.workers import ForwardsWorkerErrors


def badges(lint: list[Finding], audit: list[Finding]) -> str:
    """`lint 2 · audit 1`, or `ok`."""
    parts = [f"lint {len(lint)}"] * bool(lint) + [f"audit {len(audit)}"] * bool(audit)
    return " · ".join(parts) or "ok"


def describe(findings: list[Finding] | None) -> str:
    if findings is None:
        return "[red]this line is no routing row any more (no link found)[/red]"
    if not findings:
        return "[green]lint: clean[/green]"
    return "\n".join(f"[yellow]{escape(f.rule)}[/yellow] {escape(f.message)}" for f in findings)


class ArmNameScreen(ModalScreen[str | None]):
    """Ask for the new arm's name; a name already taken is refused here, in the dialog."""

    BINDINGS = [Binding("escape", "dismiss(None)", "cancel")]

    def __init__(self, suggestion: str, taken: set[str] | None = None) -> None:
        super().__init__()
        self.suggestion = suggestion
        self.taken = taken or set()

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label("Save this wording as arm (a commit on workbench/arm/NAME):")
            yield Input(self.suggestion, id="arm-name")
            yield Static("enter saves · escape cancels", id="arm-name-note")

    @on(Input.Submitted)
    def submitted(self, event: Input.Submitted) -> None:
        name = event.value.strip()
        if name and self.refused(name):
            return
        if name in self.taken:
            self.query_one("#arm-name-note", Static).update(
                f"[red]an arm named {escape(name)} exists: type another name[/red]")
            return
        self.dismiss(name or None)


    def refused(self, name: str) -> bool:
        """Whether NAME is no valid arm name; the dialog then says why, in its own words (no flag)."""
        try:
            check_arm_name(name)
        except InputError as exc:
            self.query_one("#arm-name-note", Static).update(f"[red]{escape(exc.message)}: type another name[/red]")
            return True
        return False


class RowsScreen(ActsNow, ForwardsWorkerErrors, Screen[None]):
    """Routing rows, the selected row's editor with live lint, and its arms."""

    BINDINGS = [
        Binding("c", "canary", "canary"),
        Binding("b", "promote", "batch"),
        Binding("e", "edit", "edit"),
        Binding("d", "diff", "diff", show=False),  # the 80-column footer is full; help lists it
        Binding("ctrl+s", "save", "save arm"),
        Binding("ctrl+z", "revert", "drop draft", show=False),
        Binding("t", "tune", "tune", show=False),  # the 80-column footer is full; the palette offers it
        Binding("slash", "search", "search", show=False),
        Binding("o", "open_editor('row')", "$EDITOR", show=False),  # help and the palette list them
        Binding("p", "open_editor('procedures')", "$EDITOR procedures", show=False),
        Binding("escape", "leave_editor", "rows", show=False),
    ]

    def __init__(self, view: WorkspaceView, label: str = "") -> None:
        super().__init__()
        self.view = view
        """The workspace as the app read it (passed down; the screen never reaches into the app)."""
        self.label = label
        self.drafts: dict[str, str] = {}
        """Row id -> its edited wording, kept while the cursor moves (only rows whose text differs)."""
        self.saved: dict[str, str] = {}
        """Row id -> the arm its current draft was saved as (a saved draft is no longer unsaved)."""
        self.findings: dict[str, list[Finding] | None] = {}
        """Row id -> lint findings of its draft (dangling links included), as a worker read them."""
        self.wanted: dict[str, str] = {}
        """Row id -> the editor text last sent to the lint worker; `linted` the text `findings` are of."""
        self.linted: dict[str, str] = {}
        self.after_lint: tuple[str, Callable[[], object]] | None = None
        """A key (`c`, `ctrl+s`) pressed before its wording's lint arrived: run once it has."""
        self.searched_for = ""
        """The search the table shows the rows of."""
        self.showing: str | None = None
        """The row whose wording the editor holds: a late highlight of that row never reloads it."""

    def unsaved(self) -> list[str]:
        """Rows whose draft is not saved as an arm."""
        return [r for r in self.drafts if r not in self.saved]

    def draft_of(self, row_id: str) -> str | None:
        """The row's draft wording, None when it has none (the row's own text runs)."""
        return self.drafts.get(row_id)

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="rows-body"):
            with Vertical(id="rows-side"):
                with Horizontal(id="row-search-bar"):
                    yield Input(placeholder="/ search rows: id, wording, files", id="row-search")
                    yield Static("", id="row-count")
                yield Table(id="rows", cursor_type="row", zebra_stripes=True)
            with Vertical(id="row-detail"):
                yield Static("", id="row-info")
                yield TextArea("", id="editor", soft_wrap=True)
                yield Static("", id="findings")
                yield Static("", id="arms")
        yield Footer()

    def on_mount(self) -> None:
        self.title = "Rows"
        self.sub_title = self.label
        table = self.query_one("#rows", DataTable)
        table.add_column(" ", key="mark", width=1)
        table.add_column("row", key="row")
        table.add_column("when", key="when")
        table.add_column("reads", key="reads")
        table.add_column("badges", key="badges")
        self.fill()
        first = next((i for i, r in enumerate(self.view.rows) if self.view.first_positive(r.id)), 0)
        table.move_cursor(row=first)
        self.highlighted()  # the editor holds the row before the first paint, not after a queued message
        table.focus()

    def fill(self) -> None:
        """The rows the search finds (all for a blank one), the cursor kept on the row it was on while
        that row is shown."""
        view = self.view
        table = self.query_one("#rows", DataTable)
        was = self.selected
        query = self.searched_for = self.query_one("#row-search", Input).value
        found = search_rows(view.rows, query)
        table.clear()
        cols = self.app.size.width
        room = (cols if cols < 140 else cols * 3 // 5) - 44  # the table's width minus row, badges, padding
        reads_width = max(12, room * 9 // 20)
        when = max(16, room - reads_width)
        for row in found:
            reads = ", ".join(link.target for link in row.links) or "-"
            if len(reads) > reads_width:  # the file names alone, when the paths do not fit
                reads = ", ".join(PurePosixPath(link.target).name for link in row.links)
            table.add_row(self.mark(row.id), row.id, clip(row.trigger, when), clip(reads, reads_width),
                          badges(view.lint.get(row.id, []), view.audit.get(row.id, [])), key=row.id)
        self.query_one("#row-count", Static).update(search_line(found, view.rows, query))
        if was is not None and was.id in table.rows:
            table.move_cursor(row=table.get_row_index(was.id))
        if view.problems:
            self.notify("\n".join(view.problems), severity="error", timeout=10)

    @on(Input.Changed, "#row-search")
    def searched(self, event: Input.Changed) -> None:
        """The table shows the rows the search finds; nothing else acts while it is typed in (a Changed
        that changed nothing, as on mount, leaves the table alone)."""
        if event.value != self.searched_for:
            self.fill()

    @on(Input.Submitted, "#row-search")
    def search_done(self) -> None:
        self.query_one("#rows", DataTable).focus()

    def action_search(self) -> None:
        self.query_one("#row-search", Input).focus()

    def ready(self, action: str) -> bool:
        """While the search field has focus only escape acts (no save, no drop: keys go to the field)."""
        return action == "leave_editor" or not self.query_one("#row-search", Input).has_focus

    def mark(self, row_id: str) -> str:
        """`●` an unsaved draft, `✓` a draft saved as an arm, blank: no draft."""
        if row_id not in self.drafts:
            return ""
        return "✓" if row_id in self.saved else "●"

    def remark(self, row_id: str) -> None:
        table = self.query_one("#rows", DataTable)
        if row_id in table.rows:
            table.update_cell(row_id, "mark", self.mark(row_id))

    @property
    def selected(self) -> Row | None:
        table = self.query_one("#rows", DataTable)
        if not table.row_count:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return self.view.row(str(key))

    @on(DataTable.RowHighlighted, "#rows")
    def highlighted(self) -> None:
        row = self.selected
        if row is None:
            return
        view = self.view
        where = f"{row.file.name if row.file else '?'}:{row.line}"
        case = view.first_positive(row.id)
        self.query_one("#row-info", Static).update(
            f"[b]{escape(row.id)}[/b] · {escape(where)} · {row.kind} · first positive case: "
            f"{escape(case.id) if case else '[red]none[/red]'}\n" +
            "".join(f"[red]{escape(f.rule)}[/red] {escape(f.message)}\n" for f in view.audit.get(row.id, [])))
        self.load_editor(row)
        self.show_state(row)
        self.show_arms(row)

    def load_editor(self, row: Row) -> None:
        """Put ROW's draft (or its own text) in the editor, unless the editor already holds ROW: keys
        typed there may still have their Changed message queued, and reloading would drop them."""
        if self.showing == row.id:
            return
        self.showing = row.id
        editor = self.query_one("#editor", TextArea)
        text = self.drafts.get(row.id, row.text)
        if editor.text != text:
            editor.load_text(text)

    def wording(self, row: Row) -> str:
        """ROW's wording now, as `c`, `d` and `ctrl+s` act on it: its draft or its own text, once a
        keystroke whose Changed is still queued has been taken in (`catch_up`)."""
        self.catch_up()
        return self.drafts.get(row.id, row.text)

    def catch_up(self) -> None:
        """Handle the editor's text now when its Changed message is still queued (a key pressed right
        after typing, under load): the row it shows gets its draft and lint as `edited` would give."""
        row = self.view.row(self.showing) if self.showing is not None else None
        if row is not None and self.query_one("#editor", TextArea).text != self.wanted.get(
                row.id, self.drafts.get(row.id, row.text)):
            self.edited()

    def show_state(self, row: Row) -> None:
        """The editor's border says whether the wording is the row's own, an unsaved draft, or saved."""
        editor = self.query_one("#editor", TextArea)
        if row.id not in self.drafts:
            editor.border_title = "wording (as in the file)"
        elif row.id in self.saved:
            editor.border_title = f"draft saved as arm {self.saved[row.id]}"
        else:
            editor.border_title = "● modified: unsaved draft (ctrl+s saves · esc, then c runs it · ctrl+z drops it)"
        editor.set_class(row.id in self.unsaved(), "modified")

    def show_arms(self, row: Row) -> None:
        arms = self.view.arms_of(row.id)
        lines = [f"{escape(a.name)}  {escape(a.ref)}  {(a.sha or 'missing')[:10]}" for a in arms]
        self.query_one("#arms", Static).update("[b]arms of this row[/b]\n" + ("\n".join(lines) or "none yet"))

    @on(TextArea.Changed, "#editor")
    def edited(self) -> None:
        """The editor's text is the wording of the row it SHOWS: under load its Changed message can come
        after the cursor already moved on, and the cursor's row must not take that text as a draft."""
        row = self.view.row(self.showing) if self.showing is not None else None
        if row is None:
            return
        text = self.query_one("#editor", TextArea).text
        wording = text.strip("\n")
        if wording != row.text and self.drafts.get(row.id) != text:
            self.drafts[row.id] = text
            self.saved.pop(row.id, None)
        elif wording == row.text:
            self.drafts.pop(row.id, None)
            self.saved.pop(row.id, None)
        self.wanted[row.id] = text
        self.run_worker(lambda: self.lint_job(row, text), thread=True, exclusive=True, group=f"lint:{row.id}",
                        exit_on_error=False)  # per row: a newer keystroke of the row replaces it, no other row's
        self.remark(row.id)
        self.show_state(row)

    def lint_job(self, row: Row, text: str) -> None:
        """The editor's wording linted in a worker thread (the row's file and its links are on disk); it
        always answers, so a key waiting for it (`lint_pending`) never waits forever."""
        try:
            findings = lint_edit(self.view, row, text)
        except (OSError, InputError) as exc:
            findings = [Finding("unreadable", "error", str(exc), row.file, row.line, row.id)]
        self.post_message(EditLinted(row.id, text, findings))

    @on(EditLinted)
    def edit_linted(self, message: EditLinted) -> None:
        if self.wanted.get(message.row_id) != message.text:
            return  # an older keystroke's lint
        self.findings[message.row_id] = message.findings
        self.linted[message.row_id] = message.text
        row = self.selected
        if row is not None and row.id == message.row_id:
            self.query_one("#findings", Static).update(describe(message.findings))
        if self.after_lint is not None and self.after_lint[0] == message.row_id:
            _, action = self.after_lint
            self.after_lint = None
            if row is not None and row.id == message.row_id:  # still on that row: the key acts now
                action()

    def lint_pending(self, row: Row, action: Callable[[], object]) -> bool:
        """True when ROW's wording has not been linted yet: ACTION runs once it is (its DANGLING and
        UNSHIPPED checks must see the wording as it is now)."""
        if row.id in self.wanted and self.linted.get(row.id) != self.wanted[row.id]:
            self.after_lint = (row.id, action)
            return True
        return False

    def action_revert(self) -> None:
        """Drop the selected row's draft, once confirmed: the editor shows the row's text again."""
        row = self.selected
        if row is not None and row.id in self.drafts:
            def drop(yes: bool | None) -> None:
                if yes:
                    self.drop_draft(row)

            self.app.push_screen(ConfirmScreen(f"Drop the draft of {row.id}? Its wording is lost."), drop)

    def drop_draft(self, row: Row) -> None:
        if row.id in self.drafts:
            self.drafts.pop(row.id)
            self.saved.pop(row.id, None)
            self.query_one("#editor", TextArea).load_text(row.text)
            self.remark(row.id)
            self.show_state(row)

    def action_diff(self) -> None:
        """The selected row's draft against its baseline wording, word by word (no colour needed); a row
        with no draft but an arm: that arm's wording (its commit, read from git in a worker)."""
        from workbench.tui.screens.diff import DiffScreen

        row = self.selected
        if row is None:
            return
        draft = self.wording(row).strip("\n")
        arms = [a for a in self.view.arms_of(row.id) if a.name != BASELINE and a.sha]
        if row.id not in self.drafts and arms:
            self.arm_row_job(row.id, arms[-1])
            return
        self.app.push_screen(DiffScreen(f"{row.id}: baseline → {'draft' if row.id in self.drafts else 'file'}",
                                        row.text, draft))

    @work(thread=True, exclusive=True, group="arm-diff", exit_on_error=False)
    def arm_row_job(self, row_id: str, arm: Arm) -> None:
        """The row's wording in the baseline and in ARM, from git (never on the UI thread)."""
        try:
            baseline, text = arm_row_texts(self.view.ws, arm, row_id)
        except InputError as exc:
            self.post_message(ArmRowRead(row_id, arm.name, error=exc.message))
            return
        self.post_message(ArmRowRead(row_id, arm.name, baseline, text))

    @on(ArmRowRead)
    def arm_row_read(self, message: ArmRowRead) -> None:
        from workbench.tui.screens.diff import DiffScreen

        if message.error is not None:
            self.notify(message.error, severity="warning")
            return
        self.app.push_screen(DiffScreen(f"{message.row_id}: baseline → arm {message.arm}", message.baseline,
                                        message.text, same="no change: the arm's wording is the baseline's"))

    def broken_links(self, row_id: str) -> list[Finding]:
        """ROW_ID's findings of a link that reaches no procedure once installed (DANGLING, UNSHIPPED, STUB)."""
        return [f for f in self.findings.get(row_id) or [] if f.rule in BROKEN_LINK_RULES]

    def action_edit(self) -> None:
        self.query_one("#editor", TextArea).focus()

    def action_leave_editor(self) -> None:
        self.query_one("#rows", DataTable).focus()

    def action_canary(self) -> None:
        row = self.selected
        if row is not None:
            wording = self.wording(row)
            if self.lint_pending(row, self.action_canary):
                return
            draft = wording if row.id in self.drafts else None
            text = draft.strip("\n") if draft is not None else None

            def run(yes: bool | None = True) -> None:
                if yes:
                    self.post_message(CanaryRequested(row.id, text))

            dangling = self.broken_links(row.id) if draft else []
            if not dangling:
                run()
                return
            self.app.push_screen(ConfirmScreen("This draft links a file the installed plugin will not have:\n"
                                               + "\n".join(f"  {f.message}" for f in dangling)
                                               + "\nRun the canary anyway?"), run)

    async def action_promote(self) -> None:
        """Batch of baseline vs this row's wording: an unsaved draft is saved as an arm first (its name
        asked), a saved draft's arm is used; a row with no arm and no draft says so."""
        row = self.selected
        if row is None:
            return
        self.catch_up()
        if row.id in self.unsaved():
            self.action_save(promote=True)
        elif row.id in self.saved:
            self.post_message(PromoteRequested(row.id, self.saved[row.id]))
        else:
            self.post_message(PromoteRequested(row.id))

    def action_save(self, promote: bool = False) -> None:
        row = self.selected
        if row is None:
            return
        text = self.wording(row).strip("\n")
        if self.lint_pending(row, lambda: self.action_save(promote)):
            return
        if text == row.text:
            self.notify("the wording is unchanged: edit the row first (e)", severity="warning")
            return
        taken = {a.name for a in self.view.arms()}
        n = 1
        short = slug(row.id.split("/", 1)[-1])
        while f"{short}-{n}" in taken:
            n += 1

        def chosen(name: str | None) -> None:
            if name:
                self.save_arm(row.id, name, text, promote)

        def ask_name(go: bool | None = True) -> None:
            if go:
                self.app.push_screen(ArmNameScreen(f"{short}-{n}", taken), chosen)

        dangling = self.broken_links(row.id)
        if dangling:
            self.app.push_screen(ConfirmScreen("This wording links a file the installed plugin will not have:\n"
                                               + "\n".join(f"  {f.message}" for f in dangling)
                                               + "\nSave it as an arm anyway?"), ask_name)
        else:
            ask_name()

    @work(thread=True, exclusive=True, group="arm", exit_on_error=False)
    def save_arm(self, row_id: str, name: str, text: str, promote: bool = False) -> None:
        from workbench.authoring.arms import create_arm

        try:
            arm = create_arm(self.view.ws, row_id, name, text=text)
        except (InputError, ValueError, OSError) as exc:
            self.post_message(ArmFailed(in_fields(str(exc).replace("; pass --force to replace it", ": pick another name"))))
            return
        self.post_message(ArmCreated(arm, read_arms(self.view.ws), row_id, promote))

    def arms_changed(self) -> None:
        """The workspace's arms were read again (`WorkbenchApp.arms_known`)."""
        row = self.selected
        if row is not None:
            self.show_arms(row)

    @on(ArmCreated)
    async def arm_created(self, message: ArmCreated) -> None:
        self.post_message(ArmsRead(message.known))  # up to the app, which tells every screen
        self.notify(f"arm {message.arm.name} = {message.arm.ref} ({(message.arm.sha or '')[:10]})")
        if message.row_id is not None and message.row_id in self.drafts:
            self.saved[message.row_id] = message.arm.name
            self.remark(message.row_id)
        row = self.selected
        if row is not None:
            self.show_state(row)
        if message.promote and message.row_id is not None:
            self.post_message(PromoteRequested(message.row_id, message.arm.name))

    @on(ArmFailed)
    def arm_failed(self, message: ArmFailed) -> None:
        self.notify(message.error, severity="error", timeout=8)

    def action_open_editor(self, what: str) -> None:
        """The user's $VISUAL/$EDITOR on the selected row's file at its line (`row`) or on the procedures it
        links (`procedures`; a missing one is created by the editor, as the user writes it). The editor
        has the terminal until it exits; the workspace is then read again in a worker, lint included."""
        import os
        import subprocess

        from textual.app import SuspendNotSupported

        from workbench.tui.editor import editor_argv, editor_command

        row = self.selected
        if row is None or row.file is None:
            return
        command = editor_command(os.environ)
        if command is None:
            self.notify("set $VISUAL or $EDITOR to open files from here", severity="warning")
            return
        files, line = ([row.file], row.line) if what == "row" else ([link.path for link in row.links], None)
        if not files:
            self.notify(f"row {row.id} links no procedure", severity="warning")
            return
        try:
            with self.app.suspend():
                subprocess.run(editor_argv(command, files, line), check=False)
        except SuspendNotSupported:
            self.notify("this terminal cannot be handed to an editor", severity="error")
            return
        except OSError as exc:
            self.notify(f"cannot start {command[0]}: {exc.strerror or exc}", severity="error")
            return
        self.reload_job()

    @work(thread=True, exclusive=True, group="reload", exit_on_error=False)
    def reload_job(self) -> None:
        """The workspace read again (rows, lint, audit, cases, scripts), for the app to hand to every screen."""
        self.post_message(WorkspaceRead(WorkspaceView.load(self.view.ws)))

    def view_changed(self) -> None:
        """The workspace was read again (`WorkbenchApp.workspace_read`): the table, the row in the editor
        and its lint are the files' now; a draft the file now says is no draft any more."""
        for row_id, text in list(self.drafts.items()):
            row = self.view.row(row_id)
            if row is None or text.strip("\n") == row.text:
                self.drafts.pop(row_id)
                self.saved.pop(row_id, None)
        self.showing = None
        self.fill()
        self.highlighted()
        self.edited()

    def action_tune(self) -> None:
        """Tune the selected row: its candidates as arms, kept only when held-back cases confirm."""
        row = self.selected
        if row is not None:
            self.post_message(TuneRequested(row.id))
