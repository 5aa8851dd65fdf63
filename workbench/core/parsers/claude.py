"""Claude Code `-p --output-format stream-json --verbose`: Anthropic-messages-shaped JSON lines.

Reads `system/init` (version, model, tools, skills, plugins), `assistant` events (text and
`tool_use` blocks), `user` events (`tool_result` blocks with `is_error`) and the final `result`
(usage, cost, served model, `permission_denials`). A call's turn is its assistant message id
(one message per model turn, however many events carry its blocks); without ids, a turn is the
assistant events between two tool-result events; a call issued before an earlier call's
`tool_result` arrived joins that call's turn (parsers/overlap.py, per agent). The traps it handles:

- a denied call shows as an `is_error` tool_result whose text asks for permission, and again in
  `permission_denials`: either makes the status "denied", never "ok" or "error";
- a Bash result with `is_error` and "Exit code N" is a command that RAN: status "error" with
  exit_code N, its reads happened; only `unreadable` (from the output) says which did not;
- a subagent's events carry `parent_tool_use_id` (the Task/Agent call that delegated): its calls
  are calls of the run, with `read_by` `subagent:<subagent_type>` (the call's, else the one
  the host names on the subagent's events, else `subagent:<that id>`);
- the synthetic API-error message (model `<synthetic>`) is not model output: no TextSeen, and
  the run ends with is_error.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from workbench.core.events import Event, InitSeen, RunEnded, TextSeen, UsageSeen
from workbench.core.evidence import shell_unreadable
from workbench.core.hostinfo import HOSTS
from workbench.core.models import MAIN_READER, Call, CallKind, Usage
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
    get_num,
    get_str,
    output_fields,
    str_items,
)
from workbench.core.parsers.overlap import Overlap

SYNTHETIC_MODEL = "<synthetic>"
DELEGATING_TOOLS = frozenset({"Task", "Agent"})
"""Claude Code's tools that start a subagent (the name changed across versions)."""


