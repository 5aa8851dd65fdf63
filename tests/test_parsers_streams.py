"""Every captured host stream parses to its known ground truth (tests/data/streams/README.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.core.errors import InputError
from workbench.core.events import ParsedRun
from workbench.core.models import Call
from workbench.core.parsers import make_parser, parse_lines

STREAMS = Path(__file__).parent / "data" / "streams"
REPO = "/tmp/run/repo/"
NOTES, OUTSIDE = REPO + "notes.txt", "/tmp/outside/secret.txt"
CAT_LS = "cat README.md; ls missing"


def parse(name: str, host: str, log: str | None = None) -> ParsedRun:
    session = (STREAMS / log).read_text().splitlines() if log else None
    return parse_lines(host, (STREAMS / name).read_text().splitlines(), session_log=session)


def shape(calls: list[Call]) -> list[tuple[object, ...]]:
    return [(c.tool, c.kind, c.path or c.command or c.skill, c.status, c.exit_code) for c in calls]


CLAUDE_CASES = {
    "claude.jsonl": [
        ("Read", "read", NOTES, "ok", None),
        ("Bash", "shell", CAT_LS, "error", 2),
        ("Read", "read", OUTSIDE, "denied", None),
        ("Edit", "edit", NOTES, "ok", None),
    ],
    "claude-default.jsonl": [
        ("Read", "read", NOTES, "ok", None),
        ("Bash", "shell", CAT_LS, "error", 2),
        ("Read", "read", OUTSIDE, "denied", None),
        ("Edit", "edit", NOTES, "denied", None),
    ],
    "claude-mb-accept-allowbash.jsonl": [
        ("Read", "read", NOTES, "ok", None),
        ("Bash", "shell", "echo hi > bash_out.txt && python3 -c 'print(42)'", "ok", 0),
        ("Read", "read", OUTSIDE, "denied", None),
        ("Edit", "edit", NOTES, "ok", None),
    ],
    "claude-bypass-sandbox.jsonl": [
        ("Read", "read", NOTES, "ok", None),
        ("Bash", "shell", CAT_LS, "error", 2),
        ("Read", "read", OUTSIDE, "ok", None),
        ("Edit", "edit", NOTES, "ok", None),
    ],
}


@pytest.mark.parametrize("name", sorted(CLAUDE_CASES))
def test_claude_streams(name: str) -> None:
    run = parse(name, "claude")
    assert shape(run.calls) == CLAUDE_CASES[name]
    assert [c.index for c in run.calls] == [0, 1, 2, 3]
    assert run.init is not None and run.init.host_version == "2.1.197"
    assert run.init.model == "claude-opus-4-8[1m]"
    assert "Bash" in run.init.tools and "verify" in run.init.skills
    assert run.usage.input_tokens == 800 and run.usage.output_tokens == 100
    assert run.usage.cost_usd == pytest.approx(0.0065)
    assert run.ended is not None and not run.ended.is_error
    assert run.ended.served_model == "claude-opus-4-8[1m]"
    assert run.texts == ["I'll read the notes first.", "All done: read notes, ran bash, edited notes.txt."]
    assert not run.skipped


def test_claude_shell_error_keeps_its_reads() -> None:
    bash = parse("claude.jsonl", "claude").calls[1]
    assert bash.status == "error" and bash.exit_code == 2
    assert "missing" in bash.unreadable and "README.md" not in bash.unreadable
    assert bash.result is not None and "Hello from README." in bash.result


def test_claude_denied_read_marks_its_path_unreadable() -> None:
    denied = parse("claude.jsonl", "claude").calls[2]
    assert denied.unreadable == [OUTSIDE] and denied.call_id == "toolu_bcf1906c5de7475a8c0194e4"


def test_claude_denial_only_in_permission_denials_still_denies() -> None:
    """A denial with a neutral tool_result text is caught by the result event's permission_denials."""
    lines = (STREAMS / "claude.jsonl").read_text().splitlines()
    lines = [ln.replace("Claude requested permissions to read from /tmp/outside/secret.txt, but you haven't "
                        "granted it yet.", "Nope.") for ln in lines]
    run = parse_lines("claude", lines)
    assert run.calls[2].status == "denied"


