"""Codex sessions: `~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`, a child agent in its own rollout.

A rollout is the session log the Codex stream parser already reads beside `exec --json`: given
the rollout alone (no stdout), it emits every call the model issued, in order, with its turn and
its status from the output ("Process exited with code N", refusals). `session_meta` gives the
session id, cwd and `cli_version`; the `developer` / `user` messages are the context (the
`<skills_instructions>` list names the skills offered; AGENTS.md is inlined in a user message);
`token_count` events carry the running total usage. A child rollout (a subagent the model started
with `spawn_agent`; its `session_meta` names the parent thread) is read the same way and merged by
the time each call was written; its calls are `read_by subagent:<role>` (the `agent_role` it was
spawned with), else `subagent:<its thread id>` (0.171.0's `spawn_agent` takes no role).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from workbench.core.events import ParsedRun, RunEnded
from workbench.core.models import Usage
from workbench.core.parsers.codex import CodexParser
from workbench.core.parsers.common import get_dict, get_int, get_list, get_str
from workbench.core.sessions import Part, SessionFile, SessionRun, json_lines, merge_parts

HOST = CodexParser.host
"""The host whose sessions this module reads."""

KNOWN = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "world_state",
                   "token_usage_record", "compacted"})
_SKILL = re.compile(r"^- ([A-Za-z0-9_.:-]+): ", re.MULTILINE)


def _part(file: SessionFile, run: SessionRun, first: bool) -> tuple[Part, ParsedRun]:
    lines: list[str] = []
    stamps: dict[str, str] = {}
    context: list[str] = []
    unknown = bad = 0
    texts: list[str] = []
    usage: dict[str, Any] = {}
    agent = file.name
    for _, obj in json_lines(file.text):
        if obj is None:
            bad += 1
            continue
        kind, payload = get_str(obj, "type"), get_dict(obj, "payload")
        if kind not in KNOWN:
            unknown += 1
            continue
        lines.append(json.dumps(obj))
        if kind == "session_meta" and not first:
            agent = _agent_name(payload) or agent
        if kind == "session_meta" and first:
            run.session_id = run.session_id or get_str(payload, "id")
            run.cwd = run.cwd or get_str(payload, "cwd")
            run.host_version = run.host_version or get_str(payload, "cli_version")
        run.saw_time(get_str(obj, "timestamp"))
        if kind == "turn_context" and first:
            run.model = run.model or get_str(payload, "model")
        ptype = get_str(payload, "type")
        if kind == "response_item" and ptype == "message":
            text = "\n".join(t for c in get_list(payload, "content") if (t := get_str(c, "text")))
            role = get_str(payload, "role")
            if role == "assistant":
                texts.append(text)
            else:
                context.append(text)
                if "<skills_instructions>" in text:
                    listed = text.split("### Available skills", 1)[-1]
                    run.offered_skills += [s for s in _SKILL.findall(listed) if s not in run.offered_skills]
        if kind == "response_item" and (call_id := get_str(payload, "call_id")) and ptype in (
                "function_call", "custom_tool_call") and (ts := get_str(obj, "timestamp")):
            stamps.setdefault(call_id, ts)
        if kind == "event_msg" and ptype == "token_count":
            usage = get_dict(get_dict(payload, "info"), "total_token_usage") or usage
    parser = CodexParser(session_log=lines)
    parsed = ParsedRun(skipped_count=bad)
    for event in parser.finish():
        parsed.apply(event)
    parsed.texts = [t for t in texts if t]
    if usage:
        parsed.usage = Usage(input_tokens=get_int(usage, "input_tokens"), output_tokens=get_int(usage, "output_tokens"),
                             cached_input_tokens=get_int(usage, "cached_input_tokens"))
    if unknown:
        run.warnings.append(f"{file.name}: {unknown} line(s) of an unknown type, not read")
    if bad:
        run.warnings.append(f"{file.name}: {bad} line(s) not JSON objects (a torn or foreign line), skipped")
    run.context += "\n".join(context)
    by_index = {c.index: stamps[c.call_id] for c in parsed.calls if c.call_id in stamps}
    return Part(agent, parsed.calls, by_index), parsed


def _agent_name(meta: dict[str, Any]) -> str | None:
    """A child rollout's subagent as `read_by` names it: its role, else its thread id."""
    spawn = get_dict(get_dict(get_dict(meta, "source"), "subagent"), "thread_spawn")
    return get_str(spawn, "agent_role") or get_str(meta, "agent_role") or get_str(meta, "id")


def read(files: Sequence[SessionFile]) -> SessionRun:
    """A Codex session from its rollout and its children's rollouts."""
    run = SessionRun(host="codex", session_id=None, parsed=ParsedRun())
    parts, parses = [], []
    for n, file in enumerate(files):
        part, parsed = _part(file, run, first=n == 0)
        parts.append(part)
        parses.append(parsed)
    calls, read_by = merge_parts(parts)
    usages = [p.usage for p in parses if p.usage.input_tokens is not None]
    total = Usage(
        input_tokens=sum(u.input_tokens or 0 for u in usages) if usages else None,
        output_tokens=sum(u.output_tokens or 0 for u in usages) if usages else None,
        cached_input_tokens=sum(u.cached_input_tokens or 0 for u in usages) if usages else None)
    texts = [t for p in parses for t in p.texts]
    run.parsed = ParsedRun(calls=calls, init=parses[0].init, usage=total, texts=texts,
                           skipped_count=sum(p.skipped_count for p in parses),
                           ended=RunEnded(is_error=False, text=texts[-1] if texts else None,
                                          served_model=run.model))
    run.read_by = read_by
    return run
