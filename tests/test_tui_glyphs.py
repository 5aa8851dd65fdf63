"""Checked and unchecked boxes differ in glyph, not only in colour (Batch at 80x24, Pilot)."""

from __future__ import annotations

from pathlib import Path

from tui_support import make_workspace, run_async, shown

from workbench.tui.app import make_app
from workbench.tui.screens.batch import BatchScreen
from workbench.tui.screentext import screen_text


@run_async
async def test_checked_and_unchecked_boxes_render_different_glyphs(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    app = make_app(ws)
    async with app.run_test(size=(200, 50)) as pilot:
        batch = await shown(pilot, app, "batch", BatchScreen)
        await pilot.pause()
        confined = batch.query_one("#confined")
        until = batch.query_one("#until-decided")
        confined.value, until.value = True, False  # type: ignore[attr-defined]
        await pilot.pause()
        text = screen_text(app)
        assert "▐✓▌ confined" in text, text
        assert "▐ ▌ until decided" in text, text
        until.value = True  # type: ignore[attr-defined]
        await pilot.pause()
        assert "▐✓▌ until decided" in screen_text(app)
        cases = batch.query_one("#cases")
        lines = [line for line in screen_text(app).splitlines() if "▐" in line and "▌" in line]
        marks = {line[line.index("▐") + 1] for line in lines}
        assert marks <= {"✓", " "} and cases is not None, lines
