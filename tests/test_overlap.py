"""Overlap = same turn on every host (core/parsers/overlap.py), tested on REAL captured streams.

`*-parallel.jsonl` (tests/data/streams/README.md): one model turn issued [Read procedures/testing.md,
Edit notes.txt] together, after a turn that read notes.txt. Each host names that turn its own way
(Claude's message id, Gemini's call-id counter, OpenCode's step message id, Grok's one assistant
message). No pinned host issues a call of a NEW turn before an earlier result arrived on demand
(each waits for every result before it asks the model again), so the counter-example is derived
from the real stream: its turn names are taken away, one per call, and the stream's own result
order (Claude, Gemini, Grok, sim) or OpenCode's `state.time` must put the read and the edit back
into one turn. The same parse without the rule is `fired`: the test can fail.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from workbench.cli import main
from workbench.core.models import Call, ScoreSpec
from workbench.core.parsers import make_parser, run_parser
from workbench.core.parsers.overlap import Overlap
from workbench.core.scoring import score

STREAMS = Path(__file__).parent / "data" / "streams"
SPEC = ScoreSpec(kind="positive", required=["procedures/testing.md"], moment="edit")


def _claude(events: list[dict]) -> list[dict]:
    """Every assistant event its own message id: no id joins the read and the edit."""
    for n, event in enumerate(events):
        if event.get("type") == "assistant":
            event["message"]["id"] = f"{event['message']['id']}#{n}"
    return events


def _gemini(events: list[dict]) -> list[dict]:
    """Every call id's counter 0 (the counter that says `first call of a model turn`)."""
    ids: dict[str, str] = {}
    for n, event in enumerate(events):
        if event.get("type") == "tool_use":
            ids[event["tool_id"]] = event["tool_id"] = f"{event['tool_name']}_{1796127590000 + n}_0"
        elif event.get("type") == "tool_result":
            event["tool_id"] = ids[event["tool_id"]]
    return events


def _opencode(events: list[dict]) -> list[dict]:
    """Every tool part its own step message id: only `state.time` is left to join them."""
    for n, event in enumerate(events):
        if event.get("type") == "tool_use":
            event["part"]["messageID"] = f"msg_call{n}"
    return events


def _grok(events: list[dict]) -> list[dict]:
    """An assistant message with several calls split into one message per call."""
    out: list[dict] = []
    for event in events:
        calls = event.get("tool_calls") or []
        if event.get("role") == "assistant" and len(calls) > 1:
            out += [{**event, "tool_calls": [call]} for call in calls]
        else:
            out.append(event)
    return out


UNNAMED: dict[str, Callable[[list[dict]], list[dict]]] = {
    "claude": _claude, "sim": _claude, "gemini": _gemini, "opencode": _opencode, "grok": _grok}


def unnamed_lines(host: str) -> list[str]:
    events = [json.loads(x) for x in (STREAMS / f"{host}-parallel.jsonl").read_text().splitlines() if x.strip()]
    return [json.dumps(e) for e in UNNAMED[host](events)]


def parse(host: str, lines: list[str], overlap: bool = True) -> list[Call]:
    parser = make_parser(host)
    if not overlap:
        parser.book.overlap = None  # type: ignore[attr-defined]  # every such host keeps a CallBook
    return run_parser(parser, lines).calls


@pytest.mark.parametrize("host", sorted(UNNAMED))
def test_calls_issued_before_a_result_arrived_are_one_turn(host: str) -> None:
    lines = unnamed_lines(host)
    plain = parse(host, lines, overlap=False)
    assert len({c.turn for c in plain}) == 3  # the derivation worked: each call has a turn of its own
    calls = parse(host, lines)
    assert [c.index for c in calls] == [0, 1, 2]
    assert calls[0].turn < calls[1].turn == calls[2].turn
    assert score(SPEC, calls).verdicts == {"procedures/testing.md": "skip"}
    assert score(SPEC, plain).verdicts == {"procedures/testing.md": "fired"}


@pytest.mark.parametrize("host", sorted(UNNAMED))
def test_the_host_streams_as_captured_keep_their_turns(host: str) -> None:
    """The rule only merges: on the stream as the host wrote it, the turns are the host's."""
    lines = (STREAMS / f"{host}-parallel.jsonl").read_text().splitlines()
    assert [c.turn for c in parse(host, lines)] == [c.turn for c in parse(host, lines, overlap=False)] == [0, 1, 1]


@pytest.mark.parametrize("host", ["claude", "gemini", "opencode", "grok"])
def test_the_score_command_applies_it(host: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stream = tmp_path / "stream.jsonl"
    stream.write_text("\n".join(unnamed_lines(host)) + "\n")
    assert main(["score", str(stream), "--host", host, "--require", "procedures/testing.md", "--kind",
                 "positive", "--moment", "edit", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["verdicts"] == {"procedures/testing.md": "skip"}


def test_a_subagents_calls_do_not_join_the_delegating_turn() -> None:
    """A subagent works while its delegating call is open; its turns are its own conversation's."""
    overlap = Overlap()
    assert overlap.started(0, 0, "main") == 0  # the delegating call
    assert overlap.started(1, 1, "subagent:x") == 1  # the subagent's read, main's call still open
    overlap.arrived(1)
    assert overlap.started(2, 2, "subagent:x") == 2  # its next turn, after its read's result
    assert overlap.started(3, 3, "main") == 0  # main's own call issued while the delegation is open


def test_host_times_decide_and_a_missing_time_never_merges() -> None:
    overlap = Overlap(timed=True)
    assert overlap.started(0, 0, None, at=1.0) == 0
    overlap.arrived(0, at=5.0)
    assert overlap.started(1, 1, None, at=2.0) == 0  # began before the read's result (t=5)
    assert overlap.started(2, 2, None, at=6.0) == 2  # after every result
    overlap.arrived(1, at=3.0)
    overlap.arrived(2, at=None)
    assert overlap.started(3, 3, None, at=None) == 3
