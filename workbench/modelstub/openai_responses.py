"""OpenAI Responses API (`POST /v1/responses`), as Codex calls it: streamed, full history each time.

Stream: response.created, response.in_progress, then per output item response.output_item.added,
its deltas (response.output_text.* inside content parts, response.function_call_arguments.* for
function tools, response.custom_tool_call_input.* for freeform tools such as apply_patch) and
response.output_item.done, then response.completed with usage. Every event carries sequence_number.
"""

from __future__ import annotations

import json
import shlex
import time
from pathlib import Path
from typing import Any

from workbench.modelstub.script import ScriptCall
from workbench.modelstub.turns import Turn, count_runs
from workbench.modelstub.wire import (
    INPUT_TOKENS,
    OUTPUT_TOKENS,
    Answer,
    Request,
    WireAPI,
    codex_skill_files,
    halves,
    new_id,
    sse,
    texts_of,
)

CANNED_TEXT = "Scripted session"
_MODEL_ITEMS = {"function_call", "custom_tool_call", "reasoning", "local_shell_call", "tool_search_call"}
AGENT_NAMESPACE = "multi_agent_v1"
"""The deferred namespace of Codex's agent tools: their calls must name it."""
AGENT_SEARCH = "spawn sub-agent"
"""The `tool_search` query that finds Codex's agent tools."""
WAIT_MS = 600_000
"""`wait_agent`'s timeout: longer than any scripted subagent takes (the run's own timeout bounds it)."""


def update_patch(path: str, old: str, new: str, base: str | None) -> str:
    """An apply_patch Update hunk; `old` is widened to whole lines using the file as it is now."""
    before, after = old, new
    target = Path(path) if Path(path).is_absolute() or base is None else Path(base) / path
    try:
        text = target.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        text = ""
    at = text.find(old) if old else -1
    if at >= 0:
        start = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at + len(old))
        end = len(text) if end < 0 else end
        before, after = text[start:end], text[start:at] + new + text[at + len(old):end]
    minus = "".join(f"-{line}\n" for line in before.split("\n"))
    plus = "".join(f"+{line}\n" for line in after.split("\n"))
    return f"*** Begin Patch\n*** Update File: {path}\n@@\n{minus}{plus}*** End Patch\n"


def add_patch(path: str, content: str) -> str:
    """An apply_patch Add File hunk that writes the whole file."""
    lines = content.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    body = "".join(f"+{line}\n" for line in lines)
    return f"*** Begin Patch\n*** Add File: {path}\n{body}*** End Patch\n"


def codex_call(call: ScriptCall, request: Request, base: str | None) -> tuple[str, str, str]:
    """(item type, tool name, arguments or freeform input) of Codex's own tool for a portable call.
    An agent's `type` has no Codex counterpart (0.171.0's `spawn_agent` takes none): it is left out."""
    if call.edit is not None or call.write is not None:
        patch = (update_patch(call.edit.path, call.edit.old, call.edit.new, base) if call.edit is not None
                 else add_patch(call.write.path, call.write.content) if call.write is not None else "")
        if request.tools.get("apply_patch") == "function":
            return "function_call", "apply_patch", json.dumps({"input": patch})
        return "custom_tool_call", "apply_patch", patch
    if call.agent is not None:
        return "function_call", "spawn_agent", json.dumps({"message": call.agent.prompt})
    if call.read is not None:
        command = f"cat {shlex.quote(call.read)}"
    elif call.shell is not None:
        command = call.shell
    else:
        files: dict[str, str] = {}
        for text in request.texts:
            files.update(codex_skill_files(text))
        name = str(call.skill)
        listed = files.get(name) or next((p for k, p in files.items() if k.split(":")[-1] == name), None)
        command = (f"cat {shlex.quote(listed)}" if listed  # a plugin's skill is listed as `plugin:name`
                   else f'cat "${{CODEX_HOME:-$HOME/.codex}}/skills/{name}/SKILL.md"')
    if "exec_command" not in request.tools and "shell" in request.tools:
        return "function_call", "shell", json.dumps({"command": ["bash", "-lc", command]})
    return "function_call", "exec_command", json.dumps({"cmd": command})


def spawned_agents(items: list[dict[str, Any]]) -> list[str]:
    """The ids of the subagents a history's `spawn_agent` calls started and no `wait_agent` call waited
    for yet (each spawn's output is JSON naming its `agent_id`)."""
    spawns = {i.get("call_id") for i in items if i.get("type") == "function_call" and i.get("name") == "spawn_agent"}
    started: list[str] = []
    waited: set[str] = set()
    for item in items:
        if item.get("type") == "function_call_output" and item.get("call_id") in spawns:
            output = item.get("output")
            text = output if isinstance(output, str) else "".join(texts_of(output))
            try:
                found = json.loads(text).get("agent_id")
            except (ValueError, AttributeError):
                found = None
            if isinstance(found, str):
                started.append(found)
        elif item.get("type") == "function_call" and item.get("name") == "wait_agent":
            try:
                waited.update(t for t in json.loads(item.get("arguments") or "{}").get("targets") or ()
                              if isinstance(t, str))
            except (ValueError, AttributeError):
                continue
    return [a for a in started if a not in waited]


