"""Anthropic Messages API (`POST /v1/messages`), as Claude Code calls it: always streamed.

Stream: message_start, then per content block content_block_start / content_block_delta
(`text_delta` or `input_json_delta`) / content_block_stop, then message_delta with stop_reason
(`tool_use` or `end_turn`) and usage, then message_stop. Every event has an `event:` line because the
SDK dispatches on it.
"""

from __future__ import annotations

import json
from typing import Any

from workbench.core.hostinfo import claude_call
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
_ERRORS = {429: "rate_limit_error", 500: "api_error", 529: "overloaded_error"}




class AnthropicMessages(WireAPI):
    """Claude Code's wire API."""

    name = "anthropic"
    host = "claude"
    read_before_edit = True

    def parse(self, path: str, body: dict[str, Any]) -> Request:
        messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        texts = texts_of(body.get("system"))
        for message in messages:  # Claude Code 2.1.197 sends its skill listing as a `system` role message
            if message.get("role") in ("user", "system"):
                texts.extend(texts_of(message.get("content")))
        tools = {str(t.get("name")): str(t.get("type", "custom")) for t in body.get("tools") or []
                 if isinstance(t, dict) and t.get("name")}
        return Request(body=body, model=str(body.get("model", "")), tools=tools, texts=texts,
                       model_turns=count_runs([m.get("role") == "assistant" for m in messages]),
                       stream=bool(body.get("stream")), opening=opening_texts(messages, "user", "assistant"))

    def answer(self, turn: Turn | None, request: Request, context: dict[str, str]) -> Answer:
        text = CANNED_TEXT if turn is None else turn.text
        blocks: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
        for call in turn.calls if turn else ():
            name, args = claude_call(call)
            blocks.append({"type": "tool_use", "id": new_id("toolu_"), "name": name, "input": args})
        stop = "tool_use" if turn is not None and turn.calls else "end_turn"
        message = {"id": new_id("msg_"), "type": "message", "role": "assistant", "model": request.model,
                   "content": blocks, "stop_reason": stop, "stop_sequence": None,
                   "usage": {"input_tokens": INPUT_TOKENS, "output_tokens": OUTPUT_TOKENS,
                             "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}
        if not request.stream:
            return json_answer(message)
        return Answer(stream_events(message))

    def error(self, status: int) -> bytes:
        kind = _ERRORS.get(status, "api_error")
        body = {"type": "error", "error": {"type": kind, "message": f"scripted {status}"}}
        return json.dumps(body).encode()


def stream_events(message: dict[str, Any]) -> list[bytes]:
    """The SSE events that stream a finished message, block by block."""
    start = dict(message, content=[], stop_reason=None,
                 usage=dict(message["usage"], output_tokens=1))
    events = [sse({"type": "message_start", "message": start}, "message_start")]
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            opened: dict[str, Any] = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": piece} for piece in halves(block["text"])]
        else:
            opened = dict(block, input={})
            deltas = [{"type": "input_json_delta", "partial_json": piece}
                      for piece in ["", *halves(json.dumps(block["input"]))]]
        events.append(sse({"type": "content_block_start", "index": index, "content_block": opened},
                          "content_block_start"))
        events.extend(sse({"type": "content_block_delta", "index": index, "delta": d}, "content_block_delta")
                      for d in deltas)
        events.append(sse({"type": "content_block_stop", "index": index}, "content_block_stop"))
    events.append(sse({"type": "message_delta",
                       "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                       "usage": {"output_tokens": message["usage"]["output_tokens"]}}, "message_delta"))
    events.append(sse({"type": "message_stop"}, "message_stop"))
    return events
