"""Issue order, turns and content evidence on REAL captured streams (tests/data/streams/README.md).

`*-parallel.jsonl`: one model turn issued [Read procedures/testing.md, Edit notes.txt] together.
`*-content.jsonl`: `python3 -c "...print(open(sys.argv[1]).read())" <plugin>/procedures/testing.md`
(prints the procedure: a read no command rule sees), then `cat procedures/writing.md 2>/dev/null ||
echo 'no local copy'` (writing.md is not in the repo: only the echo is printed), then the edit.
The plugin copy those runs had is tests/data/streams/evidence-plugin.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.cli import main
from workbench.core.events import ParsedRun
from workbench.core.fingerprints import content_evidence
from workbench.core.models import Call, RunRecord, ScoreSpec
from workbench.core.parsers import parse_lines
from workbench.core.scoring import score
from workbench.runner.procedures import load_procedures

STREAMS = Path(__file__).parent / "data" / "streams"
PLUGIN = STREAMS / "evidence-plugin"
HOSTS = ["claude", "codex", "opencode", "gemini", "grok", "sim"]


def parse(host: str, name: str, rollout: bool = True) -> ParsedRun:
    log = STREAMS / f"{host}-{name}-rollout.jsonl"
    session = log.read_text().splitlines() if host == "codex" and rollout else None
    return parse_lines(host, (STREAMS / f"{host}-{name}.jsonl").read_text().splitlines(), session)


def issued(calls: list[Call]) -> list[tuple[str, str]]:
    return [(c.kind if c.kind != "shell" else "read", Path(c.path or (c.command or "").split()[-1]).name)
            for c in calls]


@pytest.mark.parametrize("host", HOSTS)
def test_parallel_calls_keep_issue_order_and_share_a_turn(host: str) -> None:
    calls = parse(host, "parallel").calls
    # Codex has no read tool: it reads with `cat` (kind shell), the same issue order
    assert issued(calls) == [("read", "notes.txt"), ("read", "testing.md"), ("edit", "notes.txt")]
    assert [c.index for c in calls] == [0, 1, 2]
    assert [c.turn for c in calls] == [0, 1, 1]


def test_opencode_finished_the_edit_first_but_numbers_in_issue_order() -> None:
    lines = (STREAMS / "opencode-parallel.jsonl").read_text().splitlines()
    finish_order = [json.loads(x)["part"]["tool"] for x in lines if json.loads(x)["type"] == "tool_use"]
    assert finish_order == ["read", "edit", "read"]  # the raw stream: the edit's event came first
    assert issued(parse("opencode", "parallel").calls) == issued(parse("claude", "parallel").calls)


@pytest.mark.parametrize("host", HOSTS)
def test_same_turn_read_and_edit_is_skip(host: str) -> None:
    calls = parse(host, "parallel").calls
    spec = ScoreSpec(kind="positive", required=["procedures/testing.md"], moment="edit")
    result = score(spec, calls)
    assert result.order_basis == "turn" and result.moment_at == 2
    assert result.reads == {"procedures/testing.md": 1} and result.verdicts == {"procedures/testing.md": "skip"}
    # the same calls without turn information fall back to index order, and say so
    untimed = score(spec, [c.model_copy(update={"turn": None}) for c in calls])
    assert untimed.order_basis == "index" and untimed.verdicts == {"procedures/testing.md": "fired"}


def _overlapped(lines: list[str], early: str, late: str) -> list[str]:
    """LINES with the `item.started` of item LATE moved before the `item.completed` of item EARLY: the
    overlap a Codex that runs a response's calls at once writes (the pinned one never does)."""
    events = [json.loads(x) for x in lines]
    start = next(i for i, e in enumerate(events) if e["type"] == "item.started" and e["item"]["id"] == late)
    moved = lines.pop(start)
    done = next(i for i, e in enumerate(json.loads(x) for x in lines)
                if e["type"] == "item.completed" and e["item"]["id"] == early)
    lines.insert(done, moved)
    return lines


def test_codex_call_started_before_the_reads_result_is_the_same_turn() -> None:
    """A read whose result had not arrived when the edit was issued cannot have shaped it: skip, on
    item timing alone (no rollout), as the same-turn rule says for every host."""
    lines = _overlapped((STREAMS / "codex-parallel.jsonl").read_text().splitlines(), "item_2", "item_3")
    calls = parse_lines("codex", lines).calls
    assert [c.turn for c in calls] == [0, 1, 1]
    result = score(ScoreSpec(kind="positive", required=["procedures/testing.md"], moment="edit"), calls)
    assert result.order_basis == "turn" and result.moment_at == 2 and result.reads == {"procedures/testing.md": 1}
    assert result.verdicts == {"procedures/testing.md": "skip"}
    in_order = parse_lines("codex", (STREAMS / "codex-parallel.jsonl").read_text().splitlines()).calls
    assert score(ScoreSpec(kind="positive", required=["procedures/testing.md"], moment="edit"),
                 in_order).verdicts == {"procedures/testing.md": "fired"}


