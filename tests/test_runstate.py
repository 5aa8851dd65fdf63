"""RunState: merges a call's start and finish, asks THE scorer, describes its answer; no event loop."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from workbench.core.events import CallFinished, CallStarted, RunEnded, TextSeen
from workbench.core.models import Call, ScoreSpec
from workbench.core.runstate import RunState
from workbench.core.scoring import score

PROC = "workflows/commit.md"


def read(i: int, path: str = "/p/skills/ops/workflows/commit.md", status: str = "ok", cid: str | None = None) -> Call:
    return Call(index=i, tool="Read", kind="read", path=path, status=status, call_id=cid)  # type: ignore[arg-type]


def edit(i: int) -> Call:
    return Call(index=i, tool="Edit", kind="edit", path="/r/src/app.py")


def state(kind: str = "positive", moment: str = "edit") -> RunState:
    return RunState(kind=kind, required=[PROC], moment=moment)  # type: ignore[arg-type]


def test_start_and_finish_of_a_call_make_one_card_keyed_by_id() -> None:
    s = state()
    started = Call(index=0, tool="Read", kind="read", path="/x/a.md", call_id="toolu_1")
    assert s.consume(CallStarted(started)) == "id:toolu_1"
    assert s.cards["id:toolu_1"].finished is False
    finished = started.model_copy(update={"status": "error"})
    assert s.consume(CallFinished(finished)) == "id:toolu_1"
    assert list(s.cards) == ["id:toolu_1"]
    card = s.cards["id:toolu_1"]
    assert card.finished and card.call.status == "error" and card.version == 2


def test_calls_without_id_merge_by_index_and_keep_run_order() -> None:
    s = state()
    s.consume_all([CallStarted(edit(1)), CallStarted(read(0)), CallFinished(read(0)), CallFinished(edit(1))])
    assert s.order == ["#1", "#0"]
    assert [c.index for c in s.calls] == [0, 1]


def test_verdict_line_forms_live_from_the_scorer() -> None:
    s = state()
    s.consume(CallFinished(Call(index=0, tool="Skill", kind="skill", skill="ops")))
    assert s.verdict_line() == "not read · no moment yet → …"
    s.consume(CallFinished(read(1)))
    assert s.verdict_line() == "read at #1 · no moment yet → …"
    s.consume(CallFinished(edit(2)))
    assert s.verdict_line() == "read at #1 · moment at #2 → fired"
    assert s.read_keys(1) == ["workflows/commit.md"]


def test_a_refused_read_is_marked_and_not_counted() -> None:
    s = state()
    s.consume_all([CallFinished(read(0, status="denied")), CallFinished(edit(1))])
    assert RunState.failed_read(s.cards["#0"].call)
    assert s.verdict_line() == "not read · moment at #1 → skip"
    shell = Call(index=2, tool="Bash", kind="shell", command="git commit -m x", status="error")
    assert not RunState.failed_read(shell), "a failed commit is no failed read"
    cat = Call(index=3, tool="Bash", kind="shell", command="cat docs/x.md", status="error")
    assert RunState.failed_read(cat)


def test_negative_settles_only_when_opened_or_ended() -> None:
    s = state(kind="negative", moment="end")
    s.consume(TextSeen("hello"))
    assert s.verdict_line().endswith("→ …")
    s.consume(RunEnded())
    assert s.verdict_line() == "not read · moment at end → clean"
    s2 = state(kind="negative", moment="end")
    s2.consume(CallFinished(read(0)))
    assert s2.verdict_line().endswith("→ opened")


def test_from_calls_matches_the_scorer() -> None:
    calls = [read(0, path="/x/other.md"), edit(1), read(2)]
    s = RunState.from_calls(calls, kind="positive", required=[PROC], moment="edit")
    assert s.score() == score(ScoreSpec(kind="positive", required=[PROC], moment="edit"), calls)
    assert s.verdict_line(final=True) == "read at #2 · moment at #1 → skip"


kinds = st.sampled_from(["read-ok", "read-denied", "edit", "other"])


@given(st.lists(kinds, max_size=12), st.booleans())
def test_state_always_agrees_with_the_scorer(steps: list[str], ids: bool) -> None:
    calls = []
    for i, step in enumerate(steps):
        cid = f"c{i}" if ids else None
        if step.startswith("read"):
            calls.append(read(i, status="ok" if step == "read-ok" else "denied", cid=cid))
        elif step == "edit":
            calls.append(edit(i).model_copy(update={"call_id": cid}))
        else:
            calls.append(Call(index=i, tool="Grep", kind="other", call_id=cid))
    s = state()
    for c in calls:
        s.consume(CallStarted(c.model_copy(update={"status": "ok"})))
        s.consume(CallFinished(c))
    assert len(s.cards) == len(calls)
    assert s.score() == score(s.spec, calls)
