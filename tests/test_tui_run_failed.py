"""Pilot on the REAL sim host: a run that could not start (RunFailed: here a real host with neither a
model nor a script, refused by the door in the worker) leaves no activity and no verdict line behind,
on the Canary and on the post-install check, after a run that had both."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input, Select, Static
from tui_support import make_workspace, run_async, shown, wait_for

from workbench.modelstub import parse_script
from workbench.tui.app import make_app
from workbench.tui.screens.canary import CanaryScreen
from workbench.tui.screens.postinstall import PostinstallScreen

pytestmark = pytest.mark.bwrap  # the canary goes through its door confined (the default)

READ_EDIT = {"steps": [{"calls": [{"read": "{plugin}/skills/ops/workflows/docs.md"}]},
                       {"calls": [{"edit": {"path": "{repo}/README.md", "old": "greeter", "new": "greeting"}}]},
                       {"say": "Done."}]}


def line(screen: object, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())  # type: ignore[attr-defined]


async def fail_after_a_run(pilot: object, app: object, screen: object, host: str) -> None:
    """A scripted sim run to its verdict, then the same form on claude with no model and no script."""
    screen.script = parse_script(READ_EDIT)  # type: ignore[attr-defined]
    await pilot.press("ctrl+r")  # type: ignore[attr-defined]
    await wait_for(pilot, app, "RunScored")  # type: ignore[arg-type]
    await pilot.pause()  # type: ignore[attr-defined]
    assert "verdict:" in line(screen, "#verdict") and line(screen, "#activity"), "the run left both lines"
    screen.script = None  # type: ignore[attr-defined]
    screen.query_one(host, Select).value = "claude"  # type: ignore[attr-defined]
    await pilot.pause()  # type: ignore[attr-defined]
    screen.set_focus(None)  # type: ignore[attr-defined]
    await pilot.press("ctrl+r")  # type: ignore[attr-defined]
    await wait_for(pilot, app, "RunFailed")  # type: ignore[arg-type]
    await pilot.pause()  # type: ignore[attr-defined]


@run_async
async def test_canary_run_failed_clears_activity_and_verdict(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    app = make_app(ws)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await shown(pilot, app, "canary", CanaryScreen)
        screen.query_one("#case", Select).value = "docs-readme-section"
        screen.query_one("#model", Input).value = ""
        await pilot.pause()
        screen.set_focus(None)
        await fail_after_a_run(pilot, app, screen, "#host")
        assert "could not run" in line(screen, "#canary-status"), line(screen, "#canary-status")
        assert line(screen, "#activity").strip() == "", line(screen, "#activity")
        assert line(screen, "#verdict").strip() == "", line(screen, "#verdict")


@run_async
async def test_post_install_run_failed_clears_activity_and_verdict(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    app = make_app(ws)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await shown(pilot, app, "postinstall", PostinstallScreen)
        screen.home = home
        screen.set_focus(None)
        await fail_after_a_run(pilot, app, screen, "#pi-host")
        assert "could not run" in line(screen, "#canary-status"), line(screen, "#canary-status")
        assert line(screen, "#activity").strip() == "", line(screen, "#activity")
        assert line(screen, "#verdict").strip() == "", line(screen, "#verdict")
