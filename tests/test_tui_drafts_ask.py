"""Pilot on the REAL sim host: `ctrl+z` on Rows asks before it drops a draft, `c` asks before it runs
a draft with a DANGLING, UNSHIPPED or STUB link, an invalid (cancelled) run shows INVALID and its reason
with no verdict and no READ mark, and a saved draft is no longer called unsaved on the Canary's context line."""

from __future__ import annotations

from pathlib import Path

from authoring_support import books_market
from textual.widgets import DataTable, Static, TextArea
from tui_support import canary_on, edit_wording, make_workspace, run_async, until, wait_for

from workbench.cli import main
from workbench.core.workspace import load_workspace
from workbench.modelstub import parse_script
from workbench.tui.app import WorkbenchApp, make_app
from workbench.tui.messages import RunScored
from workbench.tui.screens.canary import CanaryScreen
from workbench.tui.screens.confirm import ConfirmScreen
from workbench.tui.screens.rows import RowsScreen
from workbench.tui.screentext import screen_text

READ_THEN_SLEEP = {"steps": [{"calls": [{"read": "{plugin}/skills/ops/workflows/docs.md"}]},
                             {"calls": [{"shell": "sleep 120"}]}, {"say": "Done."}]}


async def edit_row(pilot: object, app: WorkbenchApp, old: str, new: str) -> RowsScreen:
    """ops/docs's wording with OLD replaced by NEW, linted; the table has the keys again."""
    await edit_wording(pilot, app, "ops/docs", old, new)
    screen = app.screen
    assert isinstance(screen, RowsScreen)
    screen.query_one("#rows", DataTable).focus()
    await pilot.pause()  # type: ignore[attr-defined]
    return screen


async def canary_refused(pilot: object, app: WorkbenchApp, screen: RowsScreen, why: str) -> None:
    """`c` on SCREEN's draft asks (the question holds WHY); `n` leaves the draft unrun."""
    await pilot.press("c")  # type: ignore[attr-defined]
    await pilot.pause()  # type: ignore[attr-defined]
    assert isinstance(app.screen, ConfirmScreen) and why in screen_text(app)
    await pilot.press("n")  # type: ignore[attr-defined]
    await pilot.pause()  # type: ignore[attr-defined]
    assert app.screen is screen and "CanaryRequested" not in app.kinds()


@run_async
async def test_ctrl_z_asks_before_dropping_a_draft(tmp_path: Path) -> None:
    app = make_app(make_workspace(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = await edit_row(pilot, app, "Before editing documentation", "Before writing docs")
        assert "ops/docs" in screen.drafts
        assert "esc, then c runs it" in str(screen.query_one("#editor", TextArea).border_title)
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen) and "Drop the draft of ops/docs" in screen_text(app)
        await pilot.press("n")
        await pilot.pause()
        assert "ops/docs" in screen.drafts and "Before writing docs" in screen.query_one("#editor", TextArea).text
        await pilot.press("ctrl+z")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        assert "ops/docs" not in screen.drafts
        assert "Before editing documentation" in screen.query_one("#editor", TextArea).text


@run_async
async def test_c_asks_before_running_a_dangling_draft(tmp_path: Path) -> None:
    app = make_app(make_workspace(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = await edit_row(pilot, app, "workflows/docs.md", "workflows/no-such.md")
        assert "DANGLING" in str(screen.query_one("#findings", Static).render())
        await canary_refused(pilot, app, screen, "does not exist")


@run_async
async def test_c_asks_before_running_a_draft_whose_link_is_a_symlink_stored_as_text(tmp_path: Path) -> None:
    """The draft links a file that holds only a path (a symlink git stored as text): the editor shows
    STUB, as `audit` does, and `c` asks before it runs the draft."""
    ws = make_workspace(tmp_path)
    (ws.plugin_dir / "skills/ops/workflows/shared-docs.md").write_text("../../../shared/docs.md")
    app = make_app(ws)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = await edit_row(pilot, app, "workflows/docs.md", "workflows/shared-docs.md")
        assert "STUB" in str(screen.query_one("#findings", Static).render())
        await canary_refused(pilot, app, screen, "holds only the path")


@run_async
async def test_an_invalid_run_shows_its_reason_never_a_verdict(tmp_path: Path) -> None:
    app = make_app(make_workspace(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await canary_on(pilot, app, "docs-readme-section", READ_THEN_SLEEP)
        await pilot.press("ctrl+r")
        await until(pilot, app, lambda: "READ workflows/" in screen_text(app),
                    "READ shown")  # the read scored live, before the cancel (README in the prompt is not it)
        await pilot.press("x")
        await wait_for(pilot, app, "RunScored")
        await pilot.pause()
        record = next(m for m in app.journal if isinstance(m, RunScored)).record
        assert not record.valid and record.invalid_reason == "cancelled"
        verdict = str(screen.query_one("#verdict", Static).render())
        assert "INVALID" in verdict and "cancelled" in verdict, verdict
        assert str(record.overall) not in verdict and "verdict:" not in verdict, verdict
        assert " READ " not in screen_text(app), "a READ mark stayed on an invalid run's card"
        assert "running" not in str(screen.query_one("#activity", Static).render())


@run_async
async def test_a_draft_saved_after_its_canary_is_no_longer_called_unsaved(tmp_path: Path) -> None:
    app = make_app(make_workspace(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, app, "ArmsRead")
        rows = await edit_row(pilot, app, "Before editing documentation", "Before writing docs")
        canary = app.get_screen("canary")
        assert isinstance(canary, CanaryScreen)
        canary.script = parse_script({"steps": [{"calls": [{"read": "{plugin}/skills/ops/workflows/docs.md"}]}]})
        await pilot.press("c")
        await wait_for(pilot, app, "RunScored")
        await pilot.pause()
        context = canary.query_one("#context", Static)
        assert "draft of ops/docs (unsaved)" in str(context.render()), str(context.render())
        await app.action_show("rows")
        await pilot.pause()
        rows.query_one("#rows", DataTable).focus()
        await pilot.press("ctrl+s")
        await pilot.pause()
        await pilot.press("enter")  # the suggested name
        await wait_for(pilot, app, "ArmsRead", count=2)  # the arms read again after the save
        await pilot.pause()
        assert "ops/docs" in rows.saved
        text = str(context.render())
        assert "draft of ops/docs (saved since as an arm)" in text and "(unsaved)" not in text, text


@run_async
async def test_c_asks_before_running_a_draft_whose_link_the_plugin_does_not_ship(tmp_path: Path) -> None:
    """A marketplace plugin's row linking the marketplace's own `.claude/rules/` file: the editor shows
    UNSHIPPED (not DANGLING: the file exists) and `c` asks before it runs the draft."""
    books_market(tmp_path)
    assert main(["init", str(tmp_path)]) == 0
    app = make_app(load_workspace(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await edit_wording(pilot, app, "books:ledger/posting", "before posting", "before posting or voiding")
        screen = app.screen
        assert isinstance(screen, RowsScreen)
        shown = str(screen.query_one("#findings", Static).render())
        assert "UNSHIPPED" in shown and "DANGLING" not in shown
        screen.query_one("#rows", DataTable).focus()
        await pilot.pause()
        await canary_refused(pilot, app, screen, "outside the plugin books-plugin")
