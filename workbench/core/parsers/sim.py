"""The offline `sim` host's stream: the format the simulator WRITES, one JSON object per line.

    {"type": "init", "host_version": "sim-1", "model": "m", "tools": [...], "skills": [...],
     "plugins": [...]}                                       -> InitSeen
    {"type": "call", "call": {<Call fields: index, tool, kind, path, command, skill, call_id>}}
                                                             -> CallStarted (issued)
    {"type": "result_of", "index": N, "status": "ok|error|denied", "exit_code": 2,
     "result": "...", "unreadable": ["..."]}                 -> CallFinished for call N
    {"type": "text", "text": "..."}                          -> TextSeen
    {"type": "usage", "input_tokens": 1, "output_tokens": 2, "cached_input_tokens": 0,
     "cost_usd": 0.0}                                        -> UsageSeen (run totals so far)
    {"type": "end", "is_error": false, "error": null, "text": null, "served_model": null}
                                                             -> RunEnded

`index` in a call is the simulator's own number for it; `result_of` refers to that number. The
parser assigns run indexes in the order calls arrive, so a simulator that numbers oddly cannot
break the run. Fields are validated with the pydantic models: a wrong type skips the line.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from workbench.core.events import Event, InitSeen, RunEnded, TextSeen, UsageSeen
from workbench.core.models import Call, Usage
from workbench.core.parsers.common import BadShape, CallBook, JsonLineParser, get_int, get_str, str_items

_RESULT_FIELDS = ("status", "exit_code", "result", "unreadable")


class SimParser(JsonLineParser):
    """The sim host's stream."""

    host = "sim"

    def __init__(self) -> None:
        super().__init__()
        self.book = CallBook()
        self.sim_index: dict[int, int] = {}

    def handle(self, obj: dict[str, Any]) -> list[Event]:
        kind = obj.get("type")
        try:
            if kind == "init":
                return [self.on_init(obj)]
            if kind == "call":
                return [self.on_call(obj)]
            if kind == "result_of":
                return [self.on_result(obj)]
            if kind == "text":
                text = get_str(obj, "text")
                if text is None:
                    raise BadShape("text without a string")
                return [TextSeen(text)]
            if kind == "usage":
                return [UsageSeen(Usage.model_validate({k: v for k, v in obj.items() if k != "type"}))]
            if kind == "end":
                return [self.on_end(obj)]
        except ValidationError as exc:
            raise BadShape(f"bad field {exc.errors()[0].get('loc')}") from None
        raise BadShape(f"unknown event type {kind!r}" if isinstance(kind, str) else "no event type")

    def on_init(self, obj: dict[str, Any]) -> Event:
        for key in ("host_version", "model"):
            if obj.get(key) is not None and get_str(obj, key) is None:
                raise BadShape(f"{key} is not a string")
        return InitSeen(
            host_version=get_str(obj, "host_version"),
            model=get_str(obj, "model"),
            tools=str_items(obj.get("tools")),
            skills=str_items(obj.get("skills")),
            plugins=str_items(obj.get("plugins")),
        )

    def on_call(self, obj: dict[str, Any]) -> Event:
        raw = obj.get("call")
        if not isinstance(raw, dict):
            raise BadShape("call is not an object")
        call = Call.model_validate(raw)
        if call.index in self.sim_index:
            raise BadShape(f"call index {call.index} repeated")
        fields = call.model_dump(exclude={"index", "call_id"})
        started = self.book.start(call.call_id, **fields)
        self.sim_index[call.index] = started.call.index
        return started

    def on_result(self, obj: dict[str, Any]) -> Event:
        index = get_int(obj, "index")
        if index is None or index not in self.sim_index:
            raise BadShape("result_of an unknown call")
        call = self.book.calls[self.sim_index[index]]
        updates = {k: obj[k] for k in _RESULT_FIELDS if k in obj}
        final = Call.model_validate({**call.model_dump(), **updates})
        return self.book.finish(call, **final.model_dump(include=set(updates)))

    @staticmethod
    def on_end(obj: dict[str, Any]) -> Event:
        is_error = obj.get("is_error", False)
        if not isinstance(is_error, bool):
            raise BadShape("is_error is not a boolean")
        for key in ("error", "text", "served_model"):
            if obj.get(key) is not None and get_str(obj, key) is None:
                raise BadShape(f"{key} is not a string")
        return RunEnded(
            is_error=is_error,
            error=get_str(obj, "error"),
            text=get_str(obj, "text"),
            served_model=get_str(obj, "served_model"),
        )

    def finish(self) -> list[Event]:
        return self.book.flush_open()
