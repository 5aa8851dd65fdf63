"""OpenCode `run --format json`: step_start / text / tool_use / step_finish / error events.

A `tool_use` event arrives once, after the tool finished (`part.state.status` completed or
error). The traps: a non-zero bash exit is still `completed` (status "error" here, with
`metadata.exit`); a permission refusal is `error` with "The user rejected permission ..."
(status "denied"); other errors are "error". Usage is summed over `step_finish` events. Cost is
unknown (None) unless some step reports a cost above 0: OpenCode writes `cost: 0` for any model it
has no price for (custom providers, the scripted server, a skipped catalogue fetch), so an all-zero
run is "not priced", not "free". There is
no init event (no version) and no final summary: the run ends at a `step_finish` with reason
`stop`, at an `error` event, or at the end of the stream.

Issue order: OpenCode writes a tool's event when the tool FINISHES, so calls of one step (one model
turn: its `messageID`) arrive in finish order. The parser holds a step's tool events until the step
ends (`step_finish`, the next step, an error or the end of the stream) and numbers them by part id
(OpenCode's ids ascend in creation order, i.e. the order the model issued the calls), then by
`state.time.start`. The turn is the step's message id; a call whose `state.time.start` is before an
earlier call's `state.time.end` joins that call's turn (parsers/overlap.py, the host's clock).
"""

from __future__ import annotations

import re
from typing import Any

from workbench.core.events import Event, RunEnded, TextSeen, UsageSeen
from workbench.core.evidence import shell_unreadable
from workbench.core.hostinfo import HOSTS
from workbench.core.models import Usage
from workbench.core.parsers.common import (
    BadShape,
    CallBook,
    JsonLineParser,
    call_fields,
    excerpt,
    failed_read_paths,
    get_dict,
    get_int,
    get_num,
    get_str,
    output_fields,
)
from workbench.core.parsers.overlap import Overlap

KINDS = HOSTS["opencode"].tools
_DENIAL = re.compile(r"rejected permission|permission (?:was )?denied by|user dismissed", re.IGNORECASE)


