"""`workbench score`: the exact interface outside checks use, on real captured host streams."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.cli import main

STREAMS = Path(__file__).parent / "data" / "streams"


def score_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    assert main(["score", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_claude_refused_read_and_chained_shell_read(capsys: pytest.CaptureFixture[str]) -> None:
    out = score_json(capsys, str(STREAMS / "claude.jsonl"), "--host", "claude", "--require", "README.md",
                     "--require", "/tmp/outside/secret.txt", "--kind", "positive", "--moment", "edit")
    assert out["valid"] is True and out["host_version"]
    assert out["moment_at"] == 3
    assert out["reads"] == {"README.md": 1, "/tmp/outside/secret.txt": None}
    assert out["verdicts"] == {"README.md": "fired", "/tmp/outside/secret.txt": "skip"}
    assert [c["status"] for c in out["calls"]] == ["ok", "error", "denied", "ok"]
    assert set(out["calls"][0]) >= {"index", "tool", "kind", "path", "command", "status"}


def test_codex_session_log_adds_the_refusals(capsys: pytest.CaptureFixture[str]) -> None:
    args = [str(STREAMS / "codex.jsonl"), "--host", "codex", "--require", "notes.txt", "--kind", "negative",
            "--moment", "edit"]
    plain = score_json(capsys, *args)
    logged = score_json(capsys, *args, "--session-log", str(STREAMS / "codex-rollout.jsonl"))
    assert len(plain["calls"]) == 3 and len(logged["calls"]) == 5
    assert logged["host_version"] == "0.171.0" and plain["host_version"] is None
    assert logged["verdicts"] == {"notes.txt": "clean"}  # an apply_patch edits, it does not read


def test_named_command_moment_never_reached(capsys: pytest.CaptureFixture[str]) -> None:
    out = score_json(capsys, str(STREAMS / "opencode-final.jsonl"), "--host", "opencode", "--require",
                     "README.md", "--kind", "positive", "--moment", "pr")
    assert out["moment_at"] is None and out["verdicts"] == {"README.md": "read-noaction"}


def test_no_model_output_is_invalid_not_a_miss(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stream = tmp_path / "s.jsonl"
    stream.write_text('{"type":"result","subtype":"success","is_error":true,"result":"API Error: 529"}\n')
    out = score_json(capsys, str(stream), "--host", "claude", "--require", "a.md", "--kind", "positive")
    assert out["valid"] is False and out["verdicts"] == {"a.md": "no-output"}


def test_readable_table_without_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", str(STREAMS / "gemini-autoedit-allowshell.jsonl"), "--host", "gemini", "--require",
                 "notes.txt", "--kind", "positive"]) == 0
    text = capsys.readouterr().out
    assert "<- moment" in text and "notes.txt: fired" in text


@pytest.mark.parametrize("args, needle", [
    (["missing.jsonl", "--host", "claude", "--require", "a", "--kind", "positive"], "missing.jsonl"),
    ([str(STREAMS / "claude.jsonl"), "--host", "claude", "--require", "a", "--kind", "positive",
      "--moment", "bash:("], "moment"),
])
def test_bad_input_exits_2_with_one_line(args: list[str], needle: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and len(err.splitlines()) == 1