class MessagesStreamParser(JsonLineParser):
    """Parser for Anthropic-messages-shaped host streams; subclasses set the tool table."""

    host = "claude"
    KINDS: ClassVar[dict[str, CallKind]] = {}
    PATH_KEYS: ClassVar[tuple[str, ...]] = ("file_path", "notebook_path", "path")
    COMMAND_KEYS: ClassVar[tuple[str, ...]] = ("command",)
    SKILL_KEYS: ClassVar[tuple[str, ...]] = ("skill", "command", "name")
    DENIAL: ClassVar[re.Pattern[str]] = re.compile("$^")
    VERSION_KEYS: ClassVar[tuple[str, ...]] = ("version",)

    def __init__(self) -> None:
        super().__init__()
        self.book = CallBook(Overlap())
        self.served_model: str | None = None
        self.synthetic_error: str | None = None
        self.last_text: str | None = None
        self.ended = False
        self.unnamed_turn = 0
        """Counts tool-result events: the turn key of assistant messages without an id."""
        self.turn: int | None = None
        self.reader = MAIN_READER
        """`read_by` of the calls of the current assistant event."""
        self.delegated: dict[str, str] = {}
        """Id of a delegating call -> its subagent type (empty: none given)."""

    # --- events -------------------------------------------------------------------------------
    def handle(self, obj: dict[str, Any]) -> list[Event]:
        kind = obj.get("type")
        if kind == "system":
            return self.on_system(obj)
        if kind == "assistant":
            return self.on_assistant(obj)
        if kind == "user":
            return self.on_user(obj)
        if kind == "result":
            return self.on_result(obj)
        if kind == "stream_event":
            return []  # partial deltas: the complete `assistant` event follows
        raise BadShape(f"unknown event type {kind!r}" if isinstance(kind, str) else "no event type")

    def on_system(self, obj: dict[str, Any]) -> list[Event]:
        if obj.get("subtype") != "init":
            return []
        version = next((v for k in self.VERSION_KEYS if (v := get_str(obj, k))), None)
        return [
            InitSeen(
                host_version=version,
                model=get_str(obj, "model"),
                tools=str_items(obj.get("tools")),
                skills=str_items(obj.get("skills")),
                plugins=str_items(obj.get("plugins")),
            )
        ]

    def on_assistant(self, obj: dict[str, Any]) -> list[Event]:
        message = obj.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list) or not all(isinstance(b, dict) for b in content):
            raise BadShape("assistant message without a content list")
        model = get_str(message, "model")
        texts = [t for b in content if b.get("type") == "text" and (t := get_str(b, "text"))]
        if model == SYNTHETIC_MODEL:
            self.synthetic_error = "\n".join(texts) or "synthetic host message"
            return []
        if model:
            self.served_model = model
        self.turn = self.book.turn_of(get_str(message, "id") or f"#unnamed{self.unnamed_turn}")
        self.reader = self.reader_of(get_str(obj, "parent_tool_use_id"), get_str(obj, "subagent_type"))
        events: list[Event] = []
        for block in content:
            if block.get("type") == "text" and (text := get_str(block, "text")):
                self.last_text = text
                events.append(TextSeen(text))
            elif block.get("type") == "tool_use":
                events.append(self.start_call(block))
        return events

    def on_user(self, obj: dict[str, Any]) -> list[Event]:
        message = obj.get("message")
        if not isinstance(message, dict):
            raise BadShape("user event without a message")
        content = message.get("content")
        if isinstance(content, str):
            return []  # a prompt, not a tool result
        if not isinstance(content, list) or not all(isinstance(b, dict) for b in content):
            raise BadShape("user message content is not a list of blocks")
        events: list[Event] = []
        if any(b.get("type") == "tool_result" for b in content):
            self.unnamed_turn += 1
        for block in content:
            if block.get("type") != "tool_result":
                continue
            call = self.book.get(get_str(block, "tool_use_id"))
            if call is not None:
                events.append(self.finish_call(call, block))
        return events

    def on_result(self, obj: dict[str, Any]) -> list[Event]:
        events: list[Event] = []
        for denial in get_list(obj, "permission_denials"):
            call = self.book.get(get_str(denial, "tool_use_id"))
            if call is not None and call.status != "denied":
                events.append(self.book.finish(call, status="denied", unreadable=failed_read_paths(call, "")))
        usage = self.usage_of(obj)
        if usage is not None:
            events.append(UsageSeen(usage))
        model_usage = get_dict(obj, "modelUsage")
        served = next(iter(model_usage), None) or self.served_model
        subtype = get_str(obj, "subtype") or ""
        is_error = (
            obj.get("is_error") is True or subtype.startswith("error") or self.synthetic_error is not None
        )
        result_text = get_str(obj, "result")
        error = None
        if is_error:
            errors = [e for e in get_list(obj, "errors") if isinstance(e, str)]
            error = self.synthetic_error or result_text or "; ".join(errors) or subtype or "host error"
        self.ended = True
        events.append(
            RunEnded(
                is_error=is_error,
                text=None if self.synthetic_error else result_text,
                error=error,
                served_model=served,
            )
        )
        return events

    def finish(self) -> list[Event]:
        events = self.book.flush_open()
        if self.synthetic_error is not None and not self.ended:
            events.append(RunEnded(is_error=True, error=self.synthetic_error, served_model=self.served_model))
        return events

    # --- calls --------------------------------------------------------------------------------
    def kind_of(self, tool: str) -> CallKind:
        """The host-neutral kind of a tool name."""
        return self.KINDS.get(tool, "other")

    def reader_of(self, parent: str | None, kind: str | None = None) -> str:
        """`read_by` of calls whose event names PARENT as the delegating call (None: the main agent): the
        type the call asked for, else the type the event names (the host's default), else that call's id."""
        if parent is None:
            return MAIN_READER
        return f"subagent:{self.delegated.get(parent) or kind or parent}"

    def start_call(self, block: dict[str, Any]) -> Event:
        tool = get_str(block, "name") or "?"
        args = get_dict(block, "input")
        kind = self.kind_of(tool)
        fields = call_fields(tool, kind, args, command_keys=self.COMMAND_KEYS, skill_keys=self.SKILL_KEYS,
                             path_keys=self.PATH_KEYS)
        call_id = get_str(block, "id")
        if tool in DELEGATING_TOOLS and call_id is not None:
            self.delegated[call_id] = get_str(args, "subagent_type") or ""
        return self.book.start(call_id, turn=self.turn, read_by=self.reader, **fields)

    def finish_call(self, call: Call, block: dict[str, Any]) -> Event:
        text = flatten_text(block.get("content"))
        is_error = block.get("is_error") is True
        updates: dict[str, Any] = {"result": excerpt(text), **output_fields(text)}
        if call.status == "denied" or (is_error and self.DENIAL.search(text)):
            updates.update(status="denied", unreadable=failed_read_paths(call, text))
        elif call.kind == "shell":
            code = exit_code_in(text) if is_error else None
            updates.update(status="error" if is_error else "ok", unreadable=shell_unreadable(call.command, text))
            updates["exit_code"] = code if code is not None else (None if is_error else 0)
        elif is_error:
            updates.update(status="error", unreadable=failed_read_paths(call, text))
        return self.book.finish(call, **updates)

    @staticmethod
    def usage_of(obj: dict[str, Any]) -> Usage | None:
        """Usage of a `result` event: input counts cache writes and reads too."""
        usage = obj.get("usage")
        cost = get_num(obj, "total_cost_usd")
        if not isinstance(usage, dict) and cost is None:
            return None
        fresh = get_int(usage, "input_tokens")
        created = get_int(usage, "cache_creation_input_tokens") or 0
        cached = get_int(usage, "cache_read_input_tokens")
        total_in = None if fresh is None else fresh + created + (cached or 0)
        return Usage(
            input_tokens=total_in,
            output_tokens=get_int(usage, "output_tokens"),
            cached_input_tokens=cached,
            cost_usd=cost,
        )


class ClaudeParser(MessagesStreamParser):
    """Claude Code stream-json."""

    host = "claude"
    KINDS: ClassVar[dict[str, CallKind]] = dict(HOSTS["claude"].tools)
    DENIAL: ClassVar[re.Pattern[str]] = re.compile(
        r"requested permissions? to|Permission to use .* has been denied|haven't granted"
        r"|permission denied by (?:the )?user|The user doesn't want to proceed",
        re.IGNORECASE,
    )
    VERSION_KEYS: ClassVar[tuple[str, ...]] = ("claude_code_version", "version")
