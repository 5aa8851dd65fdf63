"""OpenAI Chat Completions (`POST /v1/chat/completions`), as OpenCode calls it through its
openai-compatible provider (streamed, with `stream_options.include_usage`) and as Grok CLI calls it
through the `openai` SDK (not streamed in its headless `-p` mode). Which of them is asking is told by
the tools it offers (`workbench.core.hostinfo.wire_host`); the calls are that host's own tools.

Stream: `data:` chunks of `chat.completion.chunk` — the role, the text as `delta.content`, each tool
call as `delta.tool_calls[i]` (id, type and name first, then argument fragments), a last choice chunk
with `finish_reason` (`tool_calls` or `stop`), a usage chunk with no choices when include_usage is
set, then `data: [DONE]`.
"""

from __future__ import annotations

import json
import time
from typing import Any

from workbench.core.hostinfo import script_call, wire_host
from workbench.modelstub.turns import Turn, count_runs
from workbench.modelstub.wire import (
    INPUT_TOKENS,
    OUTPUT_TOKENS,
    Answer,
    Request,
    WireAPI,
    halves,
    json_answer,
    new_id,
    opening_texts,
    sse,
    texts_of,
)

CANNED_TEXT = "Scripted session"


class OpenAIChat(WireAPI):
    """OpenCode's and Grok CLI's wire API."""

    name = "openai-chat"
    host = "opencode"

    def parse(self, path: str, body: dict[str, Any]) -> Request:
        messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        texts: list[str] = []
        for message in messages:
            if message.get("role") in ("system", "developer", "user"):
                texts.extend(texts_of(message.get("content")))
        tools = {str(t["function"]["name"]): str(t.get("type", "function")) for t in body.get("tools") or []
                 if isinstance(t, dict) and isinstance(t.get("function"), dict) and t["function"].get("name")}
        options = body.get("stream_options")
        include_usage = bool(isinstance(options, dict) and options.get("include_usage"))
        host = wire_host(self.name, tools) or self.host
        return Request(body=body, model=str(body.get("model", "")), tools=tools, texts=texts, host=host,
                       model_turns=count_runs([m.get("role") == "assistant" for m in messages]),
                       stream=bool(body.get("stream")), opening=opening_texts(messages, "user", "assistant"),
                       options={"include_usage": include_usage})

    def answer(self, turn: Turn | None, request: Request, context: dict[str, str]) -> Answer:
        text = CANNED_TEXT if turn is None else turn.text
        calls = [script_call(request.host or self.host, c) for c in (turn.calls if turn else ())]
        tool_calls: list[dict[str, Any]] = [
            {"id": new_id("call_"), "type": "function",
             "function": {"name": name, "arguments": json.dumps(args)}} for name, args in calls]
        finish = "tool_calls" if tool_calls else "stop"
        usage = {"prompt_tokens": INPUT_TOKENS, "completion_tokens": OUTPUT_TOKENS,
                 "total_tokens": INPUT_TOKENS + OUTPUT_TOKENS}
        head = {"id": new_id("chatcmpl-"), "created": int(time.time()), "model": request.model}
        if not request.stream:
            message: dict[str, Any] = {"role": "assistant", "content": text or None}
            if tool_calls:
                message["tool_calls"] = tool_calls
            return json_answer({**head, "object": "chat.completion", "usage": usage,
                                "choices": [{"index": 0, "message": message, "finish_reason": finish}]})

        def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> bytes:
            return sse({**head, "object": "chat.completion.chunk",
                        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]})

        events = [chunk({"role": "assistant", "content": ""})]
        events.extend(chunk({"content": piece}) for piece in (halves(text) if text else []))
        for index, tc in enumerate(tool_calls):
            fn = tc["function"]
            events.append(chunk({"tool_calls": [{"index": index, "id": tc["id"], "type": "function",
                                                 "function": {"name": fn["name"], "arguments": ""}}]}))
            events.extend(chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
                          for piece in halves(fn["arguments"]))
        events.append(chunk({}, finish))
        if request.options.get("include_usage"):
            events.append(sse({**head, "object": "chat.completion.chunk", "choices": [], "usage": usage}))
        events.append(sse("[DONE]"))
        return Answer(events)

    def error(self, status: int) -> bytes:
        kind = "rate_limit_exceeded" if status == 429 else "server_error"
        return json.dumps({"error": {"message": f"scripted {status}", "type": kind, "code": kind}}).encode()
