"""One host registry: names, adapters, parsers, tool vocabularies and script-call mappings come from
`workbench.core.hostinfo` / `workbench.hosts`, and every consumer agrees with it."""

from __future__ import annotations

import importlib

import pytest

from workbench.cli import build_parser
from workbench.core.hostinfo import HOSTS, NAMES, infer_kind, script_call, wire_host
from workbench.core.parsers import make_parser
from workbench.hosts import ADAPTERS, REAL_HOSTS, parser_for
from workbench.modelstub.script import ScriptCall

CALLS = [ScriptCall(read="/r/a.md"), ScriptCall(shell="ls"),
         ScriptCall.model_validate({"edit": {"path": "/r/n.txt", "old": "a", "new": "b"}}),
         ScriptCall.model_validate({"write": {"path": "/r/w", "content": "x"}}), ScriptCall(skill="ops")]


def test_every_name_has_an_adapter_and_a_parser() -> None:
    assert tuple(ADAPTERS) == NAMES
    for name in NAMES:
        assert ADAPTERS[name].name == name and parser_for(name).host == name
    assert set(REAL_HOSTS) == {"claude", "codex", "opencode", "gemini", "grok"}


@pytest.mark.parametrize("command", ["canary", "postinstall", "score"])
def test_cli_host_choices_are_the_registry(command: str) -> None:
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    parser = sub.choices[command]  # type: ignore[index]
    host = next(a for a in parser._actions if a.dest == "host")
    assert tuple(host.choices) == NAMES


@pytest.mark.parametrize("host", ["claude", "opencode", "gemini", "grok", "sim"])
def test_the_parser_uses_the_host_vocabulary(host: str) -> None:
    table = getattr(make_parser(host), "KINDS", None)
    if table is None:  # module-level tables
        table = importlib.import_module(f"workbench.core.parsers.{host}").KINDS
    assert dict(table) == dict(HOSTS[host].tools)


def test_claude_and_the_sim_map_a_script_call_the_same_way() -> None:
    """Once drifted (the sim's Edit had `replace_all`, the server's did not): now one function."""
    for call in CALLS:
        assert script_call("sim", call) == script_call("claude", call)
    assert script_call("claude", CALLS[2]) == ("Edit", {"file_path": "/r/n.txt", "old_string": "a",
                                                        "new_string": "b", "replace_all": False})


@pytest.mark.parametrize("host", ["claude", "opencode", "gemini", "grok"])
def test_each_mapped_tool_is_in_the_host_vocabulary_with_the_call_kind(host: str) -> None:
    expected = {"read": "read", "shell": "shell", "edit": "edit", "write": "edit", "skill": "skill"}
    if host == "grok":  # it has no skill tool: a skill call is the unknown tool the client refuses
        expected["skill"] = "other"
    for call in CALLS:
        tool, _ = script_call(host, call)
        assert HOSTS[host].kind(tool) == expected[call.kind], (host, tool)


def test_infer_kind_stays_importable_from_scoring() -> None:
    from workbench.core import scoring

    assert scoring.infer_kind is infer_kind and infer_kind("apply_patch") == "edit" and infer_kind("Glob") == "other"


def test_the_chat_wire_tells_opencode_from_grok_by_the_offered_tools() -> None:
    grok = ["bash", "create_file", "create_todo_list", "search", "str_replace_editor", "update_todo_list", "view_file"]
    assert wire_host("openai-chat", grok) == "grok"
    assert wire_host("openai-chat", ["bash", "edit", "glob", "grep", "read", "skill", "task", "write"]) == "opencode"
    assert wire_host("openai-chat", []) == "opencode" and wire_host("nope", grok) is None
