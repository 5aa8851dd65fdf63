"""Writes Claude Code's stream-json (`-p --output-format stream-json --verbose`), one flushed line per event.

Only the fields the Claude parser and a human reader use are written, in Claude's shapes: a
`system/init`, one `assistant` event per content block, `user` events with `tool_result` blocks,
and a final `result` with usage, `modelUsage` and `permission_denials`. Token counts are small,
fixed functions of text length (a simulation has no real usage); cost is always null. A subagent's
events carry the delegating call's id in `parent_tool_use_id` with its type and task label, between
`task_started` and `task_notification` system events, as Claude Code 2.1.197 prints them.
"""

from __future__ import annotations

import contextlib
import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, TextIO

SYNTHETIC_MODEL = "<synthetic>"
TOKENS_PER_TURN = 100
"""Fixed prompt overhead counted per model turn, so usage grows with turns like a real host's."""


def tokens(text: str) -> int:
    """A stand-in token count: one token per four characters, at least one."""
    return max(1, len(text) // 4)


@dataclass(frozen=True)
class Parent:
    """The delegating call whose subagent is writing: its id, the subagent's type and task label."""

    use_id: str
    type: str
    description: str

    def fields(self) -> dict[str, Any]:
        return {"parent_tool_use_id": self.use_id, "subagent_type": self.type, "task_description": self.description}


class StreamWriter:
    """Emits one run's events to OUT and keeps the run's totals for the final `result`."""

    def __init__(self, out: TextIO, *, model: str, session_id: str | None = None) -> None:
        self.out = out
        self.model = model
        self.session_id = session_id or str(uuid.uuid4())
        self.turns = 0
        self.input_tokens = 0
        self.output_tokens = 0
        self.denials: list[dict[str, Any]] = []
        self.ids = 0
        self.last_text: str | None = None
        self.parent: Parent | None = None
        """Set while a subagent writes (`subagent`)."""
        self.sub_turns = 0

    def emit(self, obj: dict[str, Any]) -> None:
        """Write one event as a JSON line and flush, so a live reader sees it at once."""
        obj.setdefault("session_id", self.session_id)
        self.out.write(json.dumps(obj, ensure_ascii=False) + "\n")
        self.out.flush()

    def init(self, *, cwd: str, tools: list[str], skills: list[str], plugins: list[dict[str, str]],
             version: str) -> None:
        """The `system/init` event: what the host offers the model."""
        self.emit({"type": "system", "subtype": "init", "cwd": cwd, "tools": tools, "mcp_servers": [],
                   "model": self.model, "permissionMode": "default", "claude_code_version": version,
                   "skills": skills, "plugins": plugins})

    def turn(self, context: str) -> None:
        """Count one model turn that read CONTEXT (the prompt or the last tool results); a subagent's
        turns add usage but not to the main agent's `num_turns`."""
        self.turns += self.parent is None
        self.sub_turns += self.parent is not None
        self.input_tokens += TOKENS_PER_TURN + tokens(context)

    def _origin(self) -> dict[str, Any]:
        return self.parent.fields() if self.parent else {"parent_tool_use_id": None}

    @contextlib.contextmanager
    def subagent(self, use_id: str, kind: str, description: str, prompt: str) -> Iterator[None]:
        """Write a subagent's events inside the call USE_ID: its start, its prompt, then its work."""
        task_id = f"asim{use_id[-4:]}"
        self.emit({"type": "system", "subtype": "task_started", "task_id": task_id, "tool_use_id": use_id,
                   "description": description, "subagent_type": kind, "task_type": "local_agent", "prompt": prompt})
        self.parent = Parent(use_id, kind, description)
        self.emit({"type": "user", **self._origin(), "message": {"role": "user", "content": [
            {"type": "text", "text": prompt}]}})
        try:
            yield
        finally:
            self.parent = None
        self.emit({"type": "system", "subtype": "task_notification", "task_id": task_id, "tool_use_id": use_id,
                   "status": "completed", "summary": description})

    def _assistant(self, block: dict[str, Any], *, model: str | None = None) -> None:
        self.output_tokens += tokens(json.dumps(block))
        turn = f"{self.turns:04d}" if self.parent is None else f"{self.turns:04d}s{self.sub_turns:04d}"
        self.emit({"type": "assistant", **self._origin(), "message": {
            "id": f"msg_sim{turn}", "type": "message", "role": "assistant",
            "model": model or self.model, "content": [block], "stop_reason": None}})

    def say(self, text: str) -> None:
        """An assistant text block."""
        self.last_text = text
        self._assistant({"type": "text", "text": text})

    def tool_use(self, name: str, tool_input: dict[str, Any]) -> str:
        """An assistant tool_use block; returns its id for the result."""
        self.ids += 1
        use_id = f"toolu_sim{self.ids:04d}"
        self._assistant({"type": "tool_use", "id": use_id, "name": name, "input": tool_input})
        return use_id

    def tool_result(self, use_id: str, content: str, *, is_error: bool = False) -> None:
        """A user event carrying one tool_result block."""
        block: dict[str, Any] = {"tool_use_id": use_id, "type": "tool_result", "content": content}
        if is_error:
            block["is_error"] = True
        self.emit({"type": "user", **self._origin(), "message": {"role": "user", "content": [block]}})

    def skill_text(self, text: str) -> None:
        """The loaded skill's body, injected as a user text message (not a tool result), as Claude does."""
        self.emit({"type": "user", **self._origin(), "isMeta": True,
                   "message": {"role": "user", "content": [{"type": "text", "text": text}]}})

    def deny(self, use_id: str, name: str, tool_input: dict[str, Any], message: str) -> None:
        """A refused call: an is_error result now, and an entry in the result's permission_denials."""
        self.tool_result(use_id, message, is_error=True)
        self.denials.append({"tool_name": name, "tool_use_id": use_id, "tool_input": tool_input})

    def synthetic_error(self, text: str) -> None:
        """The host's own error message after the provider failed: not model output."""
        self.emit({"type": "assistant", "parent_tool_use_id": None, "message": {
            "id": "msg_synthetic", "type": "message", "role": "assistant", "model": SYNTHETIC_MODEL,
            "content": [{"type": "text", "text": text}], "stop_reason": "stop_sequence"}})

    def result(self, *, text: str | None, is_error: bool = False, duration_ms: int = 0) -> None:
        """The final `result` event with the run's totals."""
        usage = {"input_tokens": self.input_tokens, "cache_creation_input_tokens": 0,
                 "cache_read_input_tokens": 0, "output_tokens": self.output_tokens}
        model_usage = {} if is_error and not self.turns else {self.model: {
            "inputTokens": self.input_tokens, "outputTokens": self.output_tokens,
            "cacheReadInputTokens": 0, "cacheCreationInputTokens": 0, "costUSD": None}}
        self.emit({"type": "result", "subtype": "success", "is_error": is_error, "duration_ms": duration_ms,
                   "num_turns": self.turns, "result": text or "", "stop_reason": "end_turn",
                   "total_cost_usd": None, "usage": usage, "modelUsage": model_usage,
                   "permission_denials": self.denials})
