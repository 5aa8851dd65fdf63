"""Grok CLI (`@vibe-kit/grok-cli` 0.0.34) headless `-p`: the conversation as Chat Completions messages,
one JSON object a line, printed when the run ENDS (measured: docs/hosts.md "Grok").

Lines: `{"role":"user"}` (the prompt), then per model turn one `{"role":"assistant","content",
"tool_calls":[{"id","function":{"name","arguments"}}]}` followed by one `{"role":"tool",
"tool_call_id","content"}` per call in issue order (the client runs them one by one), then a last
assistant message without tool calls. One assistant message is one turn; a call issued before an
earlier call's `tool` message joins that call's turn (parsers/overlap.py, stream order).

The traps, all measured: no success flag is printed, so a tool's status comes from its text (the
client's own wording for failures, `FAILURES`); a failed `bash` (non-zero exit) returns
"Command failed: ..." with stderr only, so its stdout never reached the model and nothing it read
counts; `view_file` shows only the first 10 lines of a file ("... +N lines"), marked truncated;
"Using tools to help you..." and "I understand, but I don't have a specific response." are the
client's placeholders for an empty model text; a model API error is an assistant message "Sorry, I
encountered an error: ..." with exit 0 — and the client then prints only the prompt and that
message, dropping the calls it had already run. Headless mode approves everything: there are no
refusals (the "... cancelled by user" wording would be one). No usage, cost or version is printed.
"""

from __future__ import annotations

import json
import re
from typing import Any

from workbench.core.events import Event, RunEnded, TextSeen
from workbench.core.evidence import unreadable_paths
from workbench.core.hostinfo import HOSTS
from workbench.core.parsers.common import (
    BadShape,
    CallBook,
    JsonLineParser,
    call_fields,
    excerpt,
    failed_read_paths,
    get_list,
    get_str,
    output_fields,
)
from workbench.core.parsers.overlap import Overlap
from workbench.core.shell import analyze

KINDS = HOSTS["grok"].tools
PLACEHOLDERS = frozenset({"Using tools to help you...", "I understand, but I don't have a specific response."})
"""Texts the client writes when the model gave none: not model output."""
API_ERROR = "Sorry, I encountered an error: "
FATAL_ERROR = "Error: "
"""The client's own failure before or around the agent loop (exit 1)."""
MAX_ROUNDS = "Maximum tool execution rounds reached."
FAILURES = re.compile(
    r"^(?:Command failed: |Cannot change directory: |Unknown tool: |Tool execution error: |MCP tool (?:execution )?error"
    r"|File or directory not found: |File not found: |Error (?:viewing|replacing text in|replacing lines in"
    r"|creating|inserting content in|undoing edit) |String not found in file|Invalid (?:start|end) line: "
    r"|No edits to undo|Morph Fast Apply not available|Error occurred$|Error$)")
"""How the client words a failed tool (`result.error`); anything else is its success output."""
DENIAL = re.compile(r"cancelled by user$")
TRUNCATED = re.compile(r"\n\.\.\. \+\d+ lines$")


class GrokParser(JsonLineParser):
    """Grok CLI `-p` JSON lines."""

    host = "grok"

    def __init__(self) -> None:
        super().__init__()
        self.book = CallBook(Overlap())
        self.last_text: str | None = None
        self.ended = False

    def handle(self, obj: dict[str, Any]) -> list[Event]:
        role = obj.get("role")
        if role == "user":
            return []
        if role == "assistant":
            return self.on_assistant(obj)
        if role == "tool":
            return self.on_tool(obj)
        raise BadShape(f"unknown role {role!r}" if isinstance(role, str) else "no role")

    def on_assistant(self, obj: dict[str, Any]) -> list[Event]:
        content = obj.get("content")
        text = content if isinstance(content, str) else None
        if text is not None and text.startswith((API_ERROR, FATAL_ERROR)) and "tool_calls" not in obj:
            self.ended = True
            error = text.removeprefix(API_ERROR) if text.startswith(API_ERROR) else text.removeprefix(FATAL_ERROR)
            return [RunEnded(is_error=True, error=error)]
        events: list[Event] = []
        turn = self.book.turn_of(f"#assistant{self.line_no}")
        if text and text not in PLACEHOLDERS and not text.startswith(MAX_ROUNDS):
            self.last_text = text
            events.append(TextSeen(text))
        for item in get_list(obj, "tool_calls"):
            function = item.get("function") if isinstance(item, dict) else None
            if not isinstance(function, dict):
                raise BadShape("tool call without a function")
            tool = get_str(function, "name") or "?"
            args = _arguments(function.get("arguments"))
            fields = call_fields(tool, KINDS.get(tool, "other"), args, path_keys=("path", "target_file"))
            events.append(self.book.start(get_str(item, "id"), turn=turn, **fields))
        if not get_list(obj, "tool_calls") and text is not None and text.startswith(MAX_ROUNDS):
            self.ended = True
            events.append(RunEnded(is_error=True, error=text, text=self.last_text))
        return events

    def on_tool(self, obj: dict[str, Any]) -> list[Event]:
        call = self.book.get(get_str(obj, "tool_call_id"))
        if call is None:
            raise BadShape("tool result for an unknown call")
        content = get_str(obj, "content") or ""
        updates: dict[str, Any] = {"result": excerpt(content), **output_fields(content)}
        if DENIAL.search(content) and FAILURES.match(content) is None:
            updates.update(status="denied", unreadable=failed_read_paths(call, content))
        elif FAILURES.match(content):
            unread = failed_read_paths(call, content)
            if call.kind == "shell" and call.command:
                unread += [p for p in analyze(call.command).reads if p not in unread]  # its stdout was dropped
            updates.update(status="error", unreadable=unread)
        else:
            updates["status"] = "ok"
            if call.kind == "shell":
                updates["unreadable"] = unreadable_paths(content)
            if call.kind == "read" and TRUNCATED.search(content):
                updates["output_truncated"] = True
        return [self.book.finish(call, **updates)]

    def finish(self) -> list[Event]:
        events = self.book.flush_open()
        if not self.ended:
            self.ended = True
            events.append(RunEnded(is_error=False, text=self.last_text))
        return events


def _arguments(raw: object) -> dict[str, Any]:
    """A tool call's arguments: a JSON object in a string (the Chat Completions wire), else empty."""
    if isinstance(raw, dict):
        return raw
    if not isinstance(raw, str):
        return {}
    try:
        value = json.loads(raw)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
