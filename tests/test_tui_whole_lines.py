"""Pilot at 80x24: every status, plan and context line a screen writes is shown whole (issue 28, Why 7:
"lines cut mid-sentence"): each line the app writes either fits or wraps at a word's end, and no widget
holding one is clipped at the screen's or its container's edge."""

from __future__ import annotations

from pathlib import Path

from test_tui_postinstall_abort import COMMIT
from test_tui_snapshots import settled
from test_tui_tune import open_tune
from textual.screen import Screen
from textual.widgets import Static
from tui_support import canary_on, fill_batch_form, make_workspace, run_async, shown, wait_for

from workbench.authoring.arms import create_arm
from workbench.modelstub import parse_script
from workbench.tui.app import WorkbenchApp, make_app
from workbench.tui.screens.batch import BatchScreen
from workbench.tui.screens.postinstall import PostinstallScreen


def cut_lines(screen: Screen[object]) -> list[str]:
    """The lines SCREEN's own Static widgets hold that the terminal does not show whole: the widget's
    whole text against the words drawn in its part of the screen (Textual's compositor output), so a
    word folded across two lines, a line cut short at the widget's or its container's edge, or a
    wrapped line lost below a fixed height all differ."""
    out = []
    geometry = screen._compositor.full_map
    rows = [''.join(seg.text for seg in strip) for strip in screen._compositor.render_strips()]
    for widget in screen.query(Static):
        if type(widget) is not Static or widget.id is None or widget not in geometry or not widget.region.area:
            continue  # the app's own lines; a Select's label or a Header's title is Textual's
        whole = " ".join(str(widget.render()).split())
        if not whole:
            continue
        seen = widget.content_region.intersection(geometry[widget].clip)
        drawn = " ".join(" ".join(row[seen.x:seen.right] for row in rows[seen.y:seen.bottom]).split())
        if drawn != whole or seen.width < widget.content_region.width:
            out.append(f"#{widget.id}: {whole!r} drawn as {drawn!r}")
    return out


async def whole(pilot: object, app: WorkbenchApp, name: str) -> None:
    """Once the screen has settled, every line of it is shown whole (the screen's text on failure)."""
    text = await settled(pilot, app)
    assert not cut_lines(app.screen), f"{name}: {cut_lines(app.screen)}\n{text}"


@run_async
async def test_a_line_longer_than_its_box_is_found_cut(tmp_path: Path) -> None:
    """The check itself: a one-row line too long for 80 columns, and a word wider than the screen."""
    app = make_app(make_workspace(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(pilot, app)
        assert not cut_lines(app.screen)
        line = Static("the plan: " + "ten runs of each case " * 6, id="probe")
        line.styles.height = 1
        await app.screen.mount(line, before=0)
        await pilot.pause()
        assert [cut.split(":")[0] for cut in cut_lines(app.screen)] == ["#probe"]
        line.styles.height = "auto"
        await pilot.pause()
        assert not cut_lines(app.screen), "wrapped at a word's end: whole"
        line.update("records/" + "x" * 90 + ".jsonl")
        await pilot.pause()
        assert cut_lines(app.screen), "a word folded across two lines is cut"


@run_async
async def test_rows_canary_postinstall_and_tune_lines_are_whole_at_80x24(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    app = make_app(ws)
    async with app.run_test(size=(80, 24)) as pilot:
        await whole(pilot, app, "rows")
        await canary_on(pilot, app, "commit-typo-fix", COMMIT)
        await pilot.press("ctrl+r")
        await wait_for(pilot, app, "RunScored")
        await whole(pilot, app, "canary after a run")
        screen = await shown(pilot, app, "postinstall", PostinstallScreen)
        await whole(pilot, app, "post-install")
        screen.home = home
        screen.script = parse_script(COMMIT)
        await pilot.press("ctrl+r")
        await wait_for(pilot, app, "RunScored", count=2)
        await whole(pilot, app, "post-install after a check")
        await app.action_show("rows")
        await pilot.pause()
        await open_tune(pilot, app, "ops/commit")
        await whole(pilot, app, "tune")


CASE = "docs-readme-section"


@run_async
async def test_batch_records_and_compare_lines_are_whole_at_80x24(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    create_arm(ws, "docs", "docs-weak", trigger="Documentation")
    app = make_app(ws)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await shown(pilot, app, "batch", BatchScreen)
        fill_batch_form(screen, CASE, runs="1")
        await wait_for(pilot, app, "ForecastReady")
        await whole(pilot, app, "batch with its plan")
        await pilot.press("ctrl+r")
        await wait_for(pilot, app, "BatchFinished", cap=300)
        await whole(pilot, app, "batch finished")
        await app.action_show("records")
        await wait_for(pilot, app, "RecordsRead")
        await whole(pilot, app, "records")
        await app.action_show("compare")
        await wait_for(pilot, app, "ComparisonRead")
        await whole(pilot, app, "compare")