def host_step_item(turn: Turn, request: Request) -> dict[str, Any]:
    """The item of a delegation turn the script does not spell: load the agent tools, or wait for the
    subagents started."""
    if turn.host_step == "find-agent-tools":
        return {"type": "tool_search_call", "id": new_id("tsc_"), "status": "completed", "call_id": new_id("call_"),
                "execution": "client", "arguments": {"query": AGENT_SEARCH}}
    items = [i for i in request.body.get("input") or [] if isinstance(i, dict)]
    arguments = json.dumps({"targets": spawned_agents(items), "timeout_ms": WAIT_MS})
    return {"type": "function_call", "id": new_id("fc_"), "status": "completed", "call_id": new_id("call_"),
            "name": "wait_agent", "namespace": AGENT_NAMESPACE, "arguments": arguments}


class OpenAIResponses(WireAPI):
    """Codex's wire API."""

    name = "openai-responses"
    host = "codex"
    deferred_agents = True

    def parse(self, path: str, body: dict[str, Any]) -> Request:
        items = body.get("input") or []
        items = [{"type": "message", "role": "user", "content": items}] if isinstance(items, str) else items
        items = [i for i in items if isinstance(i, dict)]
        texts = texts_of(body.get("instructions"))
        for item in items:
            if item.get("role") in ("user", "developer", "system"):
                texts.extend(texts_of(item.get("content")))
        tools: dict[str, str] = {}
        for tool in body.get("tools") or []:
            if isinstance(tool, dict):
                tools[str(tool.get("name") or tool.get("type"))] = str(tool.get("type", "function"))
        flags = [i.get("type") in _MODEL_ITEMS or i.get("role") == "assistant" for i in items]
        first = flags.index(True) if True in flags else len(items)
        opening = [t for i in items[:first] if i.get("role") == "user" for t in texts_of(i.get("content"))]
        return Request(body=body, model=str(body.get("model", "")), tools=tools, texts=texts,
                       model_turns=count_runs(flags), stream=body.get("stream", True) is not False,
                       opening=opening)

    def answer(self, turn: Turn | None, request: Request, context: dict[str, str]) -> Answer:
        text = CANNED_TEXT if turn is None else turn.text
        items: list[dict[str, Any]] = []
        if text:
            items.append({"type": "message", "id": new_id("msg_"), "status": "completed", "role": "assistant",
                          "content": [{"type": "output_text", "text": text, "annotations": []}]})
        for call in turn.calls if turn else ():
            kind, name, payload = codex_call(call, request, context.get("repo"))
            key = "arguments" if kind == "function_call" else "input"
            items.append({"type": kind, "id": new_id("fc_" if key == "arguments" else "ctc_"),
                          "status": "completed", "call_id": new_id("call_"), "name": name, key: payload,
                          **({"namespace": AGENT_NAMESPACE} if name == "spawn_agent" else {})})
        if turn is not None and turn.host_step is not None:
            items.append(host_step_item(turn, request))
        return Answer(stream_events(items, request.model))

    def error(self, status: int) -> bytes:
        kind = "rate_limit_exceeded" if status == 429 else "server_error"
        return json.dumps({"error": {"message": f"scripted {status}", "type": kind, "code": kind}}).encode()


def stream_events(items: list[dict[str, Any]], model: str) -> list[bytes]:
    """The SSE events that stream a finished response, item by item."""
    seq = iter(range(1_000_000))
    events: list[bytes] = []

    def emit(kind: str, **fields: Any) -> None:
        events.append(sse({"type": kind, "sequence_number": next(seq), **fields}, kind))

    response: dict[str, Any] = {"id": new_id("resp_"), "object": "response", "created_at": int(time.time()),
                                "status": "in_progress", "model": model, "output": []}
    emit("response.created", response=response)
    emit("response.in_progress", response=response)
    for index, item in enumerate(items):
        where = {"item_id": item["id"], "output_index": index}
        if item["type"] == "message":
            emit("response.output_item.added", output_index=index,
                 item=dict(item, status="in_progress", content=[]))
            part = item["content"][0]
            emit("response.content_part.added", **where, content_index=0, part=dict(part, text=""))
            for piece in halves(part["text"]):
                emit("response.output_text.delta", **where, content_index=0, delta=piece)
            emit("response.output_text.done", **where, content_index=0, text=part["text"])
            emit("response.content_part.done", **where, content_index=0, part=part)
        elif item["type"] not in ("function_call", "custom_tool_call"):  # tool_search_call: no deltas
            emit("response.output_item.added", output_index=index, item=dict(item, status="in_progress"))
        else:
            key = "arguments" if item["type"] == "function_call" else "input"
            prefix = "response.function_call_arguments" if key == "arguments" else \
                "response.custom_tool_call_input"
            emit("response.output_item.added", output_index=index,
                 item=dict(item, status="in_progress", **{key: ""}))
            for piece in halves(item[key]):
                emit(f"{prefix}.delta", **where, delta=piece)
            emit(f"{prefix}.done", **where, **{key: item[key]})
        emit("response.output_item.done", output_index=index, item=item)
    usage = {"input_tokens": INPUT_TOKENS, "input_tokens_details": {"cached_tokens": 0},
             "output_tokens": OUTPUT_TOKENS, "output_tokens_details": {"reasoning_tokens": 0},
             "total_tokens": INPUT_TOKENS + OUTPUT_TOKENS}
    emit("response.completed", response=dict(response, status="completed", output=items, usage=usage))
    return events
