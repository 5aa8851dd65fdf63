"""The scripted model server over real HTTP on 127.0.0.1: each wire API's stream shape, the stateless
step choice, canned answers for tool-less requests, faults, placeholders and the offered-tools log."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from workbench.modelstub import Fault, ModelServer, parse_script

SCRIPT = parse_script({"steps": [
    {"say": "Reading first.", "calls": [{"read": "{repo}/notes.txt"}]},
    {"calls": [{"shell": "cat {repo}/README.md; ls missing"}]},
    {"calls": [{"edit": {"path": "{repo}/notes.txt", "old": "todo", "new": "done"}}]},
    {"say": "All done."},
]})
GEMINI_STREAM = "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"
Call = tuple[str, Any]


# ---- HTTP and SSE ---------------------------------------------------------------------------------

def post(srv: ModelServer, path: str, body: dict[str, Any], timeout: float = 5) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=timeout)
    try:
        conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def sse(raw: bytes) -> list[tuple[str | None, Any]]:
    """(event name, decoded data) per server-sent event."""
    out: list[tuple[str | None, Any]] = []
    for block in raw.decode().split("\n\n"):
        if not block.strip():
            continue
        fields = dict(line.split(": ", 1) for line in block.split("\n"))
        data = fields["data"]
        out.append((fields.get("event"), data if data == "[DONE]" else json.loads(data)))
    return out


# ---- one request body per API, with `turns` model turns already in its history ---------------------

def anthropic_body(turns: int, tools: bool = True) -> dict[str, Any]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    for i in range(turns):
        messages.append({"role": "assistant", "content": [{"type": "tool_use", "id": f"t{i}", "name": "Read",
                                                           "input": {}}]})
        messages.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{i}",
                                                      "content": "ok"}]})
    body = {"model": "claude-x", "stream": True, "messages": messages,
            "system": [{"type": "text", "text": "s"}]}
    if tools:
        body["tools"] = [{"name": n, "input_schema": {}} for n in ("Bash", "Edit", "Read", "Skill", "Write")]
    return body


def responses_body(turns: int, tools: bool = True) -> dict[str, Any]:
    items: list[dict[str, Any]] = [{"type": "message", "role": "user",
                                    "content": [{"type": "input_text", "text": "go"}]}]
    for i in range(turns):
        items.append({"type": "message", "role": "assistant",
                      "content": [{"type": "output_text", "text": "x"}]})
        items.append({"type": "function_call", "name": "exec_command", "arguments": "{}", "call_id": f"c{i}"})
        items.append({"type": "function_call_output", "call_id": f"c{i}", "output": "ok"})
    body: dict[str, Any] = {"model": "gpt-5.5", "stream": True, "input": items, "instructions": "i"}
    if tools:
        body["tools"] = [{"type": "function", "name": "exec_command", "parameters": {}},
                         {"type": "custom", "name": "apply_patch", "format": {"type": "grammar"}}]
    return body


def chat_body(turns: int, tools: bool = True) -> dict[str, Any]:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "s"}, {"role": "user", "content": "go"}]
    for i in range(turns):
        messages.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": f"c{i}", "type": "function", "function": {"name": "read", "arguments": "{}"}}]})
        messages.append({"role": "tool", "tool_call_id": f"c{i}", "content": "ok"})
    body: dict[str, Any] = {"model": "m", "stream": True, "messages": messages,
                            "stream_options": {"include_usage": True}}
    if tools:
        body["tools"] = [{"type": "function", "function": {"name": n, "parameters": {}}}
                         for n in ("bash", "edit", "read", "write")]
    return body


def gemini_body(turns: int, tools: bool = True) -> dict[str, Any]:
    contents: list[dict[str, Any]] = [{"role": "user", "parts": [{"text": "go"}]}]
    for _ in range(turns):
        contents.append({"role": "model", "parts": [{"functionCall": {"name": "read_file", "args": {}}}]})
        contents.append({"role": "user",
                         "parts": [{"functionResponse": {"name": "read_file", "response": {}}}]})
    body: dict[str, Any] = {"contents": contents, "systemInstruction": {"parts": [{"text": "s"}]}}
    if tools:
        names = ("read_file", "replace", "run_shell_command", "write_file")
        body["tools"] = [{"functionDeclarations": [{"name": n} for n in names]}]
    return body


# ---- reduce each API's stream to (text, calls), asserting its event order on the way -------------

def anthropic_reduce(raw: bytes) -> tuple[str, list[Call], dict[str, Any]]:
    events = sse(raw)
    assert all(name == data["type"] for name, data in events)
    names = [name for name, _ in events]
    assert names[0] == "message_start" and names[-2:] == ["message_delta", "message_stop"]
    assert events[0][1]["message"]["content"] == [] and events[0][1]["message"]["role"] == "assistant"
    text, calls = "", []
    body = iter(events[1:-2])
    for index, (name, data) in enumerate(body):
        assert (name, data["index"]) == ("content_block_start", index)
        block, pieces = data["content_block"], []
        for name, data in body:
            if name == "content_block_stop":
                break
            assert name == "content_block_delta" and data["index"] == index
            pieces.append(data["delta"]["text" if block["type"] == "text" else "partial_json"])
            assert data["delta"]["type"] == ("text_delta" if block["type"] == "text" else "input_json_delta")
        else:
            raise AssertionError("content block never stopped")
        if block["type"] == "text":
            text += "".join(pieces)
        else:
            assert block["id"].startswith("toolu_") and block["input"] == {}
            calls.append((block["name"], json.loads("".join(pieces))))
    delta = events[-2][1]
    assert delta["delta"]["stop_reason"] == ("tool_use" if calls else "end_turn")
    assert delta["usage"]["output_tokens"] > 0 and events[0][1]["message"]["usage"]["input_tokens"] > 0
    return text, calls, delta


def responses_reduce(raw: bytes) -> tuple[str, list[Call], dict[str, Any]]:
    events = sse(raw)
    assert [d["sequence_number"] for _, d in events] == list(range(len(events)))
    assert all(name == data["type"] for name, data in events)
    assert events[0][0] == "response.created" and events[-1][0] == "response.completed"
    completed = events[-1][1]["response"]
    assert completed["usage"]["input_tokens"] > 0 and completed["usage"]["output_tokens"] > 0
    text, calls, deltas, items = "", [], "", []
    for name, data in events[1:-1]:
        if name == "response.output_item.added":
            assert data["output_index"] == len(items) and data["item"]["status"] == "in_progress"
            deltas = ""
        elif name and name.endswith(".delta"):
            deltas += data["delta"]
        elif name in ("response.function_call_arguments.done", "response.custom_tool_call_input.done",
                      "response.output_text.done"):
            assert deltas == data.get("arguments", data.get("input", data.get("text")))
        elif name == "response.output_item.done":
            item = data["item"]
            items.append(item)
            if item["type"] == "message":
                text += item["content"][0]["text"]
                assert deltas == item["content"][0]["text"]
            elif item["type"] == "function_call":
                assert deltas == item["arguments"] and item["call_id"]
                assert "response.function_call_arguments.delta" in [n for n, _ in events]
                calls.append((item["name"], json.loads(item["arguments"])))
            elif item["type"] == "tool_search_call":
                assert item["execution"] == "client" and item["call_id"]
                calls.append(("tool_search", item["arguments"]))
            else:
                assert item["type"] == "custom_tool_call" and deltas == item["input"]
                calls.append((item["name"], item["input"]))
    assert completed["output"] == items
    return text, calls, completed


def chat_reduce(raw: bytes) -> tuple[str, list[Call], dict[str, Any]]:
    events = [data for _, data in sse(raw)]
    assert events[-1] == "[DONE]"
    usage_chunk, chunks = events[-2], events[:-2]
    assert usage_chunk["choices"] == [] and usage_chunk["usage"]["total_tokens"] > 0
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    text, tools = "", {}
    for chunk in chunks[:-1]:
        assert chunk["object"] == "chat.completion.chunk" and chunk["choices"][0]["finish_reason"] is None
        delta = chunk["choices"][0]["delta"]
        text += delta.get("content") or ""
        for tc in delta.get("tool_calls", []):
            if "id" in tc:
                assert tc["index"] not in tools and tc["type"] == "function"
                tools[tc["index"]] = [tc["function"]["name"], ""]
            tools[tc["index"]][1] += tc["function"]["arguments"]
    calls = [(name, json.loads(args)) for name, args in tools.values()]
    finish = chunks[-1]["choices"][0]
    assert finish["finish_reason"] == ("tool_calls" if calls else "stop") and finish["delta"] == {}
    return text, calls, usage_chunk


def gemini_reduce(raw: bytes) -> tuple[str, list[Call], dict[str, Any]]:
    chunks = [data for name, data in sse(raw)]
    text, calls = "", []
    for chunk in chunks:
        content = chunk["candidates"][0]["content"]
        assert content["role"] == "model"
        for part in content["parts"]:
            if "functionCall" in part:
                calls.append((part["functionCall"]["name"], part["functionCall"]["args"]))
            else:
                text += part["text"]
    last = chunks[-1]
    assert last["candidates"][0]["finishReason"] == "STOP" and last["usageMetadata"]["totalTokenCount"] > 0
    assert all("finishReason" not in c["candidates"][0] for c in chunks[:-1])
    return text, calls, last


# ---- what each host should receive at turns 0, 1, 2 and 3 -----------------------------------------

def expected(api: str, repo: str) -> list[tuple[str, list[Call]]]:
    notes, shell = f"{repo}/notes.txt", f"cat {repo}/README.md; ls missing"
    patch = f"*** Begin Patch\n*** Update File: {notes}\n@@\n-status: todo\n+status: done\n*** End Patch\n"
    desc = "Run a scripted command"
    return {
        "anthropic": [("Reading first.", [("Read", {"file_path": notes})]),
                      ("", [("Bash", {"command": shell, "description": desc})]),
                      ("", [("Edit", {"file_path": notes, "old_string": "todo", "new_string": "done",
                                        "replace_all": False})]),
                      ("All done.", [])],
        "responses": [("Reading first.", [("exec_command", {"cmd": f"cat {notes}"})]),
                      ("", [("exec_command", {"cmd": shell})]),
                      ("", [("apply_patch", patch)]),
                      ("All done.", [])],
        "chat": [("Reading first.", [("read", {"filePath": notes})]),
                 ("", [("bash", {"command": shell, "description": desc})]),
                 ("", [("edit", {"filePath": notes, "oldString": "todo", "newString": "done"})]),
                 ("All done.", [])],
        "gemini": [("Reading first.", [("read_file", {"file_path": notes})]),
                   ("", [("run_shell_command", {"command": shell, "description": desc})]),
                   ("", [("replace", {"file_path": notes, "old_string": "todo", "new_string": "done",
                                      "instruction": "Apply the scripted edit"})]),
                   ("All done.", [])],
    }[api]


APIS = {"anthropic": ("/v1/messages?beta=true", anthropic_body, anthropic_reduce),
        "responses": ("/v1/responses", responses_body, responses_reduce),
        "chat": ("/v1/chat/completions", chat_body, chat_reduce),
        "gemini": (GEMINI_STREAM, gemini_body, gemini_reduce)}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "notes.txt").write_text("notes\nstatus: todo\n")
    return tmp_path


@pytest.fixture
def srv(repo: Path) -> Iterator[ModelServer]:
    with ModelServer(SCRIPT, {"repo": str(repo)}, log_path=repo / "offered.jsonl") as server:
        yield server
    assert server.errors == []


@pytest.mark.parametrize("api", list(APIS))
def test_each_turn_gets_its_scripted_call_in_the_hosts_shape(api: str, srv: ModelServer, repo: Path) -> None:
    path, body, reduce = APIS[api]
    for turn, want in enumerate(expected(api, str(repo))):
        status, raw = post(srv, path, body(turn))
        assert status == 200
        text, calls, _ = reduce(raw)
        assert (text, calls) == want, f"turn {turn}"
    assert [o["turn"] for o in srv.offered] == [0, 1, 2, 3]
    assert srv.url == f"http://127.0.0.1:{srv.port}" and len(srv.requests) == 4


@pytest.mark.parametrize("api", list(APIS))
def test_requests_without_tools_get_canned_text_and_do_not_advance(api: str, srv: ModelServer) -> None:
    path, body, reduce = APIS[api]
    status, raw = post(srv, path, body(2, tools=False))
    text, calls, _ = reduce(raw)
    assert status == 200 and text and calls == []
    assert srv.offered[-1]["scripted"] is False and srv.offered[-1]["turn"] is None
    _, raw = post(srv, path, body(0))
    assert reduce(raw)[0] == "Reading first."


def test_gemini_router_gets_a_complexity_score(srv: ModelServer) -> None:
    router = "/v1beta/models/gemini-2.5-flash-lite:generateContent"
    status, raw = post(srv, router, gemini_body(0, tools=False))
    answer = json.loads(raw)
    verdict = json.loads(answer["candidates"][0]["content"]["parts"][0]["text"])
    assert status == 200 and verdict["complexity_score"] >= 1
    assert answer["usageMetadata"]["promptTokenCount"] > 0
    assert srv.offered[-1]["model"] == "gemini-2.5-flash-lite" and not srv.offered[-1]["scripted"]


def test_non_streamed_requests_get_one_json_answer(srv: ModelServer) -> None:
    status, raw = post(srv, "/v1/messages", dict(anthropic_body(1), stream=False))
    message = json.loads(raw)
    assert status == 200 and message["stop_reason"] == "tool_use"
    assert message["content"][0]["name"] == "Bash" and message["usage"]["output_tokens"] > 0
    status, raw = post(srv, "/v1/chat/completions", dict(chat_body(0), stream=False))
    choice = json.loads(raw)["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    assert choice["message"]["tool_calls"][0]["function"]["name"] == "read"


def test_claude_reads_an_edit_target_before_editing(repo: Path) -> None:
    edit = {"edit": {"path": "{repo}/notes.txt", "old": "a", "new": "b"}}
    script = parse_script({"steps": [{"calls": [edit]}]})
    with ModelServer(script, {"repo": str(repo)}) as server:
        claude = [anthropic_reduce(post(server, "/v1/messages", anthropic_body(n))[1])[1] for n in range(3)]
        gemini = [gemini_reduce(post(server, GEMINI_STREAM, gemini_body(n))[1])[1] for n in range(2)]
    notes = f"{repo}/notes.txt"
    assert claude == [[("Read", {"file_path": notes})],
                      [("Edit", {"file_path": notes, "old_string": "a", "new_string": "b", "replace_all": False})], []]
    assert [[name for name, _ in calls] for calls in gemini] == [["replace"], []]


def test_a_subagent_is_answered_from_its_own_steps_by_the_prompt_that_opens_its_history(repo: Path) -> None:
    prompt = "Read {repo}/docs/proc.md and sum it up."
    script = parse_script({"steps": [
        {"calls": [{"agent": {"prompt": prompt, "type": "Explore", "steps": [
            {"calls": [{"read": "{repo}/docs/proc.md"}]}, {"say": "It says: check twice."}]}}]},
        {"calls": [{"shell": "git commit -m x"}]}]})
    delegated = prompt.replace("{repo}", str(repo))

    def child(turns: int) -> dict[str, Any]:
        body = anthropic_body(turns)
        body["messages"][0]["content"] = [{"type": "text", "text": "<system-reminder>x</system-reminder>"},
                                          {"type": "text", "text": delegated}]
        return body

    with ModelServer(script, {"repo": str(repo)}, faults=[Fault("status", step=0, status=500, times=1)]) as server:
        sub = [anthropic_reduce(post(server, "/v1/messages", child(n))[1]) for n in (0, 1)]
        assert post(server, "/v1/messages", anthropic_body(0))[0] == 500  # a fault at a main turn: main only
        main = [anthropic_reduce(post(server, "/v1/messages", anthropic_body(n))[1])[1] for n in (0, 1)]
    assert main == [[("Agent", {"description": "Scripted delegation", "prompt": delegated,
                                "subagent_type": "Explore"})],
                    [("Bash", {"command": "git commit -m x", "description": "Run a scripted command"})]]
    assert [calls for _, calls, _ in sub] == [[("Read", {"file_path": f"{repo}/docs/proc.md"})], []]
    assert sub[1][0] == "It says: check twice."
    assert [e["agent"] for e in server.offered] == [delegated, delegated, None, None, None]
    assert [turn for turn, _ in server.asked] == [0, 0, 1]  # the turn clock is the main agent's


def test_codex_delegates_by_loading_its_agent_tools_spawning_and_waiting(repo: Path) -> None:
    """Codex's agent tools are deferred and its subagent runs in the background: a delegating step is
    a tool search (once), the spawn, then a wait on the id the spawn's output named."""
    prompt = "Read {repo}/docs/proc.md and sum it up."
    script = parse_script({"steps": [
        {"say": "Delegating.", "calls": [{"agent": {"prompt": prompt, "steps": [
            {"calls": [{"read": "{repo}/docs/proc.md"}]}, {"say": "It says: check twice."}]}}]},
        {"calls": [{"shell": "git commit -m x"}]}]})
    delegated = prompt.replace("{repo}", str(repo))
    spawn = {"type": "function_call", "name": "spawn_agent", "namespace": "multi_agent_v1", "call_id": "s1",
             "arguments": json.dumps({"message": delegated})}
    history = [[{"type": "tool_search_call", "call_id": "t1", "execution": "client", "arguments": {}},
                {"type": "tool_search_output", "call_id": "t1", "tools": []}],
               [spawn, {"type": "function_call_output", "call_id": "s1",
                        "output": json.dumps({"agent_id": "child-1", "nickname": "Ampere"})}],
               [{"type": "function_call", "name": "wait_agent", "call_id": "w1",
                 "arguments": json.dumps({"targets": ["child-1"]})},
                {"type": "function_call_output", "call_id": "w1", "output": "{}"}]]

    def main(turns: int) -> dict[str, Any]:
        body = responses_body(0)
        body["input"] += [item for step in history[:turns] for item in step]
        return body

    child = responses_body(0)
    child["input"][0]["content"][0]["text"] = delegated
    with ModelServer(script, {"repo": str(repo)}) as server:
        answers = [responses_reduce(post(server, "/v1/responses", main(n))[1]) for n in range(4)]
        sub = responses_reduce(post(server, "/v1/responses", child)[1])
    assert [calls for _, calls, _ in answers] == [
        [("tool_search", {"query": "spawn sub-agent"})], [("spawn_agent", {"message": delegated})],
        [("wait_agent", {"targets": ["child-1"], "timeout_ms": 600000})], [("exec_command", {"cmd": "git commit -m x"})]]
    assert answers[1][0] == "Delegating." and answers[1][2]["output"][1]["namespace"] == "multi_agent_v1"
    assert sub[1] == [("exec_command", {"cmd": f"cat {repo}/docs/proc.md"})]
    assert [e["agent"] for e in server.offered] == [None] * 4 + [delegated]


