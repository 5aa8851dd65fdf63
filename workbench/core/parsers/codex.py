"""Codex `exec --json` (thread/turn/item events), optionally merged with its rollout session log.

From --json: `command_execution` items (command unwrapped from `/bin/bash -lc '...'`; status
`failed` with a non-zero exit is "error" with that exit code — reads in it may still have run),
`file_change` items (ONE edit call per changed path, tool `apply_patch`), `agent_message` text,
`turn.completed` usage (summed over turns), `turn.failed` / `error` as the run's error.

The trap: actions refused by the sandbox or by policy produce NO --json event at all. Given the
rollout log (`$CODEX_HOME/sessions/.../rollout-*.jsonl`), the parser knows every call the model
issued, in order (`response_item` function_call `exec_command`/`shell`, custom_tool_call
`apply_patch`, with their outputs). Each --json call is matched to the next rollout call with the
same command (or a patch naming the same path); rollout calls skipped over by a match, and those
left at the end, are the omitted ones: they are emitted at their position. A shell command that
ran (its output has an exit code) is "error" for a non-zero exit even when the sandbox refused a
write in it ("Read-only file system"): the rest of the chain ran, so `cat f && git commit` still
read f. A call that never ran is "denied" when its output shows a refusal ("patch rejected",
"Operation not permitted", ...), else "error". The rollout's `session_meta.cli_version`
is the host version (--json has none).

Turns come from the rollout: the calls of one model response are consecutive response items, and
a response ends with its `token_usage_record` (a tool output or `token_count` event also closes
it), so the next call starts a new turn. --json carries no turn id; without the rollout a call's
turn comes from item timing: a call whose `item.started` arrives while an earlier call is still
open (started, not completed) is in that call's turn, since no result of the open call can have
shaped it; otherwise it opens a new turn. A
call's `output` is what the model received: the rollout's output when there is one, else the
command's `aggregated_output`.

Delegation (0.171.0, `multi_agent_v1`): the model's `spawn_agent` (a namespaced `function_call`
in the rollout; a `collab_tool_call` item with `tool: spawn_agent` in --json) is a call of kind
`agent`, ok when its output names the started agent (`agent_id`). Its `wait_agent` and the
`tool_search` that loaded the agent tools are plumbing, not calls. The child's own calls are in
neither the --json stream nor this rollout but in the child's rollout (`runner.children`).

One stream may hold several `codex exec` processes: each starts with `thread.started` and numbers
its items from the start again, so ids are scoped per process: a later process's ids get `#N`
(`item_0#2`). `codex exec resume --last` (0.171.0) keeps the thread id and appends to the same
rollout without a new `session_meta` (its call ids are unique already); separate runs' rollouts
concatenated each start with `session_meta`, which scopes their call ids the same way and opens a
new turn.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from workbench.core.events import Event, InitSeen, RunEnded, TextSeen, UsageSeen
from workbench.core.evidence import shell_unreadable
from workbench.core.hostinfo import CODEX_AGENT_TOOL, CODEX_SHELL_TOOLS
from workbench.core.models import CallStatus, Usage
from workbench.core.parsers.common import (
    MAX_LINE,
    BadShape,
    CallBook,
    JsonLineParser,
    excerpt,
    exit_code_in,
    get_dict,
    get_int,
    get_list,
    get_str,
    loads,
    output_fields,
    unwrap_argv,
    unwrap_command,
)

_PATCH_FILE = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+?)\s*$", re.MULTILINE)
_REFUSAL = re.compile(
    r"patch rejected|rejected by|Read-only file system|Operation not permitted|sandbox denied"
    r"|blocked by (?:the )?(?:sandbox|policy)|not permitted by",
    re.IGNORECASE,
)
_TURN_ENDS = frozenset({"token_usage_record", "token_count", "function_call_output", "custom_tool_call_output"})
"""Rollout lines (or payload types) after which the next call belongs to a new model turn."""
_CALL_ITEMS = ("function_call", "custom_tool_call")
"""`response_item` payload types that are calls (their outputs are in _TURN_ENDS)."""
_USED = re.compile(r'"(?:session_meta|' + "|".join(sorted({*_CALL_ITEMS, *_TURN_ENDS})) + r')"')
"""A rollout line that can matter names one of these types as a JSON string; any other (reasoning,
messages, other events) is skipped before decoding."""
_ITEM_STATUS: dict[str, CallStatus] = {"completed": "ok", "failed": "error", "declined": "denied"}


@dataclass
class RolloutCall:
    """One call as the rollout log records it, with its output once seen."""

    call_id: str | None
    tool: str
    command: str | None = None
    paths: list[str] = field(default_factory=list)
    output: str | None = None
    turn: int | None = None
    prompt: str | None = None
    """A `spawn_agent` call's task (its `message`): the call is of kind agent."""

    @property
    def shown(self) -> str | None:
        """The part of the output that is the tool's own (after Codex's `Output:` header)."""
        return self.output.split("\nOutput:\n", 1)[-1] if self.output is not None else None

    def calls(self) -> list[dict[str, Any]]:
        """Fields of the normalized call(s) for an omitted action (one per patched path)."""
        text = self.output or ""
        status: CallStatus
        code = exit_code_in(text)
        if self.command is not None and code is not None:
            status = "ok" if code == 0 else "error"
        elif _REFUSAL.search(text):
            status = "denied"
        elif self.output is None or (code is not None and code != 0):
            status = "error"
        else:
            status = "ok"
        shown = self.shown
        base = {"tool": self.tool, "call_id": self.call_id, "status": status, "result": excerpt(shown),
                "turn": self.turn, **output_fields(shown)}
        if self.prompt is not None:
            return [{**base, "kind": "agent", "status": "ok" if '"agent_id"' in text else "error"}]
        if self.command is not None:
            return [{**base, "kind": "shell", "command": self.command, "exit_code": code,
                     "unreadable": shell_unreadable(self.command, text)}]
        paths: list[str | None] = list(self.paths) or [None]
        return [{**base, "kind": "edit", "path": p} for p in paths]