def test_claude_synthetic_api_error_is_not_model_output() -> None:
    lines = [
        '{"type":"system","subtype":"init","claude_code_version":"2.1.197","model":"m"}',
        '{"type":"assistant","message":{"model":"<synthetic>","role":"assistant","content":'
        '[{"type":"text","text":"API Error: Repeated 529 Overloaded errors"}]}}',
        '{"type":"result","subtype":"success","is_error":true,'
        '"result":"API Error: Repeated 529 Overloaded errors"}',
    ]
    run = parse_lines("claude", lines)
    assert run.texts == [] and not run.model_output
    assert run.ended is not None and run.ended.is_error and "529" in (run.ended.error or "")


def test_claude_skill_and_agent_kinds() -> None:
    lines = [
        '{"type":"assistant","message":{"model":"m","content":[{"type":"tool_use","id":"a","name":"Skill",'
        '"input":{"skill":"operations"}},{"type":"tool_use","id":"b","name":"Task","input":{"prompt":"x"}},'
        '{"type":"tool_use","id":"c","name":"Grep","input":{"pattern":"x","path":"a.md"}},'
        '{"type":"tool_use","id":"d","name":"Bash","input":{"command":"bash -c \'cat a.md\'"}}]}}',
    ]
    run = parse_lines("claude", lines)
    kinds = [(c.kind, c.skill) for c in run.calls[:3]]
    assert kinds == [("skill", "operations"), ("agent", None), ("other", None)]
    assert run.calls[3].command == "cat a.md"
    assert all(c.status == "error" for c in run.calls)  # never answered before the stream ended


def test_codex_without_session_log_misses_the_refusals() -> None:
    run = parse("codex.jsonl", "codex")
    assert shape(run.calls) == [
        ("exec_command", "shell", "cat README.md", "ok", 0),
        ("exec_command", "shell", "ls missing", "error", 2),
        ("apply_patch", "edit", NOTES, "ok", None),
    ]
    assert run.calls[1].unreadable == ["missing"]
    assert run.init is None  # --json carries no version
    assert (run.usage.input_tokens, run.usage.cached_input_tokens, run.usage.output_tokens) == (1190, 0, 120)
    assert run.texts == ["Let me look at the README.", "Done: showed README and marked notes.txt as done."]
    assert run.ended is not None and not run.ended.is_error and not run.skipped


def test_codex_with_session_log_merges_the_refusals_in_order() -> None:
    run = parse("codex.jsonl", "codex", log="codex-rollout.jsonl")
    assert shape(run.calls) == [
        ("exec_command", "shell", "cat README.md", "ok", 0),
        ("exec_command", "shell", "ls missing", "error", 2),
        ("apply_patch", "edit", NOTES, "ok", None),
        ("exec_command", "shell", "echo escaped > /tmp/outside/codex_escape.txt", "error", 1),
        ("apply_patch", "edit", "/tmp/outside/codex_patch_escape.txt", "denied", None),
    ]
    assert [c.index for c in run.calls] == [0, 1, 2, 3, 4]
    assert run.calls[3].unreadable == []  # Read-only file system is a write refusal, not a failed read
    assert run.init is not None and run.init.host_version == "0.171.0"
    assert run.usage.input_tokens == 1190


def test_codex_refusal_between_calls_lands_at_its_position() -> None:
    """An omitted call the rollout shows before a --json call is emitted before it."""
    rollout = (STREAMS / "codex-rollout.jsonl").read_text().splitlines()
    json_lines = (STREAMS / "codex.jsonl").read_text().splitlines()
    later = json_lines[:9] + [
        '{"type":"item.completed","item":{"id":"item_9","type":"command_execution",'
        '"command":"/bin/bash -lc \'echo after\'","aggregated_output":"after\\n",'
        '"exit_code":0,"status":"completed"}}'
    ] + json_lines[9:]
    rollout.append(
        '{"type":"response_item","payload":{"type":"function_call","name":"exec_command",'
        '"arguments":"{\\"cmd\\": \\"echo after\\"}","call_id":"call_after"}}'
    )
    run = parse_lines("codex", later, session_log=rollout)
    assert [c.command or c.path for c in run.calls] == [
        "cat README.md", "ls missing", NOTES,
        "echo escaped > /tmp/outside/codex_escape.txt", "/tmp/outside/codex_patch_escape.txt", "echo after",
    ]
    assert [c.status for c in run.calls] == ["ok", "error", "ok", "error", "denied", "ok"]