def test_skill_calls_and_what_the_host_offered_are_logged(repo: Path) -> None:
    write = {"write": {"path": "{repo}/w", "content": "x"}}
    script = parse_script({"steps": [{"calls": [{"skill": "review"}, write]}]})
    reminder = ("<system-reminder>\nThe following skills are available for use with the Skill tool:\n\n"
                "- review: Review\n- acme:lint: Lint\n</system-reminder>")
    claude = anthropic_body(0)
    claude["messages"][0]["content"] = [{"type": "text", "text": reminder}, {"type": "text", "text": "go"}]
    codex = responses_body(0)
    block = ("<skills_instructions>\n- `r0` = `/h/skills`\n- review: Review code. (file: r0/review/SKILL.md)\n"
             "</skills_instructions>")
    codex["input"].insert(0, {"type": "message", "role": "developer",
                              "content": [{"type": "input_text", "text": block}]})
    with ModelServer(script, {"repo": str(repo)}, log_path=repo / "log.jsonl") as server:
        claude_calls = anthropic_reduce(post(server, "/v1/messages", claude)[1])[1]
        codex_calls = responses_reduce(post(server, "/v1/responses", codex)[1])[1]
        chat_calls = chat_reduce(post(server, "/v1/chat/completions", chat_body(0))[1])[1]
    assert claude_calls == [("Skill", {"skill": "review"}),
                            ("Write", {"file_path": f"{repo}/w", "content": "x"})]
    assert codex_calls == [("exec_command", {"cmd": "cat /h/skills/review/SKILL.md"}),
                           ("apply_patch", f"*** Begin Patch\n*** Add File: {repo}/w\n+x\n*** End Patch\n")]
    assert [name for name, _ in chat_calls] == ["skill", "write"]
    first, second, third = server.offered
    assert (first["host"], first["tools"], first["skills"], first["plugins"]) == (
        "claude", ["Bash", "Edit", "Read", "Skill", "Write"], ["review", "acme:lint"], ["acme"])
    assert (second["host"], second["tools"], second["skills"]) == ("codex", ["apply_patch", "exec_command"],
                                                                   ["review"])
    assert third["host"] == "opencode" and third["skills"] == []
    logged = [json.loads(line) for line in (repo / "log.jsonl").read_text().splitlines()]
    assert logged == server.offered


