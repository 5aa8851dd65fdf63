"""Keys and focus as a user meets them: digits and `x` in an input type there and nowhere else, escape
leaves the input and the screen keys act again, the footer shows only the keys that act now, a
started canary leaves the form so `x` cancels it."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input
from tui_support import make_workspace, run_async, shown, wait_for

from workbench.modelstub import parse_script
from workbench.tui.app import make_app
from workbench.tui.screens.batch import BatchScreen
from workbench.tui.screens.canary import CanaryScreen
from workbench.tui.screens.records import RecordsScreen
from workbench.tui.screentext import screen_text

pytestmark = pytest.mark.bwrap  # runs go through a door confined (the default); see docs/testing.md

SLEEP = {"steps": [{"calls": [{"shell": "sleep 60"}]}, {"calls": [{"shell": "true"}]}]}


def footer(app: object) -> str:
    return screen_text(app).splitlines()[-1]  # type: ignore[arg-type]


@run_async
async def test_a_digit_in_an_input_types_there_escape_then_the_digit_switches(tmp_path: Path) -> None:
    app = make_app(make_workspace(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await shown(pilot, app, "batch", BatchScreen)
        runs = screen.query_one("#runs", Input)
        runs.value = ""
        runs.focus()
        await pilot.pause()
        assert "screens" not in footer(app) and "quit" not in footer(app), footer(app)
        await pilot.press("5")
        await pilot.pause()
        assert runs.value == "5" and app.screen is screen, "the digit typed into the field only"
        await pilot.press("escape")
        await pilot.pause()
        assert screen.focused is None
        assert "screens" in footer(app) and "quit" in footer(app), footer(app)
        await pilot.press("4")
        await pilot.pause()
        assert isinstance(app.screen, RecordsScreen) and runs.value == "5"


@run_async
async def test_x_during_a_canary_cancels_it_and_never_types_into_the_form(tmp_path: Path) -> None:
    app = make_app(make_workspace(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await shown(pilot, app, "canary", CanaryScreen)
        screen.query_one("#case").value = "docs-readme-section"  # type: ignore[attr-defined]
        screen.script = parse_script(SLEEP)
        model = screen.query_one("#model", Input)
        model.focus()
        await pilot.pause()
        await pilot.press("ctrl+r")
        await wait_for(pilot, app, "HostEventsSeen")
        assert screen.focused is None and "cancel run" in footer(app)
        assert "running" in screen_text(app) and "last event" in screen_text(app), "spinner and clocks"
        await pilot.press("x")
        await wait_for(pilot, app, "RunScored")
        await pilot.pause()
        assert model.value == "" and "cancel run" not in footer(app)
        assert "INVALID: no verdict · cancelled" in screen_text(app)
