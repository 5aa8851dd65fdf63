"""Claude Code sessions: `~/.claude/projects/<cwd-slug>/<session>.jsonl`, subagents in
`<session>/subagents/agent-*.jsonl`.

Each `user` / `assistant` line is the stream-json event of the same type (with `uuid`,
`timestamp`, `cwd`, `version`, `sessionId` added), so THE Claude stream parser reads them; the
session file has no `system/init` and no `result` line. The other line types (`attachment`,
`queue-operation`, `last-prompt`, `summary`, ...) are the file's own: a `skill_listing`
attachment names the skills offered (`names`), other attachments and the user messages are the
context the row's wording would be in. One trap: a permission denial shows only as an
`is_error` result ("This command requires approval"; the stream's `permission_denials` list is
not written), so those calls are made `denied` here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from workbench.core.events import ParsedRun, RunEnded
from workbench.core.models import Usage
from workbench.core.offered import claude_rows
from workbench.core.parsers.claude import ClaudeParser
from workbench.core.parsers.common import failed_read_paths, flatten_text, get_dict, get_int, get_str
from workbench.core.sessions import Part, SessionFile, SessionRun, json_lines, merge_parts

HOST = ClaudeParser.host
"""The host whose sessions this module reads."""

FEED = frozenset({"user", "assistant"})
"""Line types that are stream-json events."""
OWN = frozenset({"attachment", "queue-operation", "last-prompt", "summary", "system", "file-history-snapshot",
                 "custom-title", "permission-mode", "progress"})
"""The session file's own line types: read for context, never fed to the parser."""
SESSION_DENIAL = re.compile(r"requires approval|was blocked|permission to use .* (?:was|has been) denied",
                            re.IGNORECASE)


def _part(file: SessionFile, run: SessionRun, usage: dict[str, tuple[int, int, int]]) -> tuple[Part, ParsedRun]:
    parser = ClaudeParser()
    parsed = ParsedRun()
    stamps: dict[int, str] = {}
    context: list[str] = []
    unknown = 0
    for number, obj in json_lines(file.text):
        if obj is None:
            parsed.skipped_count += 1
            continue
        kind = obj.get("type")
        if kind in OWN or kind not in FEED:
            unknown += kind not in OWN
            _own_line(obj, run, context)
            continue
        _facts(obj, run)
        message = get_dict(obj, "message")
        if kind == "user" and isinstance(message.get("content"), str):
            context.append(message["content"])
        if kind == "assistant":
            _usage(message, usage)
        parser.line_no = number - 1
        for event in parser.feed(json.dumps(obj)):
            if hasattr(event, "call") and event.call.index not in stamps and (ts := get_str(obj, "timestamp")):
                stamps[event.call.index] = ts
            parsed.apply(event)
    for event in parser.finish():
        parsed.apply(event)
    if unknown:
        run.warnings.append(f"{file.name}: {unknown} line(s) of an unknown type, not read")
    run.context += "\n".join(context)
    calls = [_denied(c) for c in parsed.calls]
    return Part(file.name, calls, stamps), parsed


def _denied(call: Any) -> Any:
    if call.status == "error" and call.result and SESSION_DENIAL.search(call.result):
        return call.model_copy(update={"status": "denied", "unreadable": failed_read_paths(call, call.result)})
    return call


def _facts(obj: dict[str, Any], run: SessionRun) -> None:
    run.session_id = run.session_id or get_str(obj, "sessionId")
    run.host_version = run.host_version or get_str(obj, "version")
    run.cwd = run.cwd or get_str(obj, "cwd")
    run.saw_time(get_str(obj, "timestamp"))


def skill_listing(obj: dict[str, Any]) -> dict[str, str] | None:
    """Name -> description as listed, of a transcript line holding Claude Code's `skill_listing`
    attachment (what the model was offered); a name given without its line lists no description.
    None: not such a line."""
    attachment = get_dict(obj, "attachment")
    if get_str(attachment, "type") != "skill_listing":
        return None
    rows = dict.fromkeys((n for n in attachment.get("names") or [] if isinstance(n, str)), "")
    rows.update(claude_rows(get_str(attachment, "content") or ""))
    return rows


def _own_line(obj: dict[str, Any], run: SessionRun, context: list[str]) -> None:
    _facts(obj, run)
    attachment = get_dict(obj, "attachment")
    rows = skill_listing(obj)
    if rows is not None:
        run.offered_skills += [n for n in rows if n not in run.offered_skills]
    for key in ("content", "addedLines"):
        if key in attachment:
            context.append(flatten_text(attachment[key]) if not isinstance(attachment[key], list)
                           else "\n".join(x for x in attachment[key] if isinstance(x, str)))


def _usage(message: dict[str, Any], usage: dict[str, tuple[int, int, int]]) -> None:
    """Per message id (a message's blocks repeat its usage): input with cache, output, cache read."""
    raw = get_dict(message, "usage")
    if not raw:
        return
    cached = get_int(raw, "cache_read_input_tokens") or 0
    total_in = (get_int(raw, "input_tokens") or 0) + (get_int(raw, "cache_creation_input_tokens") or 0) + cached
    usage[get_str(message, "id") or f"#{len(usage)}"] = (total_in, get_int(raw, "output_tokens") or 0, cached)


def read(files: Sequence[SessionFile]) -> SessionRun:
    """A Claude Code session from its main file and its subagents' files."""
    run = SessionRun(host="claude", session_id=None, parsed=ParsedRun())
    usage: dict[str, tuple[int, int, int]] = {}
    parts, parses = [], []
    for file in files:
        part, parsed = _part(file, run, usage)
        parts.append(part)
        parses.append(parsed)
    main = parses[0]
    calls, read_by = merge_parts(parts)
    run.parsed = ParsedRun(calls=calls, init=main.init, texts=[t for p in parses for t in p.texts],
                           skipped=[s for p in parses for s in p.skipped][:20],
                           skipped_count=sum(p.skipped_count for p in parses))
    run.read_by = read_by
    run.parsed.usage = Usage(input_tokens=sum(u[0] for u in usage.values()) if usage else None,
                             output_tokens=sum(u[1] for u in usage.values()) if usage else None,
                             cached_input_tokens=sum(u[2] for u in usage.values()) if usage else None)
    ended = main.ended
    run.parsed.ended = ended if ended is not None else RunEnded(is_error=False, text=main.texts[-1] if main.texts else None)
    run.model = next((m for m in _models(files[0]) if m), None)
    return run


def _models(file: SessionFile) -> list[str | None]:
    return [get_str(get_dict(obj, "message"), "model") for _, obj in json_lines(file.text)
            if obj is not None and obj.get("type") == "assistant"
            and get_str(get_dict(obj, "message"), "model") not in (None, "<synthetic>")][:1]