def test_codex_readonly_stream() -> None:
    run = parse("codex-v-readonly.jsonl", "codex")
    assert shape(run.calls) == [
        ("exec_command", "shell", "cat README.md", "ok", 0),
        ("exec_command", "shell", "ls missing", "error", 2),
    ]
    assert not [c for c in run.calls if c.kind == "edit"]


def test_codex_turn_failed_ends_with_error() -> None:
    lines = ['{"type":"error","message":"stream disconnected"}',
             '{"type":"turn.failed","error":{"message":"model overloaded"}}']
    run = parse_lines("codex", lines)
    assert run.ended is not None and run.ended.is_error and run.ended.error == "model overloaded"


def test_opencode_stream() -> None:
    run = parse("opencode-final.jsonl", "opencode")
    assert shape(run.calls) == [
        ("read", "read", NOTES, "ok", None),
        ("bash", "shell", CAT_LS, "error", 2),
        ("read", "read", OUTSIDE, "denied", None),
        ("edit", "edit", NOTES, "ok", None),
    ]
    assert run.calls[1].unreadable == ["missing"]
    assert run.init is None
    assert (run.usage.input_tokens, run.usage.output_tokens) == (800, 100)
    assert run.usage.cost_usd is None  # every step says cost 0: the model is unpriced, not free
    assert run.ended is not None and not run.ended.is_error and not run.skipped


def _opencode_steps(*costs: float | None) -> list[str]:
    steps = []
    for n, cost in enumerate(costs):
        part: dict[str, object] = {"type": "step-finish", "reason": "stop" if n == len(costs) - 1 else "tool-calls",
                                   "tokens": {"input": 10, "output": 2, "cache": {"read": 0, "write": 0}}}
        if cost is not None:
            part["cost"] = cost
        steps.append(json.dumps({"type": "step_finish", "part": part}))
    return steps


@pytest.mark.parametrize(("costs", "expected"), [
    ((0.0, 0.0, 0.0), None),       # scripted / unpriced model: unknown, never 0
    ((None, None), None),          # no cost field at all
    ((0.0, 0.002, 0.001), 0.003),  # priced: a step at 0 (nothing billed) still counts as 0
    ((0.004,), 0.004),
])
def test_opencode_cost_is_unknown_unless_a_step_is_priced(costs: tuple[float | None, ...],
                                                          expected: float | None) -> None:
    run = parse_lines("opencode", _opencode_steps(*costs))
    assert run.usage.cost_usd == (None if expected is None else pytest.approx(expected))
    assert run.usage.input_tokens == 10 * len(costs)


def test_opencode_error_event_ends_with_error() -> None:
    run = parse_lines("opencode", ['{"type":"error","error":{"name":"APIError","data":{"message":"boom"}}}'])
    assert run.ended is not None and run.ended.is_error and run.ended.error == "boom"


def test_gemini_stream() -> None:
    run = parse("gemini-autoedit-allowshell.jsonl", "gemini")
    assert shape(run.calls) == [
        ("read_file", "read", NOTES, "ok", None),
        ("run_shell_command", "shell", CAT_LS, "ok", None),  # Gemini reports no exit code
        ("read_file", "read", OUTSIDE, "error", None),
        ("replace", "edit", NOTES, "ok", None),
    ]
    assert run.calls[1].unreadable == ["missing"]
    assert run.calls[2].unreadable == [OUTSIDE]
    assert run.init is not None and run.init.model == "gemini-2.5-pro" and run.init.host_version is None
    assert (run.usage.input_tokens, run.usage.output_tokens, run.usage.cached_input_tokens) == (750, 100, 0)
    assert run.ended is not None and not run.ended.is_error and not run.skipped
    assert run.texts == ["I'll read the notes first.", "All done: read notes, ran bash, edited notes.txt."]


def test_gemini_error_result() -> None:
    run = parse_lines("gemini", ['{"type":"result","status":"error","error":{"message":"quota"},"stats":{}}'])
    assert run.ended is not None and run.ended.is_error and run.ended.error == "quota"


