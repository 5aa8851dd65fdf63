"""The effort picker: each run form offers exactly the levels the picked host's CLI takes (from
`core.hostinfo`), the same levels the CLI's door accepts and no other, for every host; a batch's hosts
are offered what all of them take; a level the new host does not take goes back to the host default."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input, Select
from tui_support import make_workspace, run_async, shown

from workbench.cli import main
from workbench.core.errors import InputError
from workbench.core.hostinfo import EFFORTS, NAMES
from workbench.hosts import adapter
from workbench.runner.request import check_effort
from workbench.tui.app import make_app
from workbench.tui.screens.batch import BatchScreen
from workbench.tui.screens.canary import CanaryScreen
from workbench.tui.screens.postinstall import PostinstallScreen
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
