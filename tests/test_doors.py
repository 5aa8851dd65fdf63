"""The doors agree: the same choices through the CLI (argparse -> form) and through the TUI (widgets ->
form) give equal RunRequests / batch configs, every field, because one set-up (`runner/doors.py`)
turns both forms into the run. And the one script loader takes a canary file as the TUI picker does."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Checkbox, Input, Select, SelectionList
from tui_support import make_workspace, run_async, shown

from workbench.cli import build_parser
from workbench.core.cases import find_case
from workbench.core.errors import InputError
from workbench.core.workspace import load_workspace
from workbench.runner.doors import (
    CanaryForm,
    batch_config,
    canary_request,
    load_script_file,
    postinstall_request,
)
from workbench.tui.app import make_app
from workbench.tui.screens.batch import BatchScreen
from workbench.tui.screens.canary import CanaryScreen
from workbench.tui.screens.postinstall import PostinstallScreen

CASE = "docs-readme-section"
SCRIPT = "canaries/cat-brace.json"


def differences(a: Any, b: Any) -> list[str]:
    """Fields of two dataclasses that differ (every field, compared or not), for a readable failure."""
    skip = {"cancel", "guard"}  # events differ by identity; the guard is compared by its parts below
    return [f.name for f in dataclasses.fields(a) if f.name not in skip and getattr(a, f.name) != getattr(b, f.name)]


def cli_args(*argv: str) -> Any:
    return build_parser().parse_args(list(argv))


def test_a_canary_file_loads_as_its_script_and_a_bare_script_as_itself(tmp_path: Path) -> None:
    import json

    root = Path(__file__).resolve().parent.parent
    canary = load_script_file(root / SCRIPT)
    wrapped = json.loads((root / SCRIPT).read_text(encoding="utf-8"))["script"]
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps(wrapped), encoding="utf-8")
    assert canary == load_script_file(bare) and len(canary.steps) == 2
    broken = tmp_path / "broken.json"
    broken.write_text('{"case": {}, "script": {"steps": []}}', encoding="utf-8")
    with pytest.raises(InputError, match="steps"):
        load_script_file(broken)


@run_async
async def test_canary_cli_and_tui_give_the_same_request(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`workbench canary CASE --script canaries/<file>.json` is exactly picking that file in the TUI."""
    from workbench.commands.canary import form_of

    ws = make_workspace(tmp_path)
    monkeypatch.chdir(ws.root)
    args = cli_args("canary", CASE, "--host", "sim", "--script", SCRIPT, "--effort", "low")
    cli_ws = load_workspace()
    cli = canary_request(cli_ws, form_of(args, find_case(CASE, cli_ws.cases_dir)))
    app = make_app(ws)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await shown(pilot, app, "canary", CanaryScreen)
        screen.query_one("#host", Select).value = "sim"
        screen.query_one("#script", Select).value = str(ws.canaries_dir / "cat-brace.json")
        await pilot.pause()  # the script's own case takes the case field; CASE is picked over it, as on the CLI
        screen.query_one("#effort", Select).value = "low"
        screen.query_one("#case", Select).value = CASE
        await pilot.pause()
        case = screen.case()
        assert case is not None
        tui = canary_request(ws, screen.form(case))
    assert differences(cli, tui) == []
    assert cli == tui and cli.script is not None and cli.silence_timeout == 300.0
    assert cli.own[0].name == "canary.jsonl" and cli.own[1].name == "canary.jsonl.torn", "the CLI's .torn guard"
    assert cli.confinement is not None and cli.guarded, "confined and guarded through both doors"


