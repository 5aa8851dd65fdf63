"""The Tune screen through a Pilot: the weak release row on sim, reached from Rows with `t`, shows the
forecast and the candidates before launch, runs at the effort picked, and decides exactly what
`workbench tune --effort high --json` decides for the same workspace (the CLI then resumes from the
screen's records and runs nothing new: the doors agree on every run's key, its effort included). Snapshots
of the screen before launch at 80x24, 120x40 and 200x50."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_tui_snapshots import SIZES, check, settled
from test_tune import tune_cli, workspace
from textual.widgets import DataTable, Input, Select
from tui_support import run_async, wait_for

from workbench.core.records import load_file
from workbench.core.workspace import read_workspace
from workbench.tui.app import WorkbenchApp, make_app
from workbench.tui.screens.rows import RowsScreen
from workbench.tui.screens.tune import TuneScreen
from workbench.tui.screentext import screen_text


async def open_tune(pilot: object, app: WorkbenchApp, row_id: str) -> TuneScreen:
    """Select ROW_ID on Rows and press t, as a user does; the Tune screen's preview is read."""
    while app.view.known_arms is None:
        await pilot.pause(0.05)  # type: ignore[attr-defined]
    rows = app.screen
    assert isinstance(rows, RowsScreen)
    table = rows.query_one("#rows", DataTable)
    table.move_cursor(row=table.get_row_index(row_id))
    await pilot.pause()  # type: ignore[attr-defined]
    await pilot.press("t")  # type: ignore[attr-defined]
    await wait_for(pilot, app, "TuneForecast")
    screen = app.screen
    assert isinstance(screen, TuneScreen), screen
    return screen


@run_async
async def test_tune_screen_decides_what_the_cli_decides(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    ws = workspace(tmp_path, weak=True)
    app = make_app(read_workspace(ws / "workbench.toml"))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_tune(pilot, app, "ops/release")
        before = screen_text(app)
        assert "forecast:" in before and "Before tagging or shipping a release" in before
        assert not (ws / "records").exists()  # the preview ran nothing
        screen.query_one("#tn-effort", Select).value = "high"  # the picker, as on Canary and Batch
        await wait_for(pilot, app, "TuneForecast", count=2)
        await pilot.press("ctrl+r")
        await wait_for(pilot, app, "TuneFinished", cap=900)
        assert app.kinds().count("TuneProgressed") > 10  # the table and the bar moved as batches ran
        decision = screen.decision
        assert decision is not None and decision["winner"] is not None, app.kinds()[-5:]
        await pilot.pause(0.2)
        text = screen_text(app)
        winner = decision["winner"]
        assert f"WINNER: {winner['arm']} · {winner['trigger']}" in text
        hold = decision["holdout"]["hosts"]["sim"]
        assert f"candidate {hold['hits_candidate']}/{hold['pairs']} vs current {hold['hits_current']}/" in text
        assert "selection − held-back gap" in text
        table = screen.query_one("#tn-candidates", DataTable)
        shown = {str(r[3]): [str(x) for x in r] for r in (table.get_row_at(i) for i in range(table.row_count))}
        assert shown[winner["arm"]][4] == "decided better" and shown[winner["arm"]][5].startswith("negatives: ")
    # the CLI on the same workspace: nothing new to run, the same decision
    recorded = load_file(ws / "records" / "tune-ops-release.jsonl").records
    assert recorded and {r.effort for r in recorded} == {"high"}  # every run the tune made, as picked
    code, out, err = tune_cli(ws, capsys, monkeypatch, "release", "--effort", "high", "--json")
    cli = json.loads(out)
    assert code == 0, err
    assert cli["runs"] == 0  # the screen prepared exactly the CLI's runs, effort included: all were recorded
    assert cli["winner"] == decision["winner"]
    assert cli["holdout"] == decision["holdout"] and cli["negatives"] == decision["negatives"]
    assert cli["gap_points"] == decision["gap_points"] and cli["split"] == decision["split"]


@run_async
async def test_bad_form_is_one_line_naming_the_field(tmp_path: Path) -> None:
    ws = workspace(tmp_path, weak=True)
    app = make_app(read_workspace(ws / "workbench.toml"))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_tune(pilot, app, "ops/release")
        screen.query_one("#tn-budget", Input).value = "10"
        await wait_for(pilot, app, "TuneForecast", count=2)
        assert "--budget-runs 10 is too small to decide" in screen_text(app)
        screen.query_one("#tn-proposer", Input).value = "nohost"
        await wait_for(pilot, app, "TuneForecast", count=3)
        await pilot.press("ctrl+r")
        await wait_for(pilot, app, "TuneFinished")
        assert "not started: proposer: proposer 'nohost'" in screen_text(app)  # the field, not the CLI flag
        assert screen.decision is None
    assert not (ws / "records").exists() and not (ws / ".workbench").exists()


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@run_async
async def test_tune_screen_snapshots(tmp_path: Path, size: tuple[int, int]) -> None:
    ws = workspace(tmp_path, weak=True)
    app = make_app(read_workspace(ws / "workbench.toml"))
    async with app.run_test(size=size) as pilot:
        screen = await open_tune(pilot, app, "ops/release")
        table = screen.query_one("#tn-candidates", DataTable)
        for _ in range(600):  # the preview's two rule candidates are in the table, and measured (on idle)
            if table.row_count == 2 and table.ordered_columns[0].content_width > len("trigger"):
                break
            await pilot.pause(0.05)
        text = await settled(pilot, app)
        lines = text.split("\n")
        assert len(lines) == size[1]
        for essential in ("hosts", "proposer", "effort", "default", "run budget", "typed wordings", "forecast:",
                          "candidates", "Before tagging", "rules", "ctrl+r", "your login's"):
            assert essential in text, f"{essential!r} not on screen at {size}:\n{text}"
        check(f"tune-{size[0]}x{size[1]}", text)
