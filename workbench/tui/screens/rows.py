"""Rows: the workspace's routing rows with lint/audit badges; edit a row's wording, save it as an arm.

Lint findings follow the editor as you type (the core's lint on the edited line); saving commits
ONLY that row's change on `workbench/arm/NAME` through the core's `create_arm`. `c` starts a
canary of the selected row's first positive case; `b` promotes the row to a batch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.markup import escape
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Footer, Header, Input, Label, Static, TextArea

from workbench.core.errors import InputError
from workbench.core.lint import Finding
from workbench.core.routing import Row, slug
from workbench.tui.data import lint_edit
from workbench.tui.messages import ArmCreated, ArmFailed, CanaryRequested
from workbench.tui.workers import ForwardsWorkerErrors

if TYPE_CHECKING:
    from workbench.tui.app import WorkbenchApp


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
    """Ask for the new arm's name."""

    BINDINGS = [Binding("escape", "dismiss(None)", "cancel")]

    def __init__(self, suggestion: str) -> None:
        super().__init__()
        self.suggestion = suggestion

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label("Save this wording as arm (a commit on workbench/arm/NAME):")
            yield Input(self.suggestion, id="arm-name")

    @on(Input.Submitted)
    def submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)


class RowsScreen(ForwardsWorkerErrors, Screen[None]):
    """Routing rows, the selected row's editor with live lint, and its arms."""

    BINDINGS = [
        Binding("c", "canary", "canary of row"),
        Binding("b", "promote", "promote to batch"),
        Binding("e", "edit", "edit row"),
        Binding("ctrl+s", "save", "save as arm"),
        Binding("escape", "leave_editor", "rows", show=False),
    ]

    app: WorkbenchApp

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal():
            yield DataTable(id="rows", cursor_type="row", zebra_stripes=True)
            with Vertical(id="row-detail"):
                yield Static("", id="row-info")
                yield TextArea("", id="editor", soft_wrap=True)
                yield Static("", id="findings")
                yield Static("", id="arms")
        yield Footer()

    def on_mount(self) -> None:
        self.title = "Rows"
        self.sub_title = self.app.workspace_label
        table = self.query_one("#rows", DataTable)
        table.add_columns("row", "when", "reads", "badges")
        self.fill()
        first = next((i for i, r in enumerate(self.app.view.rows) if self.app.view.first_positive(r.id)), 0)
        table.move_cursor(row=first)
        table.focus()

    def fill(self) -> None:
        view = self.app.view
        table = self.query_one("#rows", DataTable)
        table.clear()
        for row in view.rows:
            reads = ", ".join(link.target for link in row.links) or "-"
            table.add_row(row.id, row.trigger[:44], reads[:30],
                          badges(view.lint.get(row.id, []), view.audit.get(row.id, [])), key=row.id)
        if view.problems:
            self.notify("\n".join(view.problems), severity="error", timeout=10)

    @property
    def selected(self) -> Row | None:
        table = self.query_one("#rows", DataTable)
        if not table.row_count:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return self.app.view.row(str(key))

    @on(DataTable.RowHighlighted, "#rows")
    def highlighted(self) -> None:
        row = self.selected
        if row is None:
            return
        view = self.app.view
        where = f"{row.file.name if row.file else '?'}:{row.line}"
        case = view.first_positive(row.id)
        self.query_one("#row-info", Static).update(
            f"[b]{escape(row.id)}[/b] · {escape(where)} · {row.kind} · first positive case: "
            f"{escape(case.id) if case else '[red]none[/red]'}\n" +
            "".join(f"[red]{escape(f.rule)}[/red] {escape(f.message)}\n" for f in view.audit.get(row.id, [])))
        editor = self.query_one("#editor", TextArea)
        editor.load_text(row.text)
        self.call_after_refresh(self.show_arms, row)  # arms need GitPython: after the first paint

    def show_arms(self, row: Row) -> None:
        arms = self.app.view.arms_of(row.id)
        lines = [f"{escape(a.name)}  {escape(a.ref)}  {(a.sha or 'missing')[:10]}" for a in arms]
        self.query_one("#arms", Static).update("[b]arms of this row[/b]\n" + ("\n".join(lines) or "none yet"))

    @on(TextArea.Changed, "#editor")
    def edited(self) -> None:
        row = self.selected
        if row is None:
            return
        text = self.query_one("#editor", TextArea).text
        self.query_one("#findings", Static).update(describe(lint_edit(self.app.view, row, text)))

    def action_edit(self) -> None:
        self.query_one("#editor", TextArea).focus()

    def action_leave_editor(self) -> None:
        self.query_one("#rows", DataTable).focus()

    def action_canary(self) -> None:
        row = self.selected
        if row is not None:
            self.post_message(CanaryRequested(row.id))

    async def action_promote(self) -> None:
        row = self.selected
        if row is not None:
            await self.app.promote(row.id)

    def action_save(self) -> None:
        row = self.selected
        if row is None:
            return
        text = self.query_one("#editor", TextArea).text.strip("\n")
        if text == row.text:
            self.notify("the wording is unchanged: edit the row first (e)", severity="warning")
            return
        taken = {a.name for a in self.app.view.arms()}
        n = 1
        short = slug(row.id.split("/", 1)[-1])
        while f"{short}-{n}" in taken:
            n += 1

        def chosen(name: str | None) -> None:
            if name:
                self.save_arm(row.id, name, text)

        self.app.push_screen(ArmNameScreen(f"{short}-{n}"), chosen)

    @work(thread=True, exclusive=True, group="arm", exit_on_error=False)
    def save_arm(self, row_id: str, name: str, text: str) -> None:
        from workbench.authoring.arms import create_arm

        try:
            arm = create_arm(self.app.view.ws, row_id, name, text=text)
        except (InputError, ValueError, OSError) as exc:
            self.post_message(ArmFailed(str(exc)))
            return
        self.post_message(ArmCreated(arm))

    @on(ArmCreated)
    def arm_created(self, message: ArmCreated) -> None:
        self.notify(f"arm {message.arm.name} = {message.arm.ref} ({(message.arm.sha or '')[:10]})")
        row = self.selected
        if row is not None:
            self.show_arms(row)

    @on(ArmFailed)
    def arm_failed(self, message: ArmFailed) -> None:
        self.notify(message.error, severity="error", timeout=8)