def read_rollout(lines: Iterable[str]) -> tuple[str | None, list[RolloutCall]]:
    """The cli_version and every call of a rollout log, in issue order; bad lines are ignored."""
    version: str | None = None
    calls: list[RolloutCall] = []
    by_id: dict[str, RolloutCall] = {}
    turn, turn_closed, process = -1, True, 0
    for line in lines:
        if len(line) > MAX_LINE or not _USED.search(line):
            continue
        try:
            obj = loads(line)
        except (ValueError, RecursionError, TypeError):
            continue
        payload = get_dict(obj, "payload")
        kind, payload_kind = get_str(obj, "type"), get_str(payload, "type")
        if kind == "session_meta":
            # a separate run's rollout (concatenated after another): its call ids and turns are its own
            version = get_str(payload, "cli_version") or version
            process, by_id, turn_closed = process + 1, {}, True
            continue
        if kind in _TURN_ENDS or payload_kind in _TURN_ENDS:
            turn_closed = True
        if kind != "response_item":
            continue
        call = _rollout_call(payload) if payload_kind in _CALL_ITEMS else None
        if call is not None:
            if turn_closed:
                turn, turn_closed = turn + 1, False
            call.turn = turn
            call.call_id = _scoped(call.call_id, process) if call.call_id else None
            calls.append(call)
            if call.call_id:
                by_id[call.call_id] = call
        elif payload_kind in ("function_call_output", "custom_tool_call_output"):
            target = by_id.get(_scoped(get_str(payload, "call_id") or "", process))
            output = payload.get("output")
            if target is not None:
                target.output = output if isinstance(output, str) else get_str(output, "content") or ""
    return version, calls


def _scoped(call_id: str, process: int) -> str:
    return f"{call_id}#{process}" if call_id and process > 1 else call_id


def _rollout_call(payload: dict[str, Any]) -> RolloutCall | None:
    kind, name, call_id = get_str(payload, "type"), get_str(payload, "name"), get_str(payload, "call_id")
    if kind == "custom_tool_call" and name == "apply_patch":
        return RolloutCall(call_id, "apply_patch", paths=_PATCH_FILE.findall(get_str(payload, "input") or ""))
    if kind == "function_call" and name in CODEX_SHELL_TOOLS:
        try:
            args = loads(get_str(payload, "arguments") or "")
        except (ValueError, RecursionError):
            return None
        command = get_str(args, "cmd")
        argv = get_list(args, "command")
        if command is None and argv and all(isinstance(a, str) for a in argv):
            command = unwrap_argv(argv)
        elif command is None:
            command = get_str(args, "command")
        return RolloutCall(call_id, name, command=unwrap_command(command) if command else None) if command \
            else None
    if kind == "function_call" and name == "apply_patch":
        patch = get_str(payload, "arguments") or ""
        return RolloutCall(call_id, "apply_patch", paths=_PATCH_FILE.findall(patch))
    if kind == "function_call" and name == CODEX_AGENT_TOOL:
        try:
            args = loads(get_str(payload, "arguments") or "")
        except (ValueError, RecursionError):
            args = {}
        return RolloutCall(call_id, CODEX_AGENT_TOOL, prompt=get_str(args, "message") or "")
    return None


