"""A scenario script (a `canaries/*.json` canary file) carries its own case and runs it, through the TUI and
the CLI alike; a script file added while the app runs is offered without a restart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import Select, Static
from tui_support import make_workspace, run_async, shown, wait_for

from workbench.cli import main
from workbench.core.records import load_file
from workbench.tui.app import make_app
from workbench.tui.messages import RunScored
from workbench.tui.screens.canary import SCRIPT_CASE, CanaryScreen
from workbench.tui.widgets.runform import LabelledSelect

pytestmark = pytest.mark.bwrap  # the canaries run through the door confined (the default)

SCENARIO = "cd-and-cat"
"""Its case needs docs/proc.md, a file only the case's own extra_files make: run on a workspace case the
read finds no file."""


async def offered(pilot: object, select: LabelledSelect, value: str, cap: float = 60.0) -> None:
    """Pause until SELECT offers VALUE (fails after CAP seconds)."""
    waited = 0.0
    while value not in select.offered():
        if waited > cap:
            raise AssertionError(f"{value} never offered; offered: {select.offered()}")
        await pilot.pause(0.05)  # type: ignore[attr-defined]
        waited += 0.05


@run_async
async def test_picking_a_scenario_script_runs_its_own_case_as_the_cli_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    ws = make_workspace(tmp_path)
    scenario = json.loads((ws.canaries_dir / f"{SCENARIO}.json").read_text(encoding="utf-8"))
    app = make_app(ws)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await shown(pilot, app, "canary", CanaryScreen)
        screen.query_one("#case", Select).value = "docs-readme-section"
        screen.query_one("#script", Select).value = str(ws.canaries_dir / f"{SCENARIO}.json")
        await pilot.pause()
        assert screen.query_one("#case", Select).value == SCRIPT_CASE, "the script's own case takes the field"
        await pilot.press("ctrl+r")
        await wait_for(pilot, app, "RunScored")
        tui = next(m for m in app.journal if isinstance(m, RunScored)).record
        status = str(screen.query_one("#canary-status", Static).render())
        screen.query_one("#script", Select).value = ""  # no script: the case picked before comes back
        await pilot.pause()
        assert screen.query_one("#case", Select).value == "docs-readme-section"
    assert "carries its own case" not in status
    assert tui.case_id == SCENARIO and tui.required == scenario["case"]["required"] and tui.valid
    assert tui.overall == scenario["expect"], "the scenario's expected verdict: its files were there"
    assert not [c for c in tui.calls if c.status != "ok"], "no read refused for a missing file"

    monkeypatch.chdir(ws.root)
    capsys.readouterr()
    code = main(["canary", "--host", "sim", "--script", f"canaries/{SCENARIO}.json", "--json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    cli = json.loads(out.out.strip().splitlines()[-1])
    assert (cli["case_id"], cli["target"], cli["required"], cli["moment"], cli["overall"]) == \
        (tui.case_id, tui.target, tui.required, tui.moment, tui.overall)
    assert cli["script"] == tui.script.model_dump(mode="json") if tui.script else cli["script"] is None
    assert [r.case_id for r in load_file(ws.records_dir / "canary.jsonl").records] == [SCENARIO, SCENARIO]


@run_async
async def test_a_workspace_case_picked_over_the_scripts_own_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """Picking another case is honoured (as CASE on the CLI), with a hint on both doors."""
    ws = make_workspace(tmp_path)
    app = make_app(ws)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await shown(pilot, app, "canary", CanaryScreen)
        screen.query_one("#script", Select).value = str(ws.canaries_dir / f"{SCENARIO}.json")
        await pilot.pause()
        screen.query_one("#case", Select).value = "docs-readme-section"
        await pilot.pause()
        await pilot.press("ctrl+r")
        await wait_for(pilot, app, "RunScored")
        tui = next(m for m in app.journal if isinstance(m, RunScored)).record
        status = str(screen.query_one("#canary-status", Static).render())
    assert tui.case_id == "docs-readme-section"
    assert f"script {SCENARIO} carries its own case" in status
    monkeypatch.chdir(ws.root)
    capsys.readouterr()
    main(["canary", "docs-readme-section", "--host", "sim", "--script", f"canaries/{SCENARIO}.json", "--json"])
    out = capsys.readouterr()
    assert json.loads(out.out.strip().splitlines()[-1])["case_id"] == tui.case_id
    assert f"carries its own case ({SCENARIO})" in out.err


def test_a_bare_script_carries_no_case_and_the_cli_says_what_to_give(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    ws = make_workspace(tmp_path)
    bare = ws.canaries_dir / "bare.json"
    bare.write_text(json.dumps(json.loads((ws.canaries_dir / f"{SCENARIO}.json").read_text())["script"]))
    monkeypatch.chdir(ws.root)
    assert main(["canary", "--host", "sim", "--script", str(bare)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "CASE" in err and "carries its own case" in err


@run_async
async def test_a_script_added_while_the_app_runs_is_offered_with_its_case(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    app = make_app(ws)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await shown(pilot, app, "canary", CanaryScreen)
        await app.action_show("batch")
        await pilot.pause()
        scripts = screen.query_one("#script", LabelledSelect)
        batch = app.screen.query_one("#script", LabelledSelect)
        added = ws.canaries_dir / "added-later.json"
        assert str(added) not in scripts.offered()
        added.write_text((ws.canaries_dir / f"{SCENARIO}.json").read_text(), encoding="utf-8")
        await offered(pilot, scripts, str(added))
        await offered(pilot, batch, str(added))
        await app.action_show("canary")
        await pilot.pause()
        scripts.value = str(added)
        await pilot.pause()
        case = screen.case()
        assert case is not None and case.id == "added-later" and case.required == ["docs/proc.md"]
        added.unlink()
        waited = 0.0
        while str(added) in scripts.offered():
            assert waited < 60, "a removed script stays offered"
            await pilot.pause(0.05)
            waited += 0.05
        assert scripts.value == "" and screen.query_one("#case", Select).value != SCRIPT_CASE


@run_async
async def test_a_scenario_that_injects_no_output_is_invalid_on_both_doors(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """`canaries/no-output.json` carries `"fault": "no-output"`: the canary door injects it as the self-test
    does, so the run is invalid (no model output), never the verdict its script would have made."""
    ws = make_workspace(tmp_path)
    app = make_app(ws)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await shown(pilot, app, "canary", CanaryScreen)
        screen.query_one("#script", Select).value = str(ws.canaries_dir / "no-output.json")
        await pilot.pause()
        await pilot.press("ctrl+r")
        await wait_for(pilot, app, "RunScored")
        tui = next(m for m in app.journal if isinstance(m, RunScored)).record
    assert (tui.valid, tui.invalid_reason, tui.overall) == (False, "no-output", "no-output"), tui.overall
    monkeypatch.chdir(ws.root)
    capsys.readouterr()
    assert main(["canary", "--host", "sim", "--script", "canaries/no-output.json", "--json"]) == 0
    cli = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert (cli["valid"], cli["invalid_reason"], cli["faults"]) == (False, "no-output", [f for f in tui.faults])
