"""Gemini CLI sessions: `~/.gemini/tmp/<project>/chats/session-*.jsonl` (0.61.0).

The file is a log of a conversation object: the first line is its header (`sessionId`,
`projectHash`, `startTime`, `kind`), then each message as a line (`id`, `timestamp`, `type`
user / gemini, `content`, `model`, `tokens`, `toolCalls`) and `{"$set": {...}}` updates. A
`gemini` message is written again, whole, when its tool calls finish: the last line of an id is
its final form. Each model message is one turn; its `toolCalls` (`id`, `name`, `args`, `status`,
`result[].functionResponse.response.output|error`) are turned into the stream's `tool_use` /
`tool_result` events and read by THE Gemini stream parser. Unlike the stream, a successful
`read_file` carries its output here.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from workbench.core.events import ParsedRun, RunEnded
from workbench.core.models import Usage
from workbench.core.parsers.common import flatten_text, get_dict, get_int, get_list, get_str
from workbench.core.parsers.gemini import GeminiParser
from workbench.core.sessions import Part, SessionFile, SessionRun, json_lines, merge_parts

HOST = GeminiParser.host
"""The host whose sessions this module reads."""


def _stream_lines(message: dict[str, Any]) -> list[dict[str, Any]]:
    """The stream events one final model message stands for: its text, then each call and result."""
    out: list[dict[str, Any]] = []
    text = message.get("content")
    if isinstance(text, str) and text:
        out.append({"type": "message", "role": "assistant", "content": text, "delta": True})
    calls = [c for c in get_list(message, "toolCalls") if isinstance(c, dict)]
    for call in calls:
        out.append({"type": "tool_use", "tool_name": get_str(call, "name"), "tool_id": get_str(call, "id"),
                    "parameters": get_dict(call, "args")})
    for call in calls:
        response = next((get_dict(get_dict(r, "functionResponse"), "response") for r in get_list(call, "result")
                         if isinstance(r, dict)), {})
        status = "error" if get_str(call, "status") in ("error", "cancelled") else "success"
        error = response.get("error")
        out.append({"type": "tool_result", "tool_id": get_str(call, "id"), "status": status,
                    "output": flatten_text(response.get("output")) or None,
                    **({"error": {"message": flatten_text(error) or str(error)}} if error else {})})
    return out


def _part(file: SessionFile, run: SessionRun) -> tuple[Part, ParsedRun]:
    messages: dict[str, dict[str, Any]] = {}
    bad = 0
    context: list[str] = []
    for _, obj in json_lines(file.text):
        if obj is None:
            bad += 1
            continue
        if "sessionId" in obj and "type" not in obj:
            run.session_id = run.session_id or get_str(obj, "sessionId")
            run.started_at = run.started_at or get_str(obj, "startTime")
            continue
        sets = get_dict(obj, "$set")
        for message in get_list(sets, "messages"):
            if isinstance(message, dict) and (mid := get_str(message, "id")):
                messages[mid] = message
        if (mid := get_str(obj, "id")) and get_str(obj, "type"):
            messages[mid] = obj  # a later line of the same id is its final form; its first position is kept
    parser = GeminiParser()
    parsed = ParsedRun(skipped_count=bad)
    stamps: dict[int, str] = {}
    tokens = [0, 0, 0]
    for message in messages.values():
        kind = get_str(message, "type")
        if ts := get_str(message, "timestamp"):
            run.finished_at = max(run.finished_at or ts, ts)
        if kind == "user":
            context.append(flatten_text(message.get("content")))
            continue
        if kind != "gemini":
            continue
        run.model = run.model or get_str(message, "model")
        t = get_dict(message, "tokens")
        tokens = [tokens[0] + (get_int(t, "input") or 0), tokens[1] + (get_int(t, "output") or 0),
                  tokens[2] + (get_int(t, "cached") or 0)]
        for line in _stream_lines(message):
            for event in parser.feed(json.dumps(line)):
                if hasattr(event, "call") and ts:
                    stamps.setdefault(event.call.index, ts)
                parsed.apply(event)
    for event in parser.finish():
        parsed.apply(event)
    parsed.usage = Usage(input_tokens=tokens[0], output_tokens=tokens[1], cached_input_tokens=tokens[2])
    if bad:
        run.warnings.append(f"{file.name}: {bad} line(s) not JSON objects (a torn or foreign line), skipped")
    run.context += "\n".join(context)
    return Part(file.name, parsed.calls, stamps), parsed


def read(files: Sequence[SessionFile]) -> SessionRun:
    """A Gemini CLI session from its chat file (and any subagent chat files)."""
    run = SessionRun(host="gemini", session_id=None, parsed=ParsedRun())
    parts, parses = zip(*(_part(f, run) for f in files), strict=True)
    calls, read_by = merge_parts(list(parts))
    texts = [t for p in parses for t in p.texts]
    main = parses[0]
    run.parsed = ParsedRun(calls=calls, usage=main.usage, texts=texts,
                           skipped_count=sum(p.skipped_count for p in parses),
                           ended=RunEnded(is_error=False, text=texts[-1] if texts else None, served_model=run.model))
    run.read_by = read_by
    return run
