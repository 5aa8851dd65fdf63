"""Parsers used live: line by line equals offline, and no input line ever makes one raise."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.core.events import LineSkipped, ParsedRun
from workbench.core.hostinfo import NAMES
from workbench.core.parsers import make_parser, parse_lines

STREAMS = Path(__file__).parent / "data" / "streams"
HOST_STREAMS = {
    "claude": ["claude.jsonl", "claude-default.jsonl", "claude-mb-accept-allowbash.jsonl",
               "claude-bypass-sandbox.jsonl"],
    "codex": ["codex.jsonl", "codex-v-readonly.jsonl"],
    "opencode": ["opencode-final.jsonl"],
    "gemini": ["gemini-autoedit-allowshell.jsonl"],
    "grok": ["grok.jsonl", "grok-tools.jsonl"],
    "sim": ["claude.jsonl"],  # the sim host writes Claude Code's stream-json (tests/test_sim_*.py)
}
ALL = [(host, name) for host, names in HOST_STREAMS.items() for name in names]
REAL_LINES = {host: [ln for n in names for ln in (STREAMS / n).read_text().splitlines()]
              for host, names in HOST_STREAMS.items()}
ROLLOUT = (STREAMS / "codex-rollout.jsonl").read_text().splitlines()


def live(host: str, lines: list[str], session_log: list[str] | None = None) -> ParsedRun:
    """What a live pane folds: events of each fed line as they come, then finish()."""
    parser = make_parser(host, session_log)
    run = ParsedRun()
    for line in lines:
        for event in parser.feed(line + "\n"):
            run.apply(event)
    for event in parser.finish():
        run.apply(event)
    return run


def test_every_host_has_a_stream() -> None:
    assert set(HOST_STREAMS) == set(NAMES)


@pytest.mark.parametrize(("host", "name"), ALL)
def test_line_by_line_equals_offline(host: str, name: str) -> None:
    lines = (STREAMS / name).read_text().splitlines()
    offline = parse_lines(host, lines)
    assert live(host, lines) == offline
    assert offline.calls, "the stream has calls"


def test_codex_live_with_session_log_equals_offline() -> None:
    lines = (STREAMS / "codex.jsonl").read_text().splitlines()
    assert live("codex", lines, ROLLOUT) == parse_lines("codex", lines, session_log=ROLLOUT)


@pytest.mark.parametrize(("host", "name"), ALL)
def test_line_split_in_halves_is_skipped_not_fatal(host: str, name: str) -> None:
    lines = (STREAMS / name).read_text().splitlines()
    target = max(range(len(lines)), key=lambda i: len(lines[i]))
    half = len(lines[target]) // 2
    torn = lines[:target] + [lines[target][:half], lines[target][half:]] + lines[target + 1:]
    run = parse_lines(host, torn)
    assert [s.line_no for s in run.skipped][:2] == [target + 1, target + 2]
    assert all(isinstance(s, LineSkipped) for s in run.skipped)
    # Grok prints a call and its result on separate lines: a torn call makes its results orphans
    orphans = run.skipped[2:]
    assert all(host == "grok" and s.reason == "tool result for an unknown call" for s in orphans)


# --- never raises -----------------------------------------------------------------------------
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=20,
)
KEYS = ["type", "subtype", "message", "content", "item", "part", "state", "tool_use_id", "id", "name",
        "input", "is_error", "status", "tool_id", "tool_name", "parameters", "call", "index", "usage",
        "permission_denials", "output", "error", "command", "exit_code", "changes", "metadata", "text"]


def mutate(value: Any, rnd: random.Random, replacement: Any) -> Any:
    """VALUE with one nested field deleted, retyped or replaced."""
    if isinstance(value, dict) and value:
        key = rnd.choice(sorted(value))
        out = dict(value)
        action = rnd.randrange(3)
        if action == 0:
            del out[key]
        elif action == 1:
            out[key] = replacement
        else:
            out[key] = mutate(out[key], rnd, replacement)
        return out
    if isinstance(value, list) and value:
        out_list = list(value)
        pos = rnd.randrange(len(out_list))
        out_list[pos] = mutate(out_list[pos], rnd, replacement) if rnd.random() < 0.5 else replacement
        return out_list
    return replacement


def assert_never_raises(host: str, lines: list[str]) -> None:
    run = parse_lines(host, lines, ROLLOUT if host == "codex" else None)
    assert [c.index for c in run.calls] == list(range(len(run.calls)))


@pytest.mark.parametrize("host", NAMES)
@given(lines=st.lists(st.text(max_size=80), max_size=5))
def test_arbitrary_text_never_raises(host: str, lines: list[str]) -> None:
    assert_never_raises(host, lines)


@pytest.mark.parametrize("host", NAMES)
@given(values=st.lists(json_values, max_size=5))
def test_arbitrary_json_never_raises(host: str, values: list[Any]) -> None:
    assert_never_raises(host, [json.dumps(v) for v in values])


@pytest.mark.parametrize("host", NAMES)
@given(
    seed=st.integers(0, 2**32),
    replacement=json_values | st.sampled_from(KEYS),
    typed=st.sampled_from(KEYS),
)
def test_mutated_real_lines_never_raise(host: str, seed: int, replacement: Any, typed: str) -> None:
    rnd = random.Random(seed)
    lines = list(REAL_LINES[host])
    picks = rnd.sample(range(len(lines)), k=min(3, len(lines)))
    for pos in picks:
        obj = json.loads(lines[pos])
        if rnd.random() < 0.3:
            obj[typed] = replacement  # a top-level field retyped (or a new one)
        else:
            obj = mutate(obj, rnd, replacement)
        lines[pos] = json.dumps(obj)
    assert_never_raises(host, lines)


@pytest.mark.slow
@pytest.mark.parametrize("host", NAMES)
@settings(max_examples=2000, deadline=None)
@given(seed=st.integers(0, 2**32), replacement=json_values, extra=st.lists(json_values, max_size=3))
def test_mutated_real_lines_never_raise_slow(
    host: str, seed: int, replacement: Any, extra: list[Any]
) -> None:
    rnd = random.Random(seed)
    lines = list(REAL_LINES[host])
    for pos in rnd.sample(range(len(lines)), k=min(4, len(lines))):
        lines[pos] = json.dumps(mutate(json.loads(lines[pos]), rnd, replacement))
    lines[rnd.randrange(len(lines)):rnd.randrange(len(lines))] = [json.dumps(v) for v in extra]
    assert_never_raises(host, lines)


def test_wrong_types_are_skipped_lines() -> None:
    """Valid JSON with the wrong types is counted as skipped, not silently accepted or fatal."""
    cases = {
        "claude": ['{"type":"assistant","message":5}', '{"type":"user","message":{"content":{"a":1}}}'],
        "codex": ['{"type":"item.completed","item":[1]}', '{"type":"item.started","item":{"type":'
                  '"command_execution","id":"x","command":7}}'],
        "opencode": ['{"type":"tool_use","part":"x"}', '{"type":"tool_use","part":{"state":[]}}'],
        "gemini": ['{"type":"message","role":"assistant","content":[1]}',
                   '{"type":"tool_result","tool_id":"?"}'],
        "grok": ['{"role":"tool","tool_call_id":"nope","content":"x"}', '{"role":"assistant","tool_calls":[1]}'],
        "sim": ['{"type":"assistant","message":{"content":"text"}}', '{"type":"user","message":[]}'],
    }
    for host, lines in cases.items():
        run = parse_lines(host, lines)
        assert [s.line_no for s in run.skipped] == [1, 2], host
        assert not run.calls, host


# --- denials stay denials ---------------------------------------------------------------------
DENIALS_HOSTS = ["claude-default.jsonl", "claude.jsonl", "claude-mb-accept-allowbash.jsonl"]


@pytest.mark.parametrize("name", DENIALS_HOSTS)
@given(seed=st.integers(0, 2**32))
def test_denied_read_never_becomes_ok(name: str, seed: int) -> None:
    """Whatever calls permission_denials names, in any order, those calls end up denied, never ok."""
    rnd = random.Random(seed)
    lines = (STREAMS / name).read_text().splitlines()
    objs = [json.loads(ln) for ln in lines]
    uses = [b for o in objs if o["type"] == "assistant" for b in o["message"]["content"]
            if b["type"] == "tool_use"]
    chosen = rnd.sample(uses, k=rnd.randrange(len(uses) + 1))
    result = objs[-1]
    denials = list(result["permission_denials"]) + [
        {"tool_name": b["name"], "tool_use_id": b["id"], "tool_input": b["input"]} for b in chosen]
    rnd.shuffle(denials)
    result["permission_denials"] = denials
    run = parse_lines("claude", [json.dumps(o) for o in objs])
    denied_ids = {d["tool_use_id"] for d in denials}
    for call in run.calls:
        if call.call_id in denied_ids:
            assert call.status == "denied"
            if call.kind == "read":
                assert call.path in call.unreadable
    assert [c.index for c in run.calls] == list(range(len(uses)))


@pytest.mark.parametrize(("host", "name"), ALL)
def test_denied_calls_in_real_streams_are_never_ok(host: str, name: str) -> None:
    """The outside read is refused in every stream but the bypass one; it must never read as ok."""
    run = parse_lines(host, (STREAMS / name).read_text().splitlines())
    outside = [c for c in run.calls if c.kind == "read" and c.path == "/tmp/outside/secret.txt"]
    if name == "claude-bypass-sandbox.jsonl" or host == "grok":  # Grok's client refuses nothing
        assert [c.status for c in outside] == (["ok"] if name != "grok-tools.jsonl" else [])
    elif host != "codex":
        assert outside and all(c.status != "ok" for c in outside)