# ---- faults -------------------------------------------------------------------------------------

@pytest.mark.parametrize(("status", "kind"), [(429, "rate_limit_error"), (500, "api_error"),
                                              (529, "overloaded_error")])
def test_status_fault_at_one_step_only(status: int, kind: str, repo: Path) -> None:
    with ModelServer(SCRIPT, {"repo": str(repo)}, faults=[Fault("status", step=1, status=status)]) as server:
        assert post(server, "/v1/messages", anthropic_body(0))[0] == 200
        code, raw = post(server, "/v1/messages", anthropic_body(1))
        assert (code, json.loads(raw)["error"]["type"]) == (status, kind)
        assert post(server, "/v1/messages", anthropic_body(2))[0] == 200
    assert [o["fault"] for o in server.offered] == [None, "status", None]


@pytest.mark.parametrize("api", list(APIS))
def test_a_fault_that_fires_once_lets_the_retry_through(api: str, repo: Path) -> None:
    path, body, reduce = APIS[api]
    once = Fault("status", step=1, status=429, times=1)
    with ModelServer(SCRIPT, {"repo": str(repo)}, faults=[once]) as server:
        code, raw = post(server, path, body(1))
        assert code == 429 and "error" in json.loads(raw)
        code, raw = post(server, path, body(1))
        assert code == 200 and reduce(raw)[1]


