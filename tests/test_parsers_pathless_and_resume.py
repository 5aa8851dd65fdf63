"""The two parser gaps the seed suite found, on REAL captured streams (tests/data/streams/README.md).

`*-pathless.jsonl`: `cat missing/index.md` fails (exit 1) with an error that names no path, only
`No such file or directory`; then `git commit --allow-empty -m x`. `codex-resumed.jsonl`: two
`codex exec` processes, the second `codex exec resume --last`; the first reads the
version-control procedure, the second commits. Both number their items from `item_0`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.core.evidence import unreadable_paths
from workbench.core.models import ScoreSpec
from workbench.core.parsers import parse_lines
from workbench.core.scoring import read_paths, score

STREAMS = Path(__file__).parent / "data" / "streams"
COMMIT = r"bash:\bgit\b[^|;&]*\bcommit\b"
PROCEDURE = "/tmp/run/plugin/procedures/version-control/index.md"


def lines(name: str) -> list[str]:
    return (STREAMS / f"{name}.jsonl").read_text().splitlines()


def rollout(name: str) -> list[str] | None:
    log = STREAMS / f"{name}-rollout.jsonl"
    return log.read_text().splitlines() if log.exists() else None


@pytest.mark.parametrize(("host", "with_rollout"), [("claude", False), ("codex", False), ("codex", True)])
def test_a_cat_failing_with_a_pathless_error_is_not_a_read(host: str, with_rollout: bool) -> None:
    name = f"{host}-pathless"
    run = parse_lines(host, lines(name), rollout(name) if with_rollout else None)
    cat, commit = run.calls
    assert (cat.command, cat.status, cat.exit_code) == ("cat missing/index.md", "error", 1)
    assert cat.output is not None and "missing" not in cat.output and "No such file or directory" in cat.output
    assert unreadable_paths(cat.output) == [], "the output names no path: only the command can say which file"
    assert cat.unreadable == ["missing/index.md"] and read_paths(cat) == []
    assert commit.command == "git commit --allow-empty -m x"
    result = score(ScoreSpec(kind="positive", required=["missing/index.md"], moment=COMMIT), run.calls,
                   model_output=run.model_output)
    assert (result.moment_at, result.verdicts) == (1, {"missing/index.md": "skip"})


def test_the_codex_pathless_error_is_what_the_model_received() -> None:
    items = [json.loads(x)["item"] for x in lines("codex-pathless") if json.loads(x)["type"] == "item.completed"]
    assert items[0]["aggregated_output"] == "No such file or directory\n" and items[0]["exit_code"] == 1
    outputs = [json.loads(x)["payload"]["output"] for x in rollout("codex-pathless") or []
               if json.loads(x).get("payload", {}).get("type") == "function_call_output"]
    assert "No such file or directory" in outputs[0] and "missing/index.md" not in outputs[0]


def test_the_resumed_codex_process_numbers_its_items_again() -> None:
    """Ground truth of the capture: the same thread started twice, item ids restart, one rollout
    file grows (no second session_meta)."""
    events = [json.loads(x) for x in lines("codex-resumed")]
    threads = [e["thread_id"] for e in events if e["type"] == "thread.started"]
    assert len(threads) == 2 and threads[0] == threads[1]
    commands = [(e["item"]["id"], e["item"]["command"]) for e in events
                if e["type"] == "item.completed" and e["item"]["type"] == "command_execution"]
    assert [i for i, _ in commands] == ["item_0", "item_0"]
    log = [json.loads(x) for x in rollout("codex-resumed") or []]
    assert [e["type"] for e in log].count("session_meta") == 1
    assert sum(e["payload"].get("type") == "task_complete" for e in log if e["type"] == "event_msg") == 2


@pytest.mark.parametrize("with_rollout", [True, False])
def test_the_second_process_keeps_its_own_item(with_rollout: bool) -> None:
    run = parse_lines("codex", lines("codex-resumed"), rollout("codex-resumed") if with_rollout else None)
    got = [(c.command, c.call_id, c.status, c.exit_code) for c in run.calls]
    assert got == [(f"cat {PROCEDURE}", "item_0", "ok", 0),
                   ("git commit --allow-empty -m x", "item_0#2", "error", 128)], "the commit is not merged into the cat"
    assert [c.turn for c in run.calls] == [0, 1]  # rollout turns, or item timing (one after the other)
    result = score(ScoreSpec(kind="positive", required=["version-control/index.md"], moment=COMMIT), run.calls,
                   model_output=run.model_output)
    assert result.moment_at == 1 and result.verdicts == {"version-control/index.md": "fired"}
    assert result.order_basis == "turn"
