"""OpenCode sessions: rows of its SQLite database (`~/.local/share/opencode/opencode.db`, 1.18.33),
handed in as JSON lines by the runner (`runner.sessions.opencode_export`): one `session` line (the
`session` row: id, parent_id, directory, version, time_created), then per message one `message`
line (id, role, time) and per part one `part` line (the part's `data` with its `id`, `messageID`).

A part's data is the stream's `part` object: `tool` parts are the stream's `tool_use` events,
`text`, `step-start`, `step-finish` its `text`, `step_start`, `step_finish`; THE OpenCode stream
parser reads them. A user message's text is context, not model output. A child session (a
subagent: `parent_id` set) is its own export, merged by the time each call was written.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime

from workbench.core.events import ParsedRun, RunEnded
from workbench.core.parsers.common import get_dict, get_int, get_str
from workbench.core.parsers.opencode import OpenCodeParser
from workbench.core.sessions import Part, SessionFile, SessionRun, json_lines, merge_parts

HOST = OpenCodeParser.host
"""The host whose sessions this module reads."""

EVENTS = {"tool": "tool_use", "text": "text", "step-start": "step_start", "step-finish": "step_finish",
          "reasoning": "reasoning"}


def _iso(ms: int | None) -> str | None:
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat().replace("+00:00", "Z") if ms else None


def _part(file: SessionFile, run: SessionRun, first: bool) -> tuple[Part, ParsedRun]:
    parser = OpenCodeParser()
    parsed = ParsedRun()
    context: list[str] = []
    roles: dict[str, str] = {}
    call_ts: dict[str, str] = {}
    for _, obj in json_lines(file.text):
        if obj is None:
            parsed.skipped_count += 1
            continue
        if "session" in obj and first:
            session = get_dict(obj, "session")
            run.session_id = get_str(session, "id")
            run.cwd = get_str(session, "directory")
            run.host_version = get_str(session, "version")
            run.started_at = _iso(get_int(session, "time_created"))
            continue
        if "message" in obj:
            roles[get_str(obj, "message") or ""] = get_str(obj, "role") or ""
            continue
        data = get_dict(obj, "part")
        event = EVENTS.get(get_str(data, "type") or "")
        if event is None:
            continue
        ts = _iso(get_int(obj, "time"))
        if ts:
            run.finished_at = max(run.finished_at or ts, ts)
        if roles.get(get_str(data, "messageID") or "") == "user":
            context.append(get_str(data, "text") or "")
            continue
        if event == "tool_use" and ts and (call_id := get_str(data, "callID")):
            call_ts.setdefault(call_id, ts)
        for ev in parser.feed(json.dumps({"type": event, "part": data})):
            parsed.apply(ev)
    for ev in parser.finish():
        parsed.apply(ev)
    stamps = {c.index: call_ts[c.call_id] for c in parsed.calls if c.call_id in call_ts}
    run.context += "\n".join(context)
    return Part(file.name, parsed.calls, stamps), parsed


def read(files: Sequence[SessionFile]) -> SessionRun:
    """An OpenCode session from its export and its child sessions' exports."""
    run = SessionRun(host="opencode", session_id=None, parsed=ParsedRun())
    parts, parses = zip(*(_part(f, run, n == 0) for n, f in enumerate(files)), strict=True)
    calls, read_by = merge_parts(list(parts))
    main = parses[0]
    texts = [t for p in parses for t in p.texts]
    run.parsed = ParsedRun(calls=calls, usage=main.usage, texts=texts,
                           skipped_count=sum(p.skipped_count for p in parses),
                           ended=main.ended or RunEnded(is_error=False, text=texts[-1] if texts else None))
    run.read_by = read_by
    return run