def test_cut_stream_is_a_protocol_error(repo: Path) -> None:
    with ModelServer(SCRIPT, {"repo": str(repo)}, faults=[Fault("cut", step=0)]) as server:
        with pytest.raises(http.client.IncompleteRead) as caught:
            post(server, "/v1/messages", anthropic_body(0))
        partial = caught.value.partial.decode()
        assert partial.startswith("event: message_start") and "message_stop" not in partial
        assert post(server, "/v1/messages", anthropic_body(1))[0] == 200


def test_hang_never_answers_and_slow_still_answers(repo: Path) -> None:
    faults = [Fault("hang", step=0), Fault("delay", step=1, delay=0.01)]
    with ModelServer(SCRIPT, {"repo": str(repo)}, faults=faults) as server:
        with pytest.raises(TimeoutError):
            post(server, "/v1/responses", responses_body(0), timeout=0.2)
        code, raw = post(server, "/v1/responses", responses_body(1))
        assert code == 200 and responses_reduce(raw)[1][0][0] == "exec_command"
    assert [o["fault"] for o in server.offered] == ["hang", "delay"]


def test_unknown_paths_and_bad_bodies_are_refused(srv: ModelServer) -> None:
    assert post(srv, "/v2/nothing", {})[0] == 404
    assert json.loads(post(srv, "/v1/messages/count_tokens", anthropic_body(0))[1])["input_tokens"] > 0
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=5)
    conn.request("POST", "/v1/messages", b"{not json", {"Content-Type": "application/json"})
    assert conn.getresponse().status == 400
    conn.close()


