"""Text snapshots of the main screens at 120x40 (Textual's own render, colours dropped).

pytest-textual-snapshot 1.1.0 needs pytest<9 and we pin pytest 9.2, so the screens are compared
as plain text in tests/snapshots/*.txt. `UPDATE_SNAPSHOTS=1 pytest tests/test_tui_snapshots.py`
rewrites them; review the diff like code.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from textual.widgets import Input
from tui_support import make_workspace, run_async

from workbench.core.models import Call, RunRecord
from workbench.core.records import append_record
from workbench.tui.app import make_app
from workbench.tui.screentext import screen_text

SNAPSHOTS = Path(__file__).parent / "snapshots"


def check(name: str, text: str) -> None:
    path = SNAPSHOTS / f"{name}.txt"
    if os.environ.get("UPDATE_SNAPSHOTS") or not path.exists():
        if not os.environ.get("UPDATE_SNAPSHOTS"):
            pytest.fail(f"no snapshot {path.name}; run with UPDATE_SNAPSHOTS=1 and review it")
        path.write_text(text + "\n", encoding="utf-8")
    assert text + "\n" == path.read_text(encoding="utf-8"), f"screen differs from {path.name}"


def records(path: Path) -> None:
    """Two arms on two cases, 3 runs each: deterministic numbers for the records and compare screens."""
    hits = {("baseline", "docs-readme-section"): [True, False, False], ("weak", "docs-readme-section"): [False] * 3,
            ("baseline", "negative-explain-app"): [True] * 3, ("weak", "negative-explain-app"): [True, True, False]}
    for (arm, case), runs in hits.items():
        for run, hit in enumerate(runs):
            negative = case.startswith("negative")
            verdict = ("clean" if hit else "opened") if negative else ("fired" if hit else "skip")
            calls = [Call(index=0, tool="Read", kind="read", path="<repo>/README.md"),
                     Call(index=1, tool="Edit", kind="edit", path="<repo>/README.md")]
            append_record(path, RunRecord(condition="unconfined", host="sim", model="sim-policy", arm=arm,
                                          case_id=case, target="none" if negative else "docs",
                                          kind="negative" if negative else "positive", run=run, calls=calls,
                                          moment="edit", required=["workflows/docs.md"], moment_at=1,
                                          overall=verdict, verdict={"docs.md": verdict}))  # type: ignore[dict-item]


@run_async
async def test_rows_screen(tmp_path: Path) -> None:
    app = make_app(make_workspace(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause(0.3)
        check("rows", screen_text(app))
        await pilot.press("question_mark")
        await pilot.pause(0.3)
        check("help", screen_text(app))


@run_async
async def test_records_and_compare_screens(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    ws.records_dir.mkdir()
    records(ws.records_dir / "batch.jsonl")
    app = make_app(ws)
    async with app.run_test(size=(120, 40)) as pilot:
        for name in ("records", "compare"):
            await app.action_show(name)
            await pilot.pause(0.3)
            app.screen.query_one("#files", Input).value = "records/batch.jsonl"
            await pilot.pause(0.3)
            check(name, screen_text(app))
