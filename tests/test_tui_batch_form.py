"""Pilot: the Batch form's numbers are read strictly ("2.5" and "1e2" refused naming the field, never
25 or 12), the runner's caps are in the form, a large plan asks before it starts, `x` during start-up
stops the batch before any run, the results table has one row per host, and the one estimate (the CLI's
forecast) prices a scripted plan at 0."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, Input, Select, SelectionList, Static
from tui_support import make_workspace, run_async, shown, until, wait_for

from workbench.authoring.arms import create_arm
from workbench.core.records import load_file
from workbench.tui.app import WorkbenchApp, make_app
from workbench.tui.screens.batch import BatchScreen
from workbench.tui.screens.confirm import ConfirmScreen

CASE = "docs-readme-section"


@pytest.fixture
def hosts_dir(installed_hosts: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("WORKBENCH_HOSTS_DIR", str(installed_hosts))
    return installed_hosts


async def batch_form(pilot: object, app: WorkbenchApp, hosts: str = "sim") -> BatchScreen:
    screen = await shown(pilot, app, "batch", BatchScreen)
    screen.query_one("#confined").value = False  # type: ignore[attr-defined]
    screen.query_one("#hosts", Input).value = hosts
    screen.query_one("#jobs", Input).value = "1"
    screen.query_one("#baseline", Select).value = "baseline"
    screen.query_one("#arm", Select).value = "docs-weak"
    cases = screen.query_one("#cases", SelectionList)
    cases.deselect_all()
    cases.select(CASE)
    return screen


def text(screen: BatchScreen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


@run_async
async def test_runs_typed_as_a_fraction_or_exponent_is_refused_naming_the_field(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    create_arm(ws, "docs", "docs-weak", trigger="Documentation")
    app = make_app(ws)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await batch_form(pilot, app)
        runs = screen.query_one("#runs", Input)
        assert "1000" in str(runs.border_title), runs.border_title  # the runner's cap, in the form
        for typed in ("2.5", "1e2"):
            runs.value = ""
            runs.focus()
            await pilot.press(*typed)
            await pilot.pause()
            assert runs.value == typed, runs.value  # kept as typed, never 25 or 12
            assert f"runs: '{typed}' is not a whole number" in text(screen, "#estimate"), text(screen, "#estimate")
            screen.set_focus(None)
            await pilot.press("ctrl+r")
            await pilot.pause()
            assert "not started: runs:" in text(screen, "#batch-status"), text(screen, "#batch-status")
        runs.value = "5000"
        await pilot.pause()
        assert "above the cap of 1,000" in text(screen, "#estimate")
    assert "BatchStarted" not in app.kinds()
    assert not (ws.records_dir / "batch.jsonl").exists()


@run_async
async def test_a_plan_above_the_threshold_asks_before_it_starts(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    create_arm(ws, "docs", "docs-weak", trigger="Documentation")
    app = make_app(ws)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await batch_form(pilot, app)
        screen.query_one("#runs", Input).value = "300"
        await pilot.pause()
        screen.set_focus(None)
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen), app.screen
        await pilot.press("n")
        await pilot.pause()
        assert app.screen is screen and screen.job is None
        assert "declined" in text(screen, "#batch-status")
    assert "BatchStarted" not in app.kinds() and "BatchRecordsLoaded" not in app.kinds()
    assert not (ws.records_dir / "batch.jsonl").exists()


@run_async
async def test_abort_during_start_up_stops_before_any_run(tmp_path: Path) -> None:
    """`x` while the status still says "starting:" (here during the confined batch's proof, bwrap
    processes that take a second or more) ends the batch before any run (how soon is bench/, not a test:
    a wall-clock bound failed CI at 1.004 s under load)."""
    ws = make_workspace(tmp_path)
    create_arm(ws, "docs", "docs-weak", trigger="Documentation")
    app = make_app(ws)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await batch_form(pilot, app)
        screen.query_one("#confined").value = True  # type: ignore[attr-defined]
        screen.query_one("#runs", Input).value = "2"
        await pilot.pause()
        screen.set_focus(None)
        await pilot.press("ctrl+r")
        await wait_for(pilot, app, "BatchRecordsLoaded", cap=300)  # the plan is set: the proof comes next
        assert "proof and self-checks …" in text(screen, "#batch-status"), text(screen, "#batch-status")
        await pilot.press("x")
        await wait_for(pilot, app, "BatchFinished", cap=300)
        await pilot.pause()
        assert screen.job is None
        assert "aborted by you" in text(screen, "#batch-status"), text(screen, "#batch-status")
        assert "BatchStarted" not in app.kinds()
    record = ws.records_dir / "batch.jsonl"
    assert not record.exists() or not load_file(record).records, "a run started after x"


@run_async
async def test_results_table_has_one_row_per_host(tmp_path: Path, hosts_dir: Path) -> None:
    ws = make_workspace(tmp_path)
    create_arm(ws, "docs", "docs-weak", trigger="Documentation")
    app = make_app(ws)
    async with app.run_test(size=(200, 50)) as pilot:
        screen = await batch_form(pilot, app, hosts="sim,claude")
        screen.query_one("#runs", Input).value = "1"
        screen.query_one("#script", Select).value = str(ws.root / "canaries" / "read-then-edit.json")
        await pilot.pause()
        screen.set_focus(None)
        await pilot.press("ctrl+r")
        await wait_for(pilot, app, "BatchFinished", cap=600)
        await pilot.pause(0.2)
        table = screen.query_one("#batch-results", DataTable)
        assert "complete" in text(screen, "#batch-status"), text(screen, "#batch-status")
        rows = [tuple(str(c) for c in table.get_row_at(i)) for i in range(table.row_count)]
        assert {(r[0], r[1], r[4]) for r in rows} == {(h, a, CASE) for h in ("sim", "claude")
                                                      for a in ("baseline", "docs-weak")}, rows
        assert all(r[2].split()[0].endswith("/1") or r[3] == "1" for r in rows), rows


@run_async
async def test_switching_the_script_runs_the_new_plan_and_the_same_one_again_runs_nothing(tmp_path: Path) -> None:
    """Script A to completion, then B: `ctrl+r` runs B's plan (another script is another run key);
    `ctrl+r` on B again finds its runs recorded and runs nothing."""
    ws = make_workspace(tmp_path)
    create_arm(ws, "docs", "docs-weak", trigger="Documentation")
    record = ws.records_dir / "batch.jsonl"
    app = make_app(ws)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await batch_form(pilot, app)
        screen.query_one("#runs", Input).value = "1"
        counts = []
        for n, name in enumerate(("read-then-edit", "edit-then-read", "edit-then-read"), 1):
            screen.query_one("#script", Select).value = str(ws.root / "canaries" / f"{name}.json")
            await pilot.pause()
            screen.set_focus(None)
            await pilot.press("ctrl+r")
            await wait_for(pilot, app, "BatchFinished", count=n, cap=300)
            await pilot.pause()
            assert "complete" in text(screen, "#batch-status"), text(screen, "#batch-status")
            counts.append(len(load_file(record).records))
            scripts = {r.script.name for r in load_file(record).records if r.script}
            assert f"{name}.json" in scripts or name in scripts, scripts
        assert counts == [2, 4, 4], counts  # baseline and docs-weak once per script; B again: nothing new
        assert "2 record(s) of this plan" in text(screen, "#batch-status"), text(screen, "#batch-status")


@run_async
async def test_at_80x24_the_results_show_the_interval_and_the_script_stays_on_one_line(tmp_path: Path) -> None:
    import re

    from workbench.tui.screentext import screen_text

    ws = make_workspace(tmp_path)
    create_arm(ws, "docs", "docs-weak", trigger="Documentation")
    app = make_app(ws)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await batch_form(pilot, app)
        screen.query_one("#runs", Input).value = "2"
        screen.query_one("#script", Select).value = str(ws.root / "canaries" / "read-then-edit.json")
        await pilot.pause()
        screen.set_focus(None)
        await pilot.press("ctrl+r")
        await wait_for(pilot, app, "BatchFinished", cap=300)
        await pilot.pause(0.3)
        lines = screen_text(app).split("\n")
        rows = [line for line in lines if re.search(r"sim\s+(baseline|docs-weak)", line)]
        assert len(rows) == 2 and all(re.search(r"\d/2\s+\d+% \[\d+–\d+\]", r) for r in rows), "\n".join(lines)
        top = next(i for i, line in enumerate(lines) if "▔ script " in line)
        assert "▼" in lines[top + 1] and lines[top + 2].startswith("▊▁"), "\n".join(lines[top:top + 3])


@run_async
async def test_one_estimate_the_clis_forecast_and_a_scripted_plan_costs_nothing(tmp_path: Path) -> None:
    """The Batch screen shows one estimate: the runner's forecast, the very lines `workbench batch` prints
    for the same form (`batch_config` then `batch_forecast`), priced from earlier records; a picked script
    makes it 0 USD, whatever those records cost (the model server on 127.0.0.1 bills nobody)."""
    from workbench.core.models import RunRecord, Usage
    from workbench.core.records import append_record
    from workbench.runner.doors import batch_config
    from workbench.runner.preview import batch_forecast, load_history
    from workbench.tui.screentext import screen_text

    ws = make_workspace(tmp_path)
    create_arm(ws, "docs", "docs-weak", trigger="Documentation")
    for run in range(3):  # earlier sim runs of the case, each billed 0.25 USD
        append_record(ws.records_dir / "earlier.jsonl", RunRecord(
            condition="unconfined", host="sim", model="sim-policy", arm="baseline", case_id=CASE, target="docs",
            kind="positive", run=run, moment="edit", required=["workflows/docs.md"], overall="skip",
            verdict={"docs.md": "skip"}, usage=Usage(input_tokens=100, output_tokens=10, cost_usd=0.25)))  # type: ignore[dict-item]
    app = make_app(ws)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await batch_form(pilot, app)
        screen.query_one("#runs", Input).value = "2"
        seen: list[str] = []
        for script in ("", str(ws.root / "canaries" / "read-then-edit.json")):
            screen.query_one("#script", Select).value = script
            await pilot.pause()
            cfg = batch_config(ws, screen.form())
            cli = "\n".join(batch_forecast(cfg, load_history([cfg.record, ws.records_dir])).lines())
            await until(pilot, app, lambda want=cli: text(screen, "#forecast") == want, f"the CLI's forecast {cli!r}")
            assert screen_text(app).count("USD") == 1, screen_text(app)  # one estimate on the screen
            seen.append(cli)
    priced, scripted = seen
    assert priced.startswith("forecast: 4 run(s)") and " 1.00 USD" in priced, priced
    assert " 0.00 USD" in scripted, scripted