class OpenCodeParser(JsonLineParser):
    """OpenCode run --format json."""

    host = "opencode"

    def __init__(self) -> None:
        super().__init__()
        self.book = CallBook(Overlap(timed=True))
        self.usage = Usage()
        self.cost = 0.0
        self.priced = False
        """Whether any step reported a cost above 0 (until then the cost is unknown, not 0)."""
        self.last_text: str | None = None
        self.ended = False
        self.held: dict[str, dict[str, Any]] = {}
        """The current step's tool parts by call id (latest state), until the step ends."""

    def handle(self, obj: dict[str, Any]) -> list[Event]:
        kind = obj.get("type")
        part = obj.get("part")
        if kind == "error":
            return self.release() + self.on_error(obj)
        if not isinstance(part, dict):
            raise BadShape(f"{kind!r} event without a part" if isinstance(kind, str) else "no event type")
        if kind == "step_start":
            events = self.release()
            self.book.turn_of(get_str(part, "messageID") or f"#step{len(self.book.turns)}")
            return events
        if kind == "text":
            text = get_str(part, "text")
            if text:
                self.last_text = text
                return [TextSeen(text)]
            return []
        if kind == "tool_use":
            return self.on_tool(part)
        if kind == "step_finish":
            return self.release() + self.on_step_finish(part)
        if kind == "reasoning":
            return []
        raise BadShape(f"unknown event type {kind!r}" if isinstance(kind, str) else "no event type")

    def on_tool(self, part: dict[str, Any]) -> list[Event]:
        if not isinstance(part.get("state"), dict):
            raise BadShape("tool_use without a state")
        call_id = get_str(part, "callID")
        if call_id is not None and self.book.get(call_id) is not None:
            return self.tool_events(part)  # a call released earlier: its later state applies at once
        self.held[call_id or f"#part{len(self.held)}"] = part
        return []

    def release(self) -> list[Event]:
        """The held tool events of the step, in issue order: part id, then start time."""
        parts = sorted(self.held.values(), key=_issue_key)
        self.held = {}
        return [event for part in parts for event in self.tool_events(part)]

    def tool_events(self, part: dict[str, Any]) -> list[Event]:
        state = get_dict(part, "state")
        times = get_dict(state, "time")
        call_id = get_str(part, "callID")
        events: list[Event] = []
        call = self.book.get(call_id)
        if call is None:
            tool = get_str(part, "tool") or "?"
            args = get_dict(state, "input")
            kind = KINDS.get(tool, "other")
            fields = call_fields(tool, kind, args, path_keys=("filePath", "path"))
            message = get_str(part, "messageID")
            turn = self.book.turn_of(message) if message else (len(self.book.turns) - 1 if self.book.turns else None)
            started = self.book.start(call_id, at=get_num(times, "start"), turn=turn, **fields)
            events.append(started)
            call = started.call
        status = get_str(state, "status")
        if status not in ("completed", "error"):
            return events  # pending / running: the final event follows
        output = get_str(state, "output") or ""
        metadata = get_dict(state, "metadata")
        updates: dict[str, Any] = {}
        if status == "error":
            error = get_str(state, "error") or "error"
            updates["result"] = excerpt(error)
            updates.update(output_fields(error))
            if _DENIAL.search(error):
                updates["status"] = "denied"
                updates["unreadable"] = failed_read_paths(call, error)
            else:
                updates.update(status="error", unreadable=failed_read_paths(call, error))
        else:
            updates["result"] = excerpt(output)
            updates.update(output_fields(output, metadata.get("truncated") is True))
            updates["status"] = "ok"
            if call.kind == "shell":
                code = get_int(metadata, "exit")
                updates["exit_code"] = code
                updates["unreadable"] = shell_unreadable(call.command, output)
                if code not in (None, 0):
                    updates["status"] = "error"
        events.append(self.book.finish(call, at=get_num(times, "end"), **updates))
        return events

    def on_step_finish(self, part: dict[str, Any]) -> list[Event]:
        tokens = get_dict(part, "tokens")
        cache = get_dict(tokens, "cache")
        fresh = get_int(tokens, "input")
        read, write = get_int(cache, "read"), get_int(cache, "write")
        step_in = None if fresh is None else fresh + (read or 0) + (write or 0)
        cost = get_num(part, "cost")
        if cost is not None:
            self.cost += cost
            self.priced = self.priced or cost > 0
        self.usage = Usage(
            input_tokens=_add(self.usage.input_tokens, step_in),
            output_tokens=_add(self.usage.output_tokens, get_int(tokens, "output")),
            cached_input_tokens=_add(self.usage.cached_input_tokens, read),
            cost_usd=self.cost if self.priced else None,
        )
        events: list[Event] = [UsageSeen(self.usage)]
        if get_str(part, "reason") == "stop":
            self.ended = True
            events.append(RunEnded(is_error=False, text=self.last_text))
        return events

    def on_error(self, obj: dict[str, Any]) -> list[Event]:
        error = obj.get("error")
        message = (
            get_str(get_dict(error, "data"), "message") or get_str(error, "message") or get_str(error, "name")
            if isinstance(error, dict)
            else error if isinstance(error, str) else None
        )
        self.ended = True
        return [RunEnded(is_error=True, error=message or "error")]

    def finish(self) -> list[Event]:
        events = self.release() + self.book.flush_open()
        if not self.ended:
            self.ended = True
            events.append(RunEnded(is_error=False, text=self.last_text))
        return events


def _issue_key(part: dict[str, Any]) -> tuple[str, float]:
    start = get_num(get_dict(get_dict(part, "state"), "time"), "start")
    return (get_str(part, "id") or "\uffff", start if start is not None else float("inf"))


def _add(total: int | None, more: int | None) -> int | None:
    if more is None:
        return total
    return (total or 0) + more
