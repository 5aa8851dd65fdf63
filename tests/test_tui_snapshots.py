"""Text snapshots of EVERY screen at 80x24, 120x40 and 200x50 (Textual's own render, colours dropped),
and at each size the screen's essentials are on screen (nothing essential cut or zero-height).

pytest-textual-snapshot 1.1.0 needs pytest<9 and we pin pytest 9.2, so the screens are compared
as plain text in tests/snapshots/*.txt. `UPDATE_SNAPSHOTS=1 pytest tests/test_tui_snapshots.py`
rewrites them; review the diff like code.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from textual.widgets import DataTable, Input
from tui_support import make_workspace, run_async, wait_for

from workbench.core.models import Call, RunRecord
from workbench.core.records import append_record
from workbench.tui.app import make_app
from workbench.tui.screentext import screen_text

SNAPSHOTS = Path(__file__).parent / "snapshots"
SIZES = [(80, 24), (120, 40), (200, 50)]
ESSENTIALS = {
    "rows": ["ops/commit", "ops/incident", "wording", "lint: clean", "arms of this row", "q quit", "badges",
             "Before committing", "commit.md", "pull-request.md"],
    "canary": ["host", "model", "script", "arm", "case", "╰", "ctrl+r", "prompt (optional)", "replaces the case's",
               "your login's"],
    "batch": ["baseline", "hosts", "model", "script", "runs", "confined", "until decided", "alpha", "cases",
              "results", "hits/valid", "plan:", "forecast", "start batch"],
    "records": ["12 record(s) from 1 file(s) · 12 shown", "condition", "negative-explain-app", "opened"],
    "compare": ["Δ pp", "paired", "flaky", "-33.3", "FLAKY", "A hits/n", "B hits/n", "0/3",
                "A funnel", "read before"],
    "postinstall": ["host", "model", "script", "REAL home", "╰", "run check"],
    "diff": ["baseline → file", "no change", "[-removed-] {+added+}"],
    "help": ["Trigger Workbench", "no input focused", "Post-install", "ctrl+z", "Call pane", "its reason"],
}


def check(name: str, text: str) -> None:
    path = SNAPSHOTS / f"{name}.txt"
    if os.environ.get("UPDATE_SNAPSHOTS") or not path.exists():
        if not os.environ.get("UPDATE_SNAPSHOTS"):
            pytest.fail(f"no snapshot {path.name}; run with UPDATE_SNAPSHOTS=1 and review it")
        path.write_text(text + "\n", encoding="utf-8")
    assert text + "\n" == path.read_text(encoding="utf-8"), f"screen differs from {path.name}:\n{text}"


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


async def settled(pilot: object, app: object) -> str:
    """The screen's text once two looks in a row agree and the footer is drawn (no fixed sleep). Each
    look waits until the screen has handled every pending message and the loop is idle (a DataTable
    sizes its columns when idle), so a loaded machine cannot make two stale looks agree."""
    before = ""
    for _ in range(100):
        await pilot.pause(0.1)  # type: ignore[attr-defined]
        await pilot.wait_for_scheduled_animations()  # type: ignore[attr-defined]
        await pilot.pause()  # type: ignore[attr-defined]
        now = screen_text(app)  # type: ignore[arg-type]
        if now == before and "palette" in now.rstrip("\n").split("\n")[-1]:  # the footer is drawn
            return now
        before = now
    raise AssertionError("the screen never settled")


def essentials(name: str, text: str, size: tuple[int, int]) -> None:
    lines = text.split("\n")
    assert len(lines) == size[1], f"{name}: {len(lines)} lines at {size}"
    missing = [e for e in ESSENTIALS[name] if e not in text]
    assert not missing, f"{name} at {size[0]}x{size[1]} lacks {missing}:\n{text}"


def cut_at_words(app: object) -> None:
    """Each row's `when` cell is its whole trigger, or a start of it ending at a word's end, then `…`."""
    screen = app.screen  # type: ignore[attr-defined]
    table = screen.query_one("#rows", DataTable)
    for row in screen.view.rows:
        when = str(table.get_cell(row.id, "when"))
        kept = when.removesuffix("…")
        assert when == row.trigger or (when.endswith("…") and row.trigger.startswith(kept) and (
            row.trigger[len(kept)] in " ,/-" or kept[-1] in "/-")), f"{row.id}: {when!r} cuts {row.trigger!r}"


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@run_async
async def test_every_screen(tmp_path: Path, size: tuple[int, int]) -> None:
    ws = make_workspace(tmp_path)
    ws.records_dir.mkdir()
    records(ws.records_dir / "batch.jsonl")
    app = make_app(ws)
    tag = f"{size[0]}x{size[1]}"
    async with app.run_test(size=size) as pilot:
        text = await settled(pilot, app)
        essentials("rows", text, size)
        cut_at_words(app)
        check(f"rows-{tag}", text)
        await pilot.press("d")
        text = await settled(pilot, app)
        essentials("diff", text, size)
        check(f"diff-{tag}", text)
        await pilot.press("escape")
        await pilot.press("question_mark")
        text = await settled(pilot, app)
        essentials("help", text, size)
        check(f"help-{tag}", text)
        await pilot.press("escape")
        for name in ("canary", "batch", "records", "compare", "postinstall"):
            await app.action_show(name)
            await pilot.pause(0.3)
            read = {"batch": "ForecastReady", "records": "RecordsRead", "compare": "ComparisonRead"}.get(name)
            if read is not None:  # the screen's worker has read the records files
                await wait_for(pilot, app, read)
                await pilot.pause(0.1)
            for field, value in (("#files", "records/batch.jsonl"), ("#pi-case", "canaries/post-install.toml")):
                for widget in app.screen.query(field).results(Input):
                    widget.value = value  # the temp folder's path would make the snapshot differ per run
            text = await settled(pilot, app)
            essentials(name, text, size)
            check(f"{name}-{tag}", text)
