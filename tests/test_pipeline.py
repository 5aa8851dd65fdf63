"""The one run pipeline at its seams, on the REAL sim host through the real front ends.

The same canary through the CLI and the TUI (Pilot) must give the same record (timestamps aside),
with the arm's sha and env, so `summary` shows one arm; every record a door just wrote must rescore
with no change. (The TUI never importing the CLI's modules is an import contract: pyproject.toml.)
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import Checkbox, Input, Select, SelectionList
from tui_support import make_workspace, run_async, shown, wait_for

from workbench.cli import main
from workbench.core.models import RunRecord
from workbench.core.records import load_file
from workbench.core.rescore import changes, rescore
from workbench.core.summary import summarize
from workbench.core.workspace import Workspace, read_workspace
from workbench.modelstub import parse_script
from workbench.runner.doors import load_script_file
from workbench.tui.app import make_app
from workbench.tui.messages import BatchRunFinished, RunScored
from workbench.tui.screens.batch import BatchScreen
from workbench.tui.screens.canary import CanaryScreen

pytestmark = pytest.mark.bwrap  # runs go through a door confined (the default); see docs/testing.md

ROOT = Path(__file__).resolve().parent.parent
CASE = "docs-readme-section"
ENV = "EVAL_INJECTION_OFF"
SCRIPT = {"steps": [
    {"calls": [{"skill": "ops"}]},
    {"calls": [{"shell": f"printenv {ENV}"}]},
    {"calls": [{"read": "{plugin}/skills/ops/workflows/docs.md"}]},
    {"calls": [{"edit": {"path": "{repo}/README.md", "old": "# greeter", "new": "# greeter\n\nTests: pytest."}}]},
    {"say": "Done."},
]}
"""Loads the entry, shows the arm's env var, reads the procedure, edits: fired, and nothing time-dependent."""
STAMPS = {"started_at", "finished_at"}
EVIDENCE_FIELDS = ("verdict", "overall", "moment_at", "order_basis", "read_basis", "moment_basis",
                   "evidence_conflicts", "calls")


def untimed(record: RunRecord) -> dict[str, object]:
    """The record without what depends on timing: stamps, and which call of a fast burst an effect was
    given to (the canary test checks the edit is a candidate)."""
    data = record.model_dump(exclude=STAMPS)
    data["effects"] = sorted((e["path"], e["kind"]) for call in data["calls"] for e in call.pop("effects"))
    return data


def assert_rescores_to_itself(record: RunRecord, name: str) -> None:
    """Rescore from the record alone gives back every verdict and every evidence field."""
    again = rescore(record)
    assert changes(record, again, name, 1) == [], name
    for key in EVIDENCE_FIELDS:
        assert getattr(again, key) == getattr(record, key), (name, key)
    assert record.order_basis == ("turn" if record.calls else "index") and record.effects_watched == "watched", name


def workspace(tmp: Path) -> Workspace:
    """The demo workspace with a workspace arm `off` (HEAD~0 plus a hook's off-switch env)."""
    ws = make_workspace(tmp)
    assert ws.file is not None
    ws.file.write_text(ws.file.read_text() + f'\n[arms.off]\nref = "HEAD"\nenv = {{ {ENV} = "1" }}\n')
    return read_workspace(ws.file)


def script_file(tmp: Path) -> Path:
    path = tmp / "script.json"
    path.write_text(json.dumps(SCRIPT))
    return path


def cli_canary(ws: Workspace, tmp: Path, monkeypatch: pytest.MonkeyPatch) -> RunRecord:
    monkeypatch.chdir(ws.root)
    record = tmp / "cli-canary.jsonl"
    assert main(["canary", CASE, "--host", "sim", "--arm", "off", "--script", str(script_file(tmp)),
                 "--record", str(record)]) == 0
    (written,) = load_file(record).records
    return written


async def tui_canary(ws: Workspace, tmp: Path) -> RunRecord:
    app = make_app(ws)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await shown(pilot, app, "canary", CanaryScreen)
        screen.script = load_script_file(script_file(tmp))
        screen.query_one("#arm", Select).value = "off"
        screen.query_one("#case", Select).value = CASE
        await pilot.pause()
        await pilot.press("ctrl+r")
        await wait_for(pilot, app, "RunScored")
        record = next(m for m in app.journal if isinstance(m, RunScored)).record
    (written,) = load_file(ws.records_dir / "canary.jsonl").records
    assert written == record
    return record


