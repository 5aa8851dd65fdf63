"""The user's editor from Rows: its command line ($VISUAL over $EDITOR, `+LINE` only for editors that take
it), and what Rows says when there is none or the terminal cannot be handed over. The editor itself is
driven for real in tests/test_tui_e2e.py (vi in tmux)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tui_support import make_workspace, run_async, shown

from workbench.tui.app import make_app
from workbench.tui.editor import editor_argv, editor_command
from workbench.tui.screens.rows import RowsScreen


def test_visual_wins_over_editor_and_only_line_editors_get_a_line() -> None:
    assert editor_command({"EDITOR": "nano", "VISUAL": "code -w"}) == ["code", "-w"]
    assert editor_command({"EDITOR": "  ", "VISUAL": ""}) is None
    assert editor_argv(["/usr/bin/vim"], [Path("a.md")], 13) == ["/usr/bin/vim", "+13", "a.md"]
    assert editor_argv(["code", "-w"], [Path("a.md")], 13) == ["code", "-w", "a.md"]
    assert editor_argv(["nano"], [Path("a.md"), Path("b.md")]) == ["nano", "a.md", "b.md"]


@run_async
async def test_no_editor_set_or_no_terminal_to_hand_over_is_said_not_crashed(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app(make_workspace(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await shown(pilot, app, "rows", RowsScreen)
        monkeypatch.delenv("VISUAL", raising=False)
        monkeypatch.delenv("EDITOR", raising=False)
        await pilot.press("o")
        await pilot.pause()
        monkeypatch.setenv("EDITOR", "vi")
        await pilot.press("p")  # the headless test driver cannot suspend: said in one line
        await pilot.pause()
        said = [n.message for n in app._notifications]
    assert any("set $VISUAL or $EDITOR" in m for m in said), said
    assert any("cannot be handed to an editor" in m for m in said), said
