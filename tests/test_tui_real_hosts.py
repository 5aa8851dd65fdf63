"""The TUI on real hosts: a canary of the draft on the real Claude Code CLI driven by a scripted model
(picked in the script field, as an offline self-check), the batch refusing a host with no login
(its reason in the form, in the TUI's own words), and the early stop on the first runs all invalid
for one reason (records made by the real runner)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import DataTable, Input, Select, Static, TextArea
from tui_support import linted, make_workspace, run_async, shown, wait_for

from workbench.core.cases import find_case
from workbench.runner.batch import EarlyStop
from workbench.runner.doors import EARLY_STOP
from workbench.runner.execute import execute
from workbench.runner.request import build_request
from workbench.tui.app import make_app
from workbench.tui.messages import BatchFinished, RunScored
from workbench.tui.screens.batch import BatchScreen
from workbench.tui.screens.canary import CanaryScreen
from workbench.tui.screentext import screen_text

ROOT = Path(__file__).resolve().parent.parent
NEW = "Before writing any documentation change"
SCRIPT = {"steps": [{"say": "Checking the docs procedure first.",
                     "calls": [{"read": "{plugin}/skills/ops/workflows/docs.md"}]},
                    {"calls": [{"edit": {"path": "{repo}/README.md", "old": "greeter", "new": "greeter (docs)"}}]},
                    {"say": "Done."}]}


@pytest.fixture
def hosts_dir(installed_hosts: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("WORKBENCH_HOSTS_DIR", str(installed_hosts))
    return installed_hosts


@run_async
async def test_canary_of_the_draft_on_claude_with_a_picked_script(tmp_path: Path, hosts_dir: Path) -> None:
    ws = make_workspace(tmp_path)
    (ws.canaries_dir / "docs-read-then-edit.json").write_text(json.dumps(SCRIPT), encoding="utf-8")
    app = make_app(ws)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        table = app.screen.query_one("#rows", DataTable)
        table.move_cursor(row=table.get_row_index("ops/docs"))
        await pilot.pause()
        editor = app.screen.query_one("#editor", TextArea)
        editor.load_text(editor.text.replace("Before editing documentation", NEW))
        await linted(pilot, app)
        await pilot.pause()
        await app.action_show("canary")
        canary = app.screen
        assert isinstance(canary, CanaryScreen)
        canary.query_one("#host", Select).value = "claude"
        canary.query_one("#script", Select).value = str(ws.canaries_dir / "docs-read-then-edit.json")
        await app.action_show("rows")
        table.focus()
        await pilot.press("c")
        await wait_for(pilot, app, "RunScored", cap=180)
        await pilot.pause(0.3)
        record = next(m for m in app.journal if isinstance(m, RunScored)).record
        text = screen_text(app)
    assert record.host == "claude" and record.model == "scripted" and record.arm == "draft", record
    assert record.valid, record.invalid_reason
    assert record.overall == "fired"
    assert "fired" in text and "claude" in text
    assert "Done." in text or "Checking the docs procedure" in text, "the model's text is on screen"


@run_async
async def test_a_batch_on_a_host_with_no_login_is_refused_in_the_form(tmp_path: Path, hosts_dir: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    app = make_app(make_workspace(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await shown(pilot, app, "batch", BatchScreen)
        screen.query_one("#confined").value = False  # type: ignore[attr-defined]
        screen.query_one("#hosts", Input).value = "claude"
        screen.query_one("#arm", Select).value = "baseline"
        await pilot.pause()
        await pilot.press("ctrl+r")
        await wait_for(pilot, app, "BatchFinished")
        await pilot.pause()
        status = str(screen.query_one("#batch-status", Static).render())
        assert "model" in status and "--model" not in status, status
        screen.query_one("#model", Input).value = "claude-sonnet-4-5"
        await pilot.pause()
        await pilot.press("ctrl+r")
        await wait_for(pilot, app, "BatchFinished", count=2)
        await pilot.pause()
        note = [m for m in app.journal if isinstance(m, BatchFinished)][-1].note
        status = str(screen.query_one("#batch-status", Static).render())
    assert "claude: no login found" in note and "no login found" in status
    assert not (app.view.ws.records_dir / "batch.jsonl").exists(), "nothing ran"


def test_the_first_runs_all_invalid_for_one_reason_stop_the_batch() -> None:
    case = find_case("docs-readme-section", ROOT / "cases")
    invalid = [execute(build_request(case, "sim", door="canary", plugin=ROOT / "plugin", no_output=True)).record
               for _ in range(EARLY_STOP)]
    assert all(not r.valid and r.invalid_reason == "no-output" for r in invalid)
    watch = EarlyStop(EARLY_STOP)
    assert [watch.watch(r) for r in invalid[:-1]] == [None] * (EARLY_STOP - 1), "fewer than EARLY_STOP never stop"
    stopped = watch.watch(invalid[-1])
    assert stopped is not None and f"first {EARLY_STOP} runs on sim were all invalid: no-output" in stopped
    valid = execute(build_request(case, "sim", door="canary", plugin=ROOT / "plugin")).record
    other = EarlyStop(EARLY_STOP)
    assert [other.watch(r) for r in [valid, *invalid[:-1]]] == [None] * EARLY_STOP, \
        "a valid run among the first ones: no early stop"
