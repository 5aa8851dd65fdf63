"""Text snapshots (as tests/test_tui_snapshots.py, same files and UPDATE_SNAPSHOTS) of the states the
screen-by-screen walk does not reach: a diff with a real change (a draft, and an arm read from git),
the confirm dialog, Compare split by script, the Sessions screen and an invalid run's card, at 80x24, 120x40 and 200x50,
each with its essentials on screen."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from test_tui_snapshots import SIZES, check, settled
from textual.widgets import DataTable, Input, Select, TextArea
from tui_support import linted, make_workspace, run_async, shown, until, wait_for

from workbench.authoring.arms import create_arm
from workbench.tui.app import make_app
from workbench.tui.screens.compare import CompareScreen
from workbench.tui.screens.sessions import SessionsScreen

IDS = [f"{w}x{h}" for w, h in SIZES]


@pytest.fixture(autouse=True)
def fixed_dates(monkeypatch: pytest.MonkeyPatch) -> None:
    """Commits (the workspace's, its arms') with one date: the shas on screen are the same each run."""
    for var in ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"):
        monkeypatch.setenv(var, "1767225600 +0000")


def unsha(text: str) -> str:
    """TEXT with each short commit sha masked (same width): an arm's sha follows the demo workspace's
    whole tree, which any change to the demo moves."""
    return re.sub(r"(?<![0-9a-f])[0-9a-f]{10}(?![0-9a-f])", "#" * 10, text)


def has(name: str, text: str, size: tuple[int, int], wanted: list[str]) -> None:
    assert len(text.split("\n")) == size[1], f"{name}: not {size[1]} lines"
    missing = [w for w in wanted if w not in " ".join(text.split())]
    assert not missing, f"{name} at {size[0]}x{size[1]} lacks {missing}:\n{text}"


@pytest.mark.parametrize("size", SIZES, ids=IDS)
@run_async
async def test_diffs_and_the_confirm_dialog(tmp_path: Path, size: tuple[int, int]) -> None:
    ws = make_workspace(tmp_path)
    create_arm(ws, "docs", "docs-weak", trigger="Documentation")
    app = make_app(ws)
    tag = f"{size[0]}x{size[1]}"
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, app, "ArmsRead")
        table = app.screen.query_one("#rows", DataTable)
        table.move_cursor(row=table.get_row_index("ops/docs"))
        await pilot.pause()
        table.focus()
        await pilot.press("d")  # no draft, an arm: the arm's wording from its commit
        await wait_for(pilot, app, "ArmRowRead")
        text = await settled(pilot, app)
        has("diff-arm", text, size, ["baseline → arm docs-weak", "{+Documentation+}", "[-removed-] {+added+}"])
        check(f"diff-arm-{tag}", unsha(text))
        await pilot.press("escape")
        editor = app.screen.query_one("#editor", TextArea)
        editor.load_text(editor.text.replace("Before editing documentation", "Before writing documentation"))
        await linted(pilot, app)
        await pilot.pause()
        table.focus()
        await pilot.press("d")
        text = await settled(pilot, app)
        has("diff-draft", text, size, ["baseline → draft", "[-editing-]{+writing+}"])
        check(f"diff-draft-{tag}", unsha(text))
        await pilot.press("escape")
        await pilot.press("ctrl+z")
        text = await settled(pilot, app)
        has("confirm", text, size, ["Drop the draft of ops/docs", "y", "n"])
        check(f"confirm-{tag}", unsha(text))


@pytest.mark.parametrize("size", SIZES, ids=IDS)
@run_async
async def test_compare_split_by_script(tmp_path: Path, size: tuple[int, int]) -> None:
    from test_tui_script_split import two_script_records

    record = two_script_records(tmp_path)
    ws = make_workspace(tmp_path)
    ws.records_dir.mkdir()
    shutil.copy(record, ws.records_dir / "batch.jsonl")
    app = make_app(ws)
    async with app.run_test(size=size) as pilot:
        screen = await shown(pilot, app, "compare", CompareScreen)
        await wait_for(pilot, app, "ComparisonRead")
        screen.query_one("#files", Input).value = "records/batch.jsonl"
        text = await settled(pilot, app)
        has("compare-scripts", text, size, ["edit-first.json", "(a872a8b)", "Δ pp", "paired", "1.000", "A hits/n",
                                            "B hits/n", "0/1 0%"] + (["paired p", "say-only.json"] if size[0] > 80 else []))
        check(f"compare-scripts-{size[0]}x{size[1]}", text)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
@run_async
async def test_sessions_screen(tmp_path: Path, size: tuple[int, int]) -> None:
    from test_sessions import rooted

    ws = make_workspace(tmp_path)
    home = rooted("claude-reads-then-commits", tmp_path / "run")
    rooted("claude-commits-unread", tmp_path / "run")
    app = make_app(ws)
    async with app.run_test(size=size) as pilot:
        screen = await shown(pilot, app, "sessions", SessionsScreen)
        screen.query_one("#ss-host", Select).value = "claude"
        screen.query_one("#ss-home", Input).value = str(home)
        await pilot.press("ctrl+r")
        await wait_for(pilot, app, "SessionsRead")
        screen.query_one("#ss-home", Input).value = "~"  # the temp folder would make the snapshot differ per run
        text = await settled(pilot, app)
        has("sessions", text, size, ["commit", "1/2 (50%)", "sessions read", "before moment", "never", "offered",
                                     "(arm)", "verdict", "skip-noaction", "3f90ddf4"])
        check(f"sessions-{size[0]}x{size[1]}", text)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
@run_async
async def test_an_invalid_runs_card(tmp_path: Path, size: tuple[int, int]) -> None:
    """A canary cancelled after its read: INVALID and its reason, no verdict, no READ mark on the card."""
    from test_tui_drafts_ask import READ_THEN_SLEEP
    from textual.widgets import Static

    from workbench.modelstub import parse_script
    from workbench.tui.screens.canary import CanaryScreen
    from workbench.tui.screentext import screen_text

    app = make_app(make_workspace(tmp_path))
    async with app.run_test(size=size) as pilot:
        screen = await shown(pilot, app, "canary", CanaryScreen)
        screen.query_one("#case", Select).value = "docs-readme-section"
        await pilot.pause()
        screen.script = parse_script(READ_THEN_SLEEP)
        screen.set_focus(None)
        await pilot.press("ctrl+r")
        await until(pilot, app, lambda: "READ workflows/" in screen_text(app),
                    "READ shown")  # the read scored live, before the cancel (README in the prompt is not it)
        await pilot.press("x")
        await wait_for(pilot, app, "RunScored")
        screen.query_one("#canary-status", Static).update("recorded in records/canary.jsonl")  # not the temp path
        text = await settled(pilot, app)
        has("invalid-card", text, size, ["INVALID: no verdict", "cancelled", "docs-readme-section"])
        assert " READ " not in text and "verdict: " not in text, text
        if size == (80, 24):  # the card's target keeps the path's end, the file name whole
            assert "…/docs.md" in text, text
        check(f"invalid-card-{size[0]}x{size[1]}", text)