def test_a_gemini_subagents_text_turn_ends_it_with_complete_task() -> None:
    """Gemini CLI offers `complete_task` to a subagent only, and ends the subagent only at that call:
    its text turn becomes the call, in the shape the declaration asks for (the generalist's
    `result: {response}`); the main agent's text turn stays text."""
    from workbench.modelstub.gemini import Gemini
    from workbench.modelstub.turns import Turn

    declaration = {"name": "complete_task", "parameters": {
        "type": "object", "required": ["result"],
        "properties": {"result": {"type": "object", "properties": {"response": {"type": "string"}}}}}}
    contents = [{"role": "user", "parts": [{"text": "Read x and sum it up."}]}]
    wire = Gemini()
    path = "/v1beta/models/m:streamGenerateContent"
    sub = wire.parse(path, {"contents": contents, "tools": [{"functionDeclarations": [declaration]}]})
    main_request = wire.parse(path, {"contents": contents, "tools": [{"functionDeclarations": [{"name": "read_file"}]}]})

    def parts(request: Any) -> list[dict[str, Any]]:
        answer = wire.answer(Turn("It says: check twice.", (), 1), request, {})
        chunks = [json.loads(c.decode().split("data: ", 1)[1]) for c in answer.chunks]
        return [p for c in chunks for p in c["candidates"][0]["content"]["parts"]]

    assert parts(sub) == [{"functionCall": {"name": "complete_task",
                                            "args": {"result": {"response": "It says: check twice."}}}}]
    assert parts(main_request) == [{"text": "It says: check twice."}]