def test_codex_without_its_rollout_takes_turns_from_item_timing() -> None:
    """The pinned Codex starts and completes each item before the next: each call its own turn, as
    index order would say; the rollout knows better (the read and the edit were one response)."""
    calls = parse("codex", "parallel", rollout=False).calls
    assert [c.turn for c in calls] == [0, 1, 2]
    assert score(ScoreSpec(kind="positive", required=["testing.md"]), calls).order_basis == "turn"
    assert [c.turn for c in parse("codex", "parallel").calls] == [0, 1, 1]


@pytest.mark.parametrize("host", HOSTS)
def test_content_evidence_decides_indirect_and_silently_failed_reads(host: str) -> None:
    calls = content_evidence(parse(host, "content").calls, load_procedures(PLUGIN))
    assert calls[1].evidence == {"procedures/testing.md": "shown"}
    assert calls[2].evidence == {"procedures/writing.md": "absent"}
    spec = ScoreSpec(kind="positive", required=["testing.md", "writing.md"], moment="edit")
    result = score(spec, calls)
    assert result.moment_at == 3
    assert result.reads == {"testing.md": 1, "writing.md": None}
    assert result.verdicts == {"testing.md": "fired", "writing.md": "skip"}
    assert result.read_basis == {"testing.md": "content"}
    assert [(c.call, c.required, c.command, c.content) for c in result.conflicts] == [
        (1, "testing.md", "no-read", "shown"), (2, "writing.md", "read", "absent")]
    # command analysis alone gets both wrong: that is what the evidence corrects
    blind = score(spec, parse(host, "content").calls)
    assert blind.verdicts == {"testing.md": "skip", "writing.md": "fired"}
    assert blind.read_basis == {"writing.md": "command"} and blind.conflicts == []


@pytest.mark.parametrize("host", HOSTS)
def test_a_read_tool_is_read_by_tool_status_or_content(host: str) -> None:
    spec = ScoreSpec(kind="negative", required=["testing.md"])
    plain = score(spec, parse(host, "parallel").calls)
    assert plain.verdicts == {"testing.md": "opened"}
    assert plain.read_basis == {"testing.md": "command" if host == "codex" else "tool-status"}
    checked = score(spec, content_evidence(parse(host, "parallel").calls, load_procedures(PLUGIN)))
    # Gemini's read_file returns no text: no evidence, the tool status decides
    assert checked.read_basis == {"testing.md": "tool-status" if host == "gemini" else "content"}
    assert checked.conflicts == []


def test_rescore_reproduces_from_the_record_alone() -> None:
    calls = content_evidence(parse("opencode", "content").calls, load_procedures(PLUGIN))
    record = RunRecord(condition="canary", host="opencode", target="t", kind="positive", calls=calls)
    stored = record.model_dump_json()
    assert calls[2].output == "no local copy\n"
    assert all({"output", "output_truncated"}.isdisjoint(c) for c in json.loads(stored)["calls"])  # outputs stay out
    back = RunRecord.model_validate_json(stored)
    assert all(c.output is None for c in back.calls)
    assert [c.evidence for c in back.calls] == [c.evidence for c in calls]
    assert [c.turn for c in back.calls] == [0, 1, 2, 3]
    spec = ScoreSpec(kind="positive", required=["testing.md", "writing.md"], moment="edit")
    # evidence already stored is kept: filling it again from a record (no outputs) changes nothing
    assert content_evidence(back.calls, load_procedures(PLUGIN)) == back.calls
    assert score(spec, back.calls) == score(spec, calls)


def test_score_command_computes_content_evidence_offline(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["score", str(STREAMS / "codex-content.jsonl"), "--host", "codex", "--session-log",
            str(STREAMS / "codex-content-rollout.jsonl"), "--require", "testing.md", "--require", "writing.md",
            "--kind", "positive", "--json"]
    assert main(args) == 0
    blind = json.loads(capsys.readouterr().out)
    assert main([*args, "--plugin", str(PLUGIN)]) == 0
    checked = json.loads(capsys.readouterr().out)
    assert blind["verdicts"] == {"testing.md": "skip", "writing.md": "fired"}
    assert checked["verdicts"] == {"testing.md": "fired", "writing.md": "skip"}
    assert blind["read_basis"] == {"writing.md": "command"} and blind["conflicts"] == []
    assert checked["read_basis"] == {"testing.md": "content"} and checked["order_basis"] == blind["order_basis"]
    assert {(c["required"], c["command"], c["content"]) for c in checked["conflicts"]} >= {
        ("testing.md", "no-read", "shown"), ("writing.md", "read", "absent")}
    assert checked["moment_basis"] == "pattern"


def test_score_command_refuses_a_missing_plugin(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["score", str(STREAMS / "sim-content.jsonl"), "--host", "sim", "--require", "a.md",
                 "--kind", "positive", "--plugin", str(tmp_path / "nope")])
    err = capsys.readouterr().err
    assert code == 2 and "nope" in err and "plugin" in err and "Traceback" not in err