class CodexParser(JsonLineParser):
    """Codex exec --json; with a rollout log, also the refused calls --json leaves out."""

    host = "codex"

    def __init__(self, session_log: Iterable[str] | None = None) -> None:
        super().__init__()
        self.book = CallBook()
        self.items: dict[str, list[int]] = {}
        self.matched: dict[str, RolloutCall] = {}
        """--json item id -> the rollout call it was matched to."""
        self.usage = Usage()
        self.last_text: str | None = None
        self.error: str | None = None
        self.version: str | None = None
        self.rollout: list[RolloutCall] | None = None
        if session_log is not None:
            self.version, self.rollout = read_rollout(session_log)
        self.cursor = 0
        """The first rollout position not yet matched or emitted."""
        self.consumed: set[int] = set()
        """Rollout positions already matched to a --json item or emitted as omitted."""
        self.init_sent = False
        self.open: set[str] = set()
        """--json items started and not yet completed (item timing: overlapping calls are one turn)."""
        self.timing_turn = -1
        self.thread_id: str | None = None
        """The first `thread.started` thread id: the main thread, whose rollout's `session_meta.id` it is."""
        self.process = 0
        """`thread.started` lines seen: each `codex exec` process (a resumed one too) numbers its items
        from the start again, so an item id means something only within its process."""

    def feed(self, line: str) -> list[Event]:
        events: list[Event] = []
        if not self.init_sent and self.version is not None:
            self.init_sent = True
            events.append(InitSeen(host_version=self.version))
        return events + super().feed(line)

    def handle(self, obj: dict[str, Any]) -> list[Event]:
        kind = obj.get("type")
        if kind == "thread.started":
            self.process += 1
            self.thread_id = self.thread_id or get_str(obj, "thread_id")
            return []
        if kind == "turn.started":
            return []
        if kind in ("item.started", "item.updated", "item.completed"):
            item = obj.get("item")
            if not isinstance(item, dict):
                raise BadShape("item event without an item")
            return self.on_item(item, done=kind == "item.completed")
        if kind == "turn.completed":
            return self.on_turn_completed(obj)
        if kind == "turn.failed":
            self.error = get_str(get_dict(obj, "error"), "message") or self.error or "turn failed"
            return [RunEnded(is_error=True, error=self.error)]
        if kind == "error":
            self.error = get_str(obj, "message") or "error"
            return [RunEnded(is_error=True, error=self.error)]
        raise BadShape(f"unknown event type {kind!r}" if isinstance(kind, str) else "no event type")

    def on_item(self, item: dict[str, Any], done: bool) -> list[Event]:
        kind = get_str(item, "type")
        item_id = self.scoped(get_str(item, "id"))
        if kind == "agent_message":
            text = get_str(item, "text")
            if done and text:
                self.last_text = text
                return [TextSeen(text)]
            return []
        if kind == "error":
            self.error = get_str(item, "message") or self.error
            return []
        if kind == "command_execution":
            command = get_str(item, "command")
            if command is None:
                raise BadShape("command_execution without a command")
            fields = [{"tool": "exec_command", "kind": "shell", "command": unwrap_command(command)}]
        elif kind == "file_change":
            changes = [get_str(c, "path") for c in get_list(item, "changes")]
            fields = [{"tool": "apply_patch", "kind": "edit", "path": p} for p in changes if p] or [
                {"tool": "apply_patch", "kind": "edit"}
            ]
        elif kind == "collab_tool_call" and get_str(item, "tool") == CODEX_AGENT_TOOL:
            fields = [{"tool": CODEX_AGENT_TOOL, "kind": "agent", "prompt": get_str(item, "prompt") or ""}]
        elif kind in ("mcp_tool_call", "web_search"):
            name = get_str(item, "tool") or get_str(item, "query") or kind
            fields = [{"tool": name, "kind": "other"}]
        else:
            return []  # reasoning, todo_list: not calls
        events = self.start_item(item_id, fields)
        if done:
            events += self.finish_item(item_id, item)
        return events

    def scoped(self, item_id: str | None) -> str | None:
        """The item id, unique over the stream: the first process's ids as Codex gives them, a later
        process's with `#N` appended (`item_1#2`)."""
        if item_id is None or self.process <= 1:
            return item_id
        return f"{item_id}#{self.process}"

    def start_item(self, item_id: str | None, fields: list[dict[str, Any]]) -> list[Event]:
        if item_id is not None and item_id in self.items:
            return []
        events: list[Event] = []
        position = self.match(fields[0])
        fields = [{k: v for k, v in f.items() if k != "prompt"} for f in fields]
        if position is not None:
            events += self.emit_omitted(position)
            self.consume(position)
            source = self.rollout[position] if self.rollout else None
            rollout_id = source.call_id if source else None
            if source is not None:
                fields = [{**f, "tool": source.tool, "turn": source.turn} for f in fields]
                if item_id is not None:
                    self.matched[item_id] = source
        else:
            rollout_id = None
            if self.rollout is None:
                fields = [{**f, "turn": self.turn_by_timing()} for f in fields]
        if item_id is not None:
            self.open.add(item_id)
        indexes = []
        for f in fields:
            event = self.book.start(item_id, **f)
            indexes.append(event.call.index)
            events.append(event)
        if rollout_id is not None:
            self.book.by_id[rollout_id] = indexes[0]
        if item_id is not None:
            self.items[item_id] = indexes
        return events

    def turn_by_timing(self) -> int:
        """The turn of a call --json starts now: the open calls' turn when one is open, else a new one."""
        if not self.open:
            self.timing_turn += 1
        return self.timing_turn

    def finish_item(self, item_id: str | None, item: dict[str, Any]) -> list[Event]:
        self.open.discard(item_id or "")
        indexes = self.items.get(item_id or "", [])
        status = _ITEM_STATUS.get(get_str(item, "status") or "", "ok")
        output = get_str(item, "aggregated_output")
        code = get_int(item, "exit_code")
        events: list[Event] = []
        for index in indexes:
            call = self.book.calls[index]
            updates: dict[str, Any] = {"status": status}
            if call.kind == "shell":
                if status == "ok" and code not in (None, 0):
                    updates["status"] = "error"
                source = self.matched.get(item_id or "")
                received = source.shown if source is not None and source.output is not None else output
                updates.update(output_fields(received))
                updates.update(exit_code=code, result=excerpt(output))
                updates["unreadable"] = shell_unreadable(call.command, output or "")
            events.append(self.book.finish(call, **updates))
        return events

    def match(self, fields: dict[str, Any]) -> int | None:
        """Rollout position of the next unmatched call with this command or patched path, from the cursor.

        Codex runs the calls of one model response in parallel and its --json may start them in
        another order than the model issued them: a position skipped over is not yet omitted."""
        if not self.rollout:
            return None
        for position in range(self.cursor, len(self.rollout)):
            if position in self.consumed:
                continue
            candidate = self.rollout[position]
            if fields["kind"] == "agent":
                if candidate.prompt is not None and candidate.prompt == fields.get("prompt"):
                    return position
            elif fields["kind"] == "shell" and candidate.command is not None:
                if candidate.command.strip() == (fields.get("command") or "").strip():
                    return position
            elif fields["kind"] == "edit" and candidate.command is None and candidate.prompt is None:
                path = fields.get("path") or ""
                if not candidate.paths or any(path.endswith(p) or p.endswith(path) for p in candidate.paths):
                    return position
        return None

    def consume(self, position: int) -> None:
        self.consumed.add(position)
        while self.cursor in self.consumed:
            self.cursor += 1

    def emit_omitted(self, until: int) -> list[Event]:
        """Calls the rollout has before position UNTIL that --json never showed: emitted as finished.

        Only calls of EARLIER model turns than UNTIL's are omitted for sure (--json starts every call
        of a response before the next response); a same-turn call may still start later."""
        events: list[Event] = []
        rollout = self.rollout or []
        limit = min(until, len(rollout))
        turn = rollout[until].turn if until < len(rollout) else None
        for position in range(self.cursor, limit):
            if position in self.consumed:
                continue
            if turn is not None and rollout[position].turn == turn:
                continue
            for fields in rollout[position].calls():
                call_id = fields.pop("call_id")
                head = {k: v for k, v in fields.items() if k in ("tool", "kind")}
                started = self.book.start(call_id, **head)
                events.append(self.book.finish(started.call, **fields))
            self.consume(position)
        return events

    def on_turn_completed(self, obj: dict[str, Any]) -> list[Event]:
        usage = get_dict(obj, "usage")
        self.usage = Usage(
            input_tokens=_add(self.usage.input_tokens, get_int(usage, "input_tokens")),
            cached_input_tokens=_add(self.usage.cached_input_tokens, get_int(usage, "cached_input_tokens")),
            output_tokens=_add(self.usage.output_tokens, get_int(usage, "output_tokens")),
        )
        return [UsageSeen(self.usage), RunEnded(is_error=False, text=self.last_text)]

    def finish(self) -> list[Event]:
        events: list[Event] = []
        if not self.init_sent and self.version is not None:
            self.init_sent = True
            events.append(InitSeen(host_version=self.version))
        if self.rollout is not None:
            events += self.emit_omitted(len(self.rollout))
        return events + self.book.flush_open()


def _add(total: int | None, more: int | None) -> int | None:
    if more is None:
        return total
    return (total or 0) + more

