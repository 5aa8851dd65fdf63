"""The call pane as a virtual list: cards keyed by call id, history capped, only visible lines rendered."""

from __future__ import annotations

import asyncio

import pytest
from textual.app import App, ComposeResult
from tui_support import run_async

from workbench.core.events import CallFinished, CallStarted
from workbench.core.models import Call
from workbench.core.runstate import RunState
from workbench.tui.widgets import callpane
from workbench.tui.widgets.callpane import MAX_CARDS, CallPane


class PaneApp(App[None]):
    def compose(self) -> ComposeResult:
        yield CallPane()


def call(i: int, *, done: bool) -> Call:
    kind = "edit" if i == 7 else "read"
    return Call(index=i, tool="Edit" if kind == "edit" else "Read", kind=kind, path=f"/r/f{i}.md",
                call_id=f"toolu_{i}", status="ok", result=f"result of call {i}" if done else None)


@run_async
async def test_starts_and_finishes_merge_into_one_card_per_call_id() -> None:
    app = PaneApp()
    async with app.run_test(size=(100, 20)) as pilot:
        pane = app.query_one(CallPane)
        pane.reset(RunState(kind="positive", required=["f2.md"], moment="edit"))
        pane.feed_all([CallStarted(call(i, done=False)) for i in range(10)])
        pane.feed_all([CallFinished(call(i, done=True)) for i in range(10)])
        pane.flush(complete=True)
        await pilot.pause()
        assert pane.keys == [f"id:toolu_{i}" for i in range(10)]
        # one header + one result line per card, and the moment rule under the edit (call 7)
        assert pane.virtual_size.height == 10 * 2 + 1
        text = "\n".join(pane.render_line(y).text for y in range(pane.size.height))
        assert "READ f2.md" in text and "moment (edit)" in text


@run_async
async def test_a_burst_beyond_the_cap_keeps_the_newest_cards_and_counts_the_rest() -> None:
    app = PaneApp()
    async with app.run_test(size=(100, 20)) as pilot:
        pane = app.query_one(CallPane)
        state = RunState(kind="positive", required=["nothing.md"], moment="edit")
        pane.reset(state)
        extra = 250
        pane.feed_all([CallFinished(call(i, done=True)) for i in range(MAX_CARDS + extra)])
        pane.flush(complete=True)
        await pilot.pause()
        assert len(state.cards) == MAX_CARDS + extra, "the state keeps every call (the scorer needs them)"
        assert len(pane.keys) == MAX_CARDS and pane.dropped == extra
        assert pane.keys[0] == f"id:toolu_{extra}"
        assert pane.scroll_offset.y == pane.max_scroll_y > 0, "the pane follows the newest call"
        pane.scroll_to(y=0, animate=False, immediate=True)
        await pilot.pause()
        assert f"{extra} earlier calls not shown" in pane.render_line(0).text
        assert len(pane._cache) < 40, "only the cards on screen were rendered"


def test_a_flush_folds_queued_events_within_its_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(callpane, "FOLD_BUDGET", 0.0)

    async def scenario() -> None:
        app = PaneApp()
        async with app.run_test(size=(100, 20)):
            pane = app.query_one(CallPane)
            pane.reset(RunState(kind="positive", required=["x.md"], moment="edit"))
            pane.feed_all([CallFinished(call(i, done=True)) for i in range(1000)])
            pane.flush()
            assert len(pane.keys) == callpane.FOLD_SLICE, "one slice per flush once the budget is spent"
            pane.flush(complete=True)
            assert len(pane.keys) == 1000

    asyncio.run(scenario())


@run_async
async def test_a_card_the_scorer_finds_in_conflict_is_marked() -> None:
    """`cat` claims a read, the output showed none of the file: the scorer lists the conflict, the card says so."""
    app = PaneApp()
    async with app.run_test(size=(100, 20)) as pilot:
        pane = app.query_one(CallPane)
        pane.reset(RunState(kind="positive", required=["f2.md"], moment="edit"))
        silent = Call(index=0, tool="Bash", kind="shell", command="cat /r/f2.md 2>/dev/null || echo none",
                      call_id="toolu_0", result="none", evidence={"f2.md": "absent"})
        plain = Call(index=1, tool="Bash", kind="shell", command="ls", call_id="toolu_1", result="f2.md")
        pane.feed_all([CallFinished(silent), CallFinished(plain)])
        pane.flush(complete=True)
        await pilot.pause()
        lines = [pane.render_line(y).text for y in range(pane.size.height)]
        assert any("CONFLICT f2.md" in line and "cat /r/f2.md" in line for line in lines), lines
        assert not any("CONFLICT" in line and "ls" in line.split("Bash")[1][:10] for line in lines if "Bash" in line)
        assert "READ" not in "\n".join(lines), "the evidence decides: not a read"
