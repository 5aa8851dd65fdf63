"""The effort picker: each run form (Canary, Batch, Post-install, Tune) offers exactly the levels the
picked host's CLI takes (from `core.hostinfo`), the same levels the CLI's door accepts and no other,
for every host; a batch's hosts
(and a tune's) are offered what all of them take; a level the new host does not take goes back to the
host default; what the Tune screen offers its door takes, and what it never offers `workbench tune` refuses."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_tui_tune import open_tune
from test_tune import workspace as tune_workspace
from textual.widgets import Input, Select
from tui_support import make_workspace, run_async, shown, wait_for

from workbench.cli import main
from workbench.core.errors import InputError
from workbench.core.hostinfo import EFFORTS, NAMES
from workbench.core.workspace import read_workspace
from workbench.hosts import adapter
from workbench.runner.request import check_effort
from workbench.tui.app import make_app
from workbench.tui.messages import TuneForecast
from workbench.tui.screens.batch import BatchScreen
from workbench.tui.screens.canary import CanaryScreen
from workbench.tui.screens.postinstall import PostinstallScreen
from workbench.tui.screens.tune import TuneScreen
from workbench.tui.widgets.runform import LabelledSelect


def door_accepts(host: str) -> list[str]:
    """The levels the CLI's door (`runner.request.check_effort`, every door's) takes for HOST."""
    out = []
    for effort in EFFORTS:
        try:
            check_effort(host, effort)
        except InputError:
            continue
        out.append(effort)
    return out


@run_async
async def test_each_host_is_offered_exactly_what_its_cli_takes(tmp_path: Path) -> None:
    app = make_app(make_workspace(tmp_path))
    offered: dict[str, dict[str, list[str]]] = {"canary": {}, "postinstall": {}}
    async with app.run_test(size=(120, 40)) as pilot:
        for name, kind, host_id, effort_id in (("canary", CanaryScreen, "#host", "#effort"),
                                               ("postinstall", PostinstallScreen, "#pi-host", "#pi-effort")):
            screen = await shown(pilot, app, name, kind)
            for host in NAMES:
                screen.query_one(host_id, Select).value = host
                await pilot.pause()
                offered[name][host] = [v for v in screen.query_one(effort_id, LabelledSelect).offered() if v]
    for host in NAMES:
        assert offered["canary"][host] == offered["postinstall"][host] == door_accepts(host) \
            == list(adapter(host).efforts), host
    assert offered["canary"]["gemini"] == [] and "max" in offered["canary"]["claude"]


@run_async
async def test_a_level_the_new_host_does_not_take_goes_back_to_the_default(tmp_path: Path) -> None:
    app = make_app(make_workspace(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await shown(pilot, app, "canary", CanaryScreen)
        effort = screen.query_one("#effort", Select)
        effort.value = "high"
        screen.query_one("#host", Select).value = "codex"
        await pilot.pause()
        assert effort.value == "high", "codex takes high: it stays"
        effort.value = "minimal"
        screen.query_one("#host", Select).value = "claude"
        await pilot.pause()
        assert effort.value == "", "claude takes no minimal: the host default"
        batch = await shown(pilot, app, "batch", BatchScreen)
        batch.query_one("#hosts", Input).value = "sim, claude, codex"
        await pilot.pause()
        both = [v for v in batch.query_one("#effort", LabelledSelect).offered() if v]
        batch.query_one("#hosts", Input).value = "sim,gemini"
        await pilot.pause()
        none = [v for v in batch.query_one("#effort", LabelledSelect).offered() if v]
    assert both == ["low", "medium", "high", "xhigh"] and none == []


def test_the_cli_refuses_what_the_picker_never_offers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    ws = make_workspace(tmp_path)
    monkeypatch.chdir(ws.root)
    code = main(["canary", "docs-readme-section", "--host", "codex", "--effort", "max", "--script",
                 "canaries/read-then-edit.json", "--unconfined"])
    err = capsys.readouterr().err
    assert code == 2 and "codex takes minimal | low | medium | high | xhigh, not 'max'" in err, err
    assert "max" not in door_accepts("codex")


@run_async
async def test_tune_screen_offers_exactly_what_the_tune_door_takes(tmp_path: Path) -> None:
    """The Tune screen's picker, for each host and for hosts together, is exactly what `tune_setup`
    (`check_effort` on every host) accepts; each level it offers for sim passes the door's set-up."""
    ws = tune_workspace(tmp_path, weak=True)
    app = make_app(read_workspace(ws / "workbench.toml"))
    together = (("claude", "codex"), ("sim", "gemini"), ("sim", "claude"), tuple(NAMES))
    offered: dict[tuple[str, ...], list[str]] = {}
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_tune(pilot, app, "ops/release")
        assert isinstance(screen, TuneScreen)
        hosts, effort = screen.query_one("#tn-hosts", Input), screen.query_one("#tn-effort", LabelledSelect)
        for picked in [(h,) for h in NAMES] + list(together):
            hosts.value = ",".join(picked)
            await pilot.pause()
            offered[picked] = [v for v in effort.offered() if v]
        hosts.value = "sim"
        await pilot.pause()
        for level in offered[("sim",)]:
            seen = app.kinds().count("TuneForecast")
            effort.value = level
            await wait_for(pilot, app, "TuneForecast", count=seen + 1)
            last = [m for m in app.journal if isinstance(m, TuneForecast)][-1]
            assert screen.form().effort == level and last.error is None, (level, last.error)
        effort.value = "max"
        hosts.value = "sim,codex"  # codex takes no max: back to the hosts' default, never sent
        await pilot.pause()
        assert effort.value == "" and screen.form().effort is None
    for picked, levels in offered.items():
        assert levels == [e for e in EFFORTS if all(e in door_accepts(h) for h in picked)], picked
    assert offered[("sim", "gemini")] == [] and offered[("claude", "codex")] == ["low", "medium", "high", "xhigh"]


def test_cli_tune_refuses_an_effort_a_host_does_not_take(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """`workbench tune --effort` is checked for every host before anything runs: one line, exit 2."""
    ws = tune_workspace(tmp_path, weak=True)
    monkeypatch.chdir(ws)
    for args, says in ((["--effort", "bogus"], "--effort: sim takes minimal | low | medium | high | xhigh | max, "
                        "not 'bogus'"),
                       (["--hosts", "sim,gemini", "--effort", "high"],
                        "--effort: gemini takes no reasoning effort from its command line")):
        code = main(["tune", "release", *args])
        out = capsys.readouterr()
        assert code == 2 and out.out == "" and len(out.err.strip().splitlines()) == 1 and says in out.err, out.err
    assert not (ws / "records").exists() and not (ws / ".workbench").exists()