@run_async
async def test_cli_and_tui_canary_of_a_workspace_arm_write_the_same_record(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    ws = workspace(tmp_path)
    cli = cli_canary(ws, tmp_path, monkeypatch)
    tui_record = await tui_canary(ws, tmp_path)
    assert cli.arm == "off" and cli.source is not None and len(cli.source) == 40
    assert cli.calls[1].result and cli.calls[1].result.strip() == "1", "the arm's env reached the host"
    assert cli.overall == "fired" and cli.valid
    assert untimed(cli) == untimed(tui_record)
    cells = summarize([cli, tui_record]).cells
    assert len(cells) == 1, f"one arm column, got {list(cells)}"
    for record in (cli, tui_record):
        assert_rescores_to_itself(record, "canary")
        assert record.read_basis == {"workflows/docs.md": "content"} and record.moment_basis == "pattern"
        writers = [(c.index, *e.others) for c in record.calls for e in c.effects if e.path == "README.md"]
        assert len(writers) == 1 and 3 in writers[0], ("the edit's effect, given to it (or it a candidate)", writers)


def test_every_cli_door_writes_records_that_rescore_unchanged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws = workspace(tmp_path)
    monkeypatch.chdir(ws.root)
    script = str(script_file(tmp_path))
    home = tmp_path / "home"
    home.mkdir()
    files = {name: tmp_path / f"{name}.jsonl" for name in ("canary", "policy", "no-output", "batch", "postinstall")}
    assert main(["canary", CASE, "--host", "sim", "--script", script, "--record", str(files["canary"])]) == 0
    assert main(["canary", "negative-explain-app", "--host", "sim", "--record", str(files["policy"])]) == 0
    assert main(["canary", "incident-outage", "--host", "sim", "--arm", "baseline", "--record",
                 str(files["policy"])]) == 0
    assert main(["batch", "--cases", f"{CASE},negative-explain-app", "--hosts", "sim", "--arms", "baseline,off",
                 "--unconfined", "--record", str(files["batch"])]) == 0
    assert main(["postinstall", "--host", "sim", "--case", CASE, "--script", script, "--home", str(home),
                 "--record", str(files["postinstall"])]) == 0
    written = {name: load_file(path).records for name, path in files.items() if path.exists()}
    assert [len(written[n]) for n in ("canary", "policy", "batch", "postinstall")] == [1, 2, 4, 1]
    assert {r.condition for r in written["batch"]} == {"unconfined"}
    assert all(r.batch and r.batch_planned == 4 for r in written["batch"])
    assert written["postinstall"][0].condition == "live-install" and written["postinstall"][0].guard is None
    for name, recs in written.items():
        for i, record in enumerate(recs):
            assert record.entry is not None and record.entry.skill == "ops", name
            assert not record.model_extra, (name, record.model_extra)  # every field declared
            assert_rescores_to_itself(record, f"{name}:{i + 1}")


def test_a_no_output_canary_rescores_unchanged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from workbench.core.cases import find_case
    from workbench.runner.execute import execute
    from workbench.runner.request import build_request

    case = find_case(CASE, ROOT / "cases")
    record = execute(build_request(case, "sim", door="canary", plugin=ROOT / "plugin", no_output=True)).record
    assert (record.valid, record.overall) == (False, "no-output")
    again = rescore(record)
    assert (again.overall, again.verdict) == (record.overall, record.verdict)


@run_async
async def test_tui_batch_records_rescore_unchanged(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    app = make_app(ws)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await shown(pilot, app, "batch", BatchScreen)
        screen.script = parse_script(SCRIPT)
        screen.query_one("#confined", Checkbox).value = False
        screen.query_one("#runs", Input).value = "1"
        screen.query_one("#jobs", Input).value = "1"
        screen.query_one("#hosts", Input).value = "sim"
        cases = screen.query_one("#cases", SelectionList)
        cases.deselect_all()
        cases.select(CASE)
        screen.query_one("#baseline", Select).value = "baseline"
        screen.query_one("#arm", Select).value = "off"
        await pilot.pause()
        await pilot.press("ctrl+r")
        await wait_for(pilot, app, "BatchFinished", cap=300)
        finished = [m.outcome.record for m in app.journal if isinstance(m, BatchRunFinished)]
    written = load_file(ws.records_dir / "batch.jsonl").records
    assert written == finished and len(written) == 2
    assert {r.arm for r in written} == {"baseline", "off"} and all(r.model == "scripted" for r in written)
    assert all(r.condition == "unconfined" and r.batch_planned == 2 and r.overall == "fired" for r in written)
    env_shown = {r.arm: (r.calls[1].result or "").strip() for r in written}
    assert env_shown["off"] == "1" and env_shown["baseline"] != "1", ("each arm's env, as the CLI batch passes it",
                                                                      env_shown)
    for i, record in enumerate(written):
        assert_rescores_to_itself(record, f"tui-batch:{i + 1}")


@run_async
async def test_tui_batch_refuses_a_real_host_without_a_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             installed_hosts: Path) -> None:
    """The TUI batch runs the CLI batch's pre-flight checks (one door set-up): a real host needs a model."""
    from workbench.runner.doors import batch_config

    monkeypatch.setenv("WORKBENCH_HOSTS_DIR", str(installed_hosts))
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    (home / ".codex" / "auth.json").write_text("{}", encoding="utf-8")  # the login pre-flight passes
    monkeypatch.setenv("HOME", str(home))
    app = make_app(workspace(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await shown(pilot, app, "batch", BatchScreen)
        screen.query_one("#confined", Checkbox).value = False
        screen.query_one("#hosts", Input).value = "codex"
        await pilot.pause()
        form = screen.form()
        assert form.model is None
        from workbench.core.errors import InputError

        with pytest.raises(InputError, match="model"):
            batch_config(app.view.ws, form)
        screen.query_one("#model", Input).value = "gpt-5.5"
        await pilot.pause()
        assert batch_config(app.view.ws, screen.form()).model == "gpt-5.5"
