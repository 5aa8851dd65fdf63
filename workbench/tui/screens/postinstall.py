"""Post-install check: one run against the user's LIVE install (real HOME and config), with the guard.

The run is the batch issue's `run_live`; it has no live event hook, so its calls appear in the
same call pane when the run ends, with the guard's result beside the verdict.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.markup import escape
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, Header, Input, Select, Static

from workbench.core.errors import InputError
from workbench.core.runstate import RunState
from workbench.tui.messages import RunFailed, RunScored
from workbench.tui.screens.canary import HOSTS
from workbench.tui.widgets.callpane import CallPane

if TYPE_CHECKING:
    from workbench.tui.app import WorkbenchApp


class PostinstallScreen(Screen[None]):
    """Pick a host (and model), run the post-install canary on the live install, see calls and guard."""

    BINDINGS = [Binding("ctrl+r", "run", "run check")]

    app: WorkbenchApp

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(classes="form"):
            yield Select([(h, h) for h in HOSTS], value="sim", allow_blank=False, id="pi-host")
            yield Input(placeholder="model (real hosts: your login)", id="pi-model")
            yield Input(placeholder="case file or id", id="pi-case")
        yield Static("runs against your REAL home and config; the guard reports any change outside the run. "
                     "ctrl+r runs.", id="canary-status")
        yield CallPane(id="pane")
        yield Static("", id="verdict")
        yield Footer()

    def on_mount(self) -> None:
        from workbench.commands.postinstall import DEFAULT_CASE

        self.title = "Post-install check"
        self.sub_title = self.app.workspace_label
        self.query_one("#pi-case", Input).value = str(self.app.view.ws.root / DEFAULT_CASE)

    def action_run(self) -> None:
        self.query_one("#canary-status", Static).update("running on the live install …")
        self.run_check(str(self.query_one("#pi-host", Select).value),
                       self.query_one("#pi-model", Input).value.strip() or None,
                       self.query_one("#pi-case", Input).value.strip())

    @work(thread=True, exclusive=True, group="postinstall", exit_on_error=False)
    def run_check(self, host: str, model: str | None, case_ref: str) -> None:
        from workbench.commands.postinstall import run_live
        from workbench.core.cases import find_case

        ws = self.app.view.ws
        try:
            if host != "sim" and model is None:
                raise InputError(f"{host} needs a model (your login)", field="model")
            case = find_case(case_ref, ws.cases_dir)
            record_path = ws.records_dir / "live-install.jsonl"
            record_path.parent.mkdir(parents=True, exist_ok=True)
            result = run_live(case, host, home=Path.home(), plugin=ws.plugin_dir, guarded=[ws.root, ws.plugin_dir],
                              record_path=record_path, fixture=ws.base_fixture if ws.base_fixture.is_dir() else None,
                              model=model)
        except (InputError, OSError, ValueError) as exc:
            self.post_message(RunFailed(0, str(exc)))
            return
        guard = "guard: no change outside the run" if not result.changes else "guard: " + "; ".join(result.changes)
        self.post_message(RunScored(0, result.record, str(record_path), guard))

    @on(RunScored)
    def scored(self, message: RunScored) -> None:
        r = message.record
        state = RunState.from_calls(r.calls, kind=r.kind, required=list(r.required), moment=r.moment or "edit")
        pane = self.query_one(CallPane)
        pane.reset(state)
        pane.flush(complete=True)
        gate = "" if r.valid else f" [red](INVALID: {escape(r.invalid_reason or '')})[/red]"
        self.query_one("#verdict", Static).update(f"[b]{escape(state.verdict_line(final=True))}[/b]   verdict: "
                                                  f"[reverse b] {r.overall} [/]{gate}")
        colour = "green" if not message.note.startswith("guard: ") or "no change" in message.note else "red"
        self.query_one("#canary-status", Static).update(f"[{colour}]{escape(message.note)}[/{colour}] · recorded in "
                                                        f"{escape(message.path)}")

    @on(RunFailed)
    def failed(self, message: RunFailed) -> None:
        self.query_one("#canary-status", Static).update(f"[red]could not run: {escape(message.error)}[/red]")
