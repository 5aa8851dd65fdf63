"""Compare's `h` writes the HTML report of the records and arms on screen, the very page `workbench report`
writes for them; after a run the keys go somewhere useful at 80x24 (the calls, the results, or the field an
error names), never nowhere."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, Input, Select, Static
from tui_support import make_workspace, run_async, shown, wait_for

from workbench.cli import main
from workbench.core.models import Call, RunRecord
from workbench.core.records import append_record
from workbench.modelstub import parse_script
from workbench.tui.app import make_app
from workbench.tui.messages import ReportWritten
from workbench.tui.screens.batch import BatchScreen
from workbench.tui.screens.canary import CanaryScreen
from workbench.tui.screens.compare import CompareScreen
from workbench.tui.widgets.callpane import CallPane


def two_arms(path: Path) -> None:
    """Records of two arms on one case, written by the core's own record writer."""
    for arm, hits in (("baseline", [True, False, False]), ("weak", [False, False, True])):
        for run, hit in enumerate(hits):
            calls = [Call(index=0, tool="Read", kind="read", path="<repo>/plugin/skills/ops/workflows/docs.md"),
                     Call(index=1, tool="Edit", kind="edit", path="<repo>/README.md")]
            append_record(path, RunRecord(condition="unconfined", host="sim", model="sim-policy", arm=arm,
                                          case_id="docs-readme-section", target="docs", kind="positive", run=run,
                                          calls=calls if hit else calls[1:], moment="edit",
                                          required=["workflows/docs.md"], moment_at=1 if hit else 0,
                                          overall="fired" if hit else "skip",
                                          verdict={"docs.md": "fired" if hit else "skip"}))


@run_async
async def test_h_writes_the_report_the_cli_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    ws = make_workspace(tmp_path)
    ws.records_dir.mkdir()
    batch = ws.records_dir / "batch.jsonl"
    two_arms(batch)
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    app = make_app(ws)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await shown(pilot, app, "compare", CompareScreen)
        await wait_for(pilot, app, "ComparisonRead")
        await pilot.pause()
        a, b = screen.query_one("#arm-a", Select).value, screen.query_one("#arm-b", Select).value
        files = screen.query_one("#files", Input).value
        await pilot.press("h")
        await wait_for(pilot, app, "ReportWritten")
        await pilot.pause()
        written = next(m for m in app.journal if isinstance(m, ReportWritten))
        status = str(screen.query_one("#report-status", Static).render())
    assert written.error is None and written.runs == 6 and not written.opened
    assert f"report: {written.path} (6 runs) · open it in a browser" in " ".join(status.split())
    out = tmp_path / "cli.html"
    monkeypatch.chdir(ws.root)
    assert main(["report", *files.split(","), "-o", str(out), "--compare", f"{a},{b}", "--lenient"]) == 0
    tui = Path(written.path).read_text(encoding="utf-8")
    assert tui == out.read_text(encoding="utf-8"), "the same page from both doors"
    assert "--compare" in tui and "Comparisons" in tui


SAY = {"steps": [{"calls": [{"read": "{repo}/README.md"}]},
                 {"calls": [{"edit": {"path": "{repo}/README.md", "old": "greeter", "new": "greeter!"}}]}]}


@pytest.mark.bwrap
@run_async
async def test_after_a_canary_the_calls_have_the_keys_and_after_an_error_the_named_field(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    (ws.canaries_dir / "broken.json").write_text('{"steps": [', encoding="utf-8")
    app = make_app(ws)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await shown(pilot, app, "canary", CanaryScreen)
        screen.query_one("#case", Select).value = "docs-readme-section"
        screen.script = parse_script(SAY)
        await pilot.pause()
        await pilot.press("ctrl+r")
        await wait_for(pilot, app, "RunScored")
        await pilot.pause()
        pane = screen.query_one(CallPane)
        assert app.focused is pane, app.focused
        before = pane.cursor
        await pilot.press("down")
        assert pane.cursor != before or len(pane.keys) <= 1, "down walks the calls with no Tab first"
        screen.script = None
        screen.query_one("#script", Select).value = str(ws.canaries_dir / "broken.json")
        await pilot.pause()
        screen.set_focus(None)
        await pilot.press("ctrl+r")
        await wait_for(pilot, app, "RunFailed")
        await pilot.pause()
        error = str(screen.query_one("#canary-status", Static).render())
        focused, field = app.focused, screen.query_one("#script", Select)
    assert "could not run" in error and "broken.json" in error and "script field" in error, error
    assert focused is field, focused


@pytest.mark.bwrap
@run_async
async def test_after_a_batch_the_results_have_the_keys(tmp_path: Path) -> None:
    app = make_app(make_workspace(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await shown(pilot, app, "batch", BatchScreen)
        screen.query_one("#runs", Input).value = "1"
        screen.query_one("#confined", expect_type=None).value = False  # type: ignore[attr-defined]
        await pilot.pause()
        screen.query_one("#hosts", Input).value = ""
        await pilot.pause()
        screen.set_focus(None)
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert app.focused is screen.query_one("#hosts", Input), "the refused field has the keys"
        screen.query_one("#hosts", Input).value = "sim"
        screen.script = parse_script(SAY)
        await pilot.pause()
        screen.set_focus(None)
        await pilot.press("ctrl+r")
        await wait_for(pilot, app, "BatchFinished", cap=300)
        await pilot.pause()
        assert app.focused is screen.query_one("#batch-results", DataTable), app.focused
