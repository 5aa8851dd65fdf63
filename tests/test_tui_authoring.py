"""Pilot tests: edit a row (lint follows), save it as an arm (a real commit), promote it to a batch on sim."""

from __future__ import annotations

from pathlib import Path

import git
from textual.widgets import DataTable, Static, TextArea
from tui_support import linted, make_workspace, run_async, select_row, wait_for

from workbench.core.records import load_file
from workbench.tui.app import make_app
from workbench.tui.messages import ArmCreated, BatchFinished, BatchRunFinished
from workbench.tui.screens.batch import BatchScreen
from workbench.tui.screens.rows import RowsScreen


@run_async
async def test_edit_lints_as_you_type_and_save_creates_an_arm(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    app = make_app(ws)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, RowsScreen)
        await select_row(pilot, app, "ops/docs")
        editor = app.screen.query_one("#editor", TextArea)
        assert "Before editing documentation" in editor.text
        weak = editor.text.replace("Before editing documentation", "Documentation")
        editor.load_text(weak)
        await pilot.pause()
        await linted(pilot, app)
        findings = str(app.screen.query_one("#findings", Static).render())
        assert "state-trigger" in findings or "no-before-clause" in findings
        await pilot.press("ctrl+s")
        await pilot.pause()
        await pilot.press("enter")  # accept the suggested name
        await wait_for(pilot, app, "ArmCreated")
        arm = next(m for m in app.journal if isinstance(m, ArmCreated)).arm
        assert arm.name == "docs-1" and arm.ref == "workbench/arm/docs-1"
        repo = git.Repo(ws.root)
        skill = repo.commit(arm.ref).tree / "plugin/skills/ops/SKILL.md"
        assert "| Documentation |" in skill.data_stream.read().decode()
        assert "Before editing documentation" in (ws.plugin_dir / "skills/ops/SKILL.md").read_text(), \
            "the working tree is untouched"
        await pilot.pause(0.2)
        assert "docs-1" in str(app.screen.query_one("#arms", Static).render())


@run_async
async def test_promote_runs_a_batch_with_progress_and_results(tmp_path: Path) -> None:
    from workbench.authoring.arms import create_arm

    ws = make_workspace(tmp_path)
    create_arm(ws, "docs", "docs-weak", trigger="Documentation")
    app = make_app(ws)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await select_row(pilot, app, "ops/docs")
        await pilot.press("b")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, BatchScreen)
        form = screen.form()
        assert form.arms == ("baseline", "docs-weak")
        positives = {c.id for c in app.view.cases if c.kind == "positive" and c.target == "docs"}
        negatives = {c.id for c in app.view.cases if c.kind == "negative"}
        assert set(form.cases) == positives | negatives
        screen.query_one("#confined").value = False  # type: ignore[attr-defined]
        screen.query_one("#runs").value = "1"  # type: ignore[attr-defined]
        await pilot.pause()
        assert "runs" in str(screen.query_one("#estimate", Static).render()), "the plan line"
        await pilot.press("ctrl+r")
        await wait_for(pilot, app, "BatchFinished", cap=300)
        await pilot.pause(0.2)
        kinds = app.kinds()
        planned = len(form.cases) * 2
        assert kinds.index("ProofChecked") < kinds.index("BatchStarted") < kinds.index("BatchRunFinished")
        assert kinds.count("BatchRunFinished") == planned
        done = next(m for m in app.journal if isinstance(m, BatchFinished))
        assert done.result is not None and done.note == "complete"
        last = [m for m in app.journal if isinstance(m, BatchRunFinished)][-1]
        assert last.progress.done == planned
        table = screen.query_one("#batch-results", DataTable)
        assert table.row_count == planned  # one row per (arm, case), one run each
        records = load_file(ws.records_dir / "batch.jsonl").records
        assert len(records) == planned and {r.arm for r in records} == {"baseline", "docs-weak"}
        assert all(r.condition == "unconfined" for r in records)
        assert "├" in str(table.get_row_at(0)[5]) or "●" in str(table.get_row_at(0)[5])