def test_grok_stream() -> None:
    """Grok CLI 0.0.34: statuses from the tool texts; the failed bash dropped its stdout (README unread)."""
    run = parse("grok.jsonl", "grok")
    assert shape(run.calls) == [
        ("view_file", "read", NOTES, "ok", None),
        ("bash", "shell", CAT_LS, "error", None),  # "Command failed: ...": no exit code, stderr only
        ("view_file", "read", OUTSIDE, "ok", None),  # unconfined, the client reads anywhere
        ("str_replace_editor", "edit", NOTES, "ok", None),
    ]
    assert run.calls[1].unreadable == ["missing", "README.md"]
    assert [c.turn for c in run.calls] == [0, 1, 2, 3]
    assert run.init is None and run.usage.input_tokens is None  # nothing but the messages is printed
    assert run.texts == ["Done."]  # "Using tools to help you..." is the client's placeholder, not the model's
    assert run.ended is not None and not run.ended.is_error and not run.skipped


def test_grok_tool_failures_in_its_own_words() -> None:
    run = parse("grok-tools.jsonl", "grok")
    assert shape(run.calls) == [
        ("view_file", "read", REPO + "missing.txt", "error", None),
        ("skill", "other", None, "error", None),  # "Unknown tool: skill": Grok has no skills
        ("bash", "shell", "cat README.md", "ok", None),
        ("create_file", "edit", REPO + "new.txt", "ok", None),
        ("str_replace_editor", "edit", NOTES, "error", None),  # String not found in file
    ]
    assert run.calls[0].unreadable == [REPO + "missing.txt"]
    assert [c.turn for c in run.calls] == [0, 0, 1, 2, 3]


def test_grok_api_error_drops_the_calls_already_run() -> None:
    """A model API error mid-run: the client prints only the prompt and its apology (exit 0)."""
    run = parse("grok-api-error.jsonl", "grok")
    assert run.calls == [] and run.texts == [] and not run.model_output
    assert run.ended is not None and run.ended.is_error and run.ended.error == "Grok API error: 500 scripted 500"


def test_grok_view_file_shows_ten_lines_and_says_so() -> None:
    lines = ['{"role":"assistant","content":"","tool_calls":[{"id":"a","type":"function","function":'
             '{"name":"view_file","arguments":"{\\"path\\": \\"long.md\\"}"}}]}',
             json.dumps({"role": "tool", "tool_call_id": "a",
                         "content": "Contents of long.md:\n" + "\n".join(f"{i}: x" for i in range(1, 11))
                         + "\n... +5 lines"})]
    run = parse_lines("grok", lines)
    assert run.calls[0].status == "ok" and run.calls[0].output_truncated and run.texts == []


def test_grok_denial_wording_and_fatal_error() -> None:
    lines = ['{"role":"assistant","content":"Editing.","tool_calls":[{"id":"a","function":{"name":"create_file",'
             '"arguments":"{}"}}]}', '{"role":"tool","tool_call_id":"a","content":"File creation cancelled by user"}',
             '{"role":"assistant","content":"Error: boom"}']
    run = parse_lines("grok", lines)
    assert run.calls[0].status == "denied" and run.texts == ["Editing."]
    assert run.ended is not None and run.ended.is_error and run.ended.error == "boom"


def test_unknown_host_is_an_input_error() -> None:
    with pytest.raises(InputError):
        make_parser("nethack")


def test_codex_chained_read_before_a_refused_commit_still_read() -> None:
    """`cat f && git commit` failing on the read-only .git ran its cat: an error, not a denial."""
    rollout = [
        '{"type":"response_item","payload":{"type":"function_call","name":"exec_command",'
        '"arguments":"{\\"cmd\\": \\"cat proc.md && git commit -m x\\"}","call_id":"c1"}}',
        '{"type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":'
        '"Process exited with code 128\\nOutput:\\n# proc\\nfatal: Unable to create '
        "'.git/index.lock': Read-only file system\\n\"}}",
    ]
    run = parse_lines("codex", ['{"type":"turn.started"}'], session_log=rollout)
    assert [(c.command, c.status, c.exit_code) for c in run.calls] == [
        ("cat proc.md && git commit -m x", "error", 128)
    ]
    assert run.calls[0].unreadable == []
