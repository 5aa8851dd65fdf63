"""Gemini CLI `-o stream-json`: init / message / tool_use / tool_result / error / result events.

The traps: a failing shell command still reports `status: success` with no exit code, so a
failed read inside it shows only as `unreadable` evidence in the output; a successful
`read_file` has empty output; a read outside the workspace is an `error` ("Path not in
workspace", `invalid_tool_params`) — status "error", never "ok"; a policy or user refusal is
"denied". `result.stats` gives the usage; `result.status: error` ends the run with an error.
No version is in the stream.

Turns: Gemini CLI names a call `<tool>_<ms>_<n>` with `n` counting the calls of one model turn
from 0 (inside `tool_id`), so `n == 0` starts a turn and `n > 0` continues it. For an id without
that counter (a model-given id), a turn starts at the first tool_use after a tool_result or after
assistant text that followed one. A successful `read_file` returns empty output: the host hides
the content, so the call's `output` is None (unknown), never "" (shown to be empty). A call issued
before an earlier call's result arrived joins that call's turn (parsers/overlap.py, stream order).

Delegation: `invoke_agent` (kind agent) prints its call and result only, none of the subagent's
calls; `runner.children` reads those from the run's chat files (docs/hosts.md).
"""

from __future__ import annotations

import re
from typing import Any

from workbench.core.events import Event, InitSeen, RunEnded, TextSeen, UsageSeen
from workbench.core.evidence import shell_unreadable
from workbench.core.hostinfo import HOSTS
from workbench.core.models import Usage
from workbench.core.parsers.common import (
    BadShape,
    CallBook,
    JsonLineParser,
    call_fields,
    excerpt,
    exit_code_in,
    failed_read_paths,
    flatten_text,
    get_dict,
    get_int,
    get_list,
    get_str,
    output_fields,
)
from workbench.core.parsers.overlap import Overlap

KINDS = HOSTS["gemini"].tools
_TURN_COUNTER = re.compile(r"_\d{10,}_(\d+)$")
_DENIAL = re.compile(
    r"denied by (?:the )?(?:policy|user)|Tool execution denied|was denied|rejected by (?:the )?user"
    r"|User (?:cancelled|declined)|not allowed by (?:the )?policy",
    re.IGNORECASE,
)


class GeminiParser(JsonLineParser):
    """Gemini CLI stream-json."""

    host = "gemini"

    def __init__(self) -> None:
        super().__init__()
        self.book = CallBook(Overlap())
        self.pending_error: str | None = None
        self.turn = -1
        self.turn_has_calls = False
        self.turn_done = False
        """A tool result arrived since the current turn's calls were issued: the next text or call is a new turn."""

    def handle(self, obj: dict[str, Any]) -> list[Event]:
        kind = obj.get("type")
        if kind == "init":
            return [InitSeen(model=get_str(obj, "model"), host_version=get_str(obj, "version"))]
        if kind == "message":
            content = obj.get("content")
            if not isinstance(content, str):
                raise BadShape("message without string content")
            if obj.get("role") != "assistant" or not content:
                return []
            if self.turn < 0 or self.turn_done:
                self.new_turn()
            return [TextSeen(content)]
        if kind == "tool_use":
            return [self.on_tool_use(obj)]
        if kind == "tool_result":
            return self.on_tool_result(obj)
        if kind == "error":
            if get_str(obj, "severity") == "error":
                self.pending_error = get_str(obj, "message") or "error"
            return []
        if kind == "result":
            return self.on_result(obj)
        raise BadShape(f"unknown event type {kind!r}" if isinstance(kind, str) else "no event type")

    def on_tool_use(self, obj: dict[str, Any]) -> Event:
        tool = get_str(obj, "tool_name") or "?"
        args = get_dict(obj, "parameters")
        kind = KINDS.get(tool, "other")
        fields = call_fields(tool, kind, args, skill_keys=("name",),
                             path_keys=("file_path", "absolute_path", "path", "dir_path"))
        if kind not in ("shell", "skill") and fields["path"] is None:  # read_many_files: the first of `paths`
            fields["path"] = next((p for p in get_list(args, "paths") if isinstance(p, str) and p), None)
        tool_id = get_str(obj, "tool_id")
        counter = _TURN_COUNTER.search(tool_id or "")
        first = int(counter.group(1)) == 0 if counter is not None else None
        if self.turn < 0 or self.turn_done or (first and self.turn_has_calls):
            self.new_turn()
        self.turn_has_calls = True
        return self.book.start(tool_id, turn=self.turn, **fields)

    def new_turn(self) -> None:
        self.turn += 1
        self.turn_has_calls = False
        self.turn_done = False

    def on_tool_result(self, obj: dict[str, Any]) -> list[Event]:
        call = self.book.get(get_str(obj, "tool_id"))
        if call is None:
            raise BadShape("tool_result for an unknown tool_id")
        output = get_str(obj, "output") or ""
        error = obj.get("error")
        error_text = (get_str(error, "message") or flatten_text(error)) if error is not None else ""
        status = get_str(obj, "status")
        self.turn_done = True
        updates: dict[str, Any] = {"result": excerpt(output or error_text)}
        hidden = status != "error" and call.kind == "read" and not output
        updates.update(output_fields(None if hidden else (error_text or output) if status == "error" else output))
        if status == "error":
            text = error_text or output
            if _DENIAL.search(text):
                updates["status"] = "denied"
                updates["unreadable"] = failed_read_paths(call, text)
            else:
                updates.update(status="error", unreadable=failed_read_paths(call, text))
        elif call.kind == "shell":
            updates["exit_code"] = exit_code_in(output)
            updates["unreadable"] = shell_unreadable(call.command, output)
            if updates["exit_code"] not in (None, 0):
                updates["status"] = "error"
        return [self.book.finish(call, **updates)]

    def on_result(self, obj: dict[str, Any]) -> list[Event]:
        stats = get_dict(obj, "stats")
        events: list[Event] = []
        if stats:
            events.append(
                UsageSeen(
                    Usage(
                        input_tokens=get_int(stats, "input_tokens"),
                        output_tokens=get_int(stats, "output_tokens"),
                        cached_input_tokens=get_int(stats, "cached"),
                    )
                )
            )
        models = list(get_dict(stats, "models"))
        is_error = get_str(obj, "status") == "error"
        error = None
        if is_error:
            error = get_str(get_dict(obj, "error"), "message") or self.pending_error or "error"
        events.append(RunEnded(is_error=is_error, error=error, served_model=models[0] if models else None))
        return events

    def finish(self) -> list[Event]:
        return self.book.flush_open()