@run_async
async def test_postinstall_cli_and_tui_give_the_same_request(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from workbench.commands import postinstall

    ws = make_workspace(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.chdir(ws.root)
    seen: list[Any] = []

    def capture(req: Any, **_: Any) -> Any:
        seen.append(req)
        raise InputError("captured", field="test")  # stop before the run: only the request is compared

    monkeypatch.setattr("workbench.runner.execute.execute", capture)
    args = cli_args("postinstall", "--host", "sim", "--script", SCRIPT, "--home", str(home))
    with pytest.raises(InputError, match="captured"):
        postinstall.run(args)
    [cli] = seen
    app = make_app(ws)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await shown(pilot, app, "postinstall", PostinstallScreen)
        screen.home = home
        screen.query_one("#pi-host", Select).value = "sim"
        screen.query_one("#pi-script", Select).value = str(ws.canaries_dir / "cat-brace.json")
        await pilot.pause()
        case = find_case(screen.query_one("#pi-case", Input).value.strip(), ws.cases_dir)
        tui = postinstall_request(ws, screen.form(case))
    assert differences(cli, tui) == []
    assert cli == tui and cli.live is not None and cli.live.home == home.resolve()
    assert cli.silence_timeout == 300.0 and cli.condition == "live-install"


@run_async
async def test_batch_cli_and_tui_give_the_same_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from workbench.commands.batch import form_of
    from workbench.runner.batch import plan, request_for

    ws = make_workspace(tmp_path)
    monkeypatch.chdir(ws.root)
    record = ws.records_dir / "batch.jsonl"
    args = cli_args("batch", "--arms", "baseline", "--cases", CASE, "--hosts", "sim", "--runs", "2", "--jobs", "2",
                    "--record", str(record), "--script", SCRIPT, "--resume", "--effort", "low")
    cli = batch_config(load_workspace(), form_of(args))
    app = make_app(ws)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await shown(pilot, app, "batch", BatchScreen)
        screen.query_one("#baseline", Select).value = "baseline"
        screen.query_one("#arm", Select).value = "baseline"
        screen.query_one("#hosts", Input).value = "sim"
        screen.query_one("#runs", Input).value = "2"
        screen.query_one("#jobs", Input).value = "2"
        screen.query_one("#effort", Select).value = "low"
        screen.query_one("#script", Select).value = str(ws.canaries_dir / "cat-brace.json")
        screen.query_one("#confined", Checkbox).value = True
        cases = screen.query_one("#cases", SelectionList)
        cases.deselect_all()
        cases.select(CASE)
        await pilot.pause()
        tui = batch_config(ws, screen.form())
    assert differences(cli, tui) == []
    assert cli.guard.checkouts == tui.guard.checkouts and cli.guard.own == tui.guard.own
    assert cli.silence_timeout == 300.0 and cli.early_stop == tui.early_stop == 3 and cli.cancel is not None
    cli_runs = [request_for(p, cli, tmp_path, {}, "b", 2) for p in plan(cli)]
    tui_runs = [request_for(p, tui, tmp_path, {}, "b", 2) for p in plan(tui)]
    assert cli_runs == tui_runs and len(cli_runs) == 2
    assert all(r.cancel is cli.cancel for r in cli_runs), "the batch's cancel reaches every run"


def test_the_canary_door_refuses_a_real_host_without_a_login(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The login pre-flight is every door's now, not the TUI batch's alone."""
    ws = make_workspace(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    case = find_case(CASE, ws.cases_dir)
    with pytest.raises(InputError, match="claude: no login found"):
        canary_request(ws, CanaryForm(case, "claude", model="claude-sonnet-4-5", home=home, unconfined=True))
    scripted = canary_request(ws, CanaryForm(case, "claude", script=ws.canaries_dir / "cat-brace.json", home=home,
                                             unconfined=True))
    assert scripted.script is not None, "a scripted run needs no login"


def test_the_batch_forecast_says_a_scripted_batch_costs_nothing() -> None:
    """The one estimate (the runner's forecast, shown by the CLI batch and the Batch screen): a scripted run
    is billed by no provider, so its cost is 0, never unknown; a real model with no history is unknown."""
    from workbench.runner.preview import form_forecast

    scripted = form_forecast([CASE], ["sim", "claude"], 2, 2, None, True, [])
    assert scripted.runs == 8 and scripted.cost_usd.total == 0.0 and scripted.unknown == []
    real = form_forecast([CASE], ["claude"], 1, 1, "claude-sonnet-4-5", False, [])
    assert real.cost_usd.total is None and real.unknown == ["claude/claude-sonnet-4-5"]


def test_every_batch_door_stops_early_when_the_first_runs_all_fail_alike(tmp_path: Path) -> None:
    """The early stop is the runner's, so the CLI batch gets it too: three runs all invalid for one
    reason (each outlives its timeout) stop the batch; the later runs never start."""
    from workbench.modelstub import parse_script
    from workbench.runner.batch import run_batch
    from workbench.runner.doors import BatchForm

    ws = make_workspace(tmp_path)
    hang = parse_script({"steps": [{"calls": [{"shell": "sleep 30"}]}, {"say": "done"}]})
    record = tmp_path / "batch.jsonl"
    cfg = batch_config(ws, BatchForm(arms=("baseline",), cases=(CASE,), hosts=("sim",), runs=6, record=record,
                                     script=hang, unconfined=True, timeout=1.0))
    result = run_batch(cfg)
    assert result.stopped_early is not None and "first 3 runs on sim were all invalid: timeout" in result.stopped_early
    assert len(result.outcomes) == 3 and not result.complete and result.stop_reason() == result.stopped_early
    from workbench.core.records import load_file

    assert [r.invalid_reason for r in load_file(record).records] == ["timeout"] * 3, "only the three ran"
