"""A delegated subagent's calls where the host's stream leaves them out.

OpenCode 1.18.33's `run --format json` prints the `task` call (its `metadata.sessionId` names the
child session) but none of the child's calls; its database in the run's own HOME has them. Codex
0.171.0's `exec --json` prints the `spawn_agent` call (a `collab_tool_call`) but none of the child's
turns; they are in the child's own rollout beside the run's, whose `session_meta` names the run's
thread as its parent. Gemini CLI 0.61.0's `-o stream-json` prints the `invoke_agent` call and its
result but none of the subagent's calls; the subagent's chat file in the run's own HOME has them
(`gemini_source`). When a run delegated, its calls are read back from there exactly as the sessions
door reads them (`runner.sessions`: the same discovery, grouping and reader): main agent and children
merged by the time each call was issued, each child call `read_by subagent:<child>`.
"""

from __future__ import annotations

import os
from pathlib import Path

from workbench.core.events import ParsedRun
from workbench.core.models import MAIN_READER, Call
from workbench.runner.sessions import MAX_FILE_BYTES, SessionSource, discover, load_source, opencode_sessions

OPENCODE_DB = Path(".local") / "share" / "opencode" / "opencode.db"


def child_calls(host: str, parsed: ParsedRun, home: Path, session_log: Path | None = None) -> list[Call] | None:
    """The run's calls with its subagents' calls merged in; None when there is nothing to add (no
    delegation, another host, or no child call in the host's own store). HOME is the run's HOME;
    SESSION_LOG the run's own Codex rollout (`hostrun._rollout`)."""
    if not any(c.kind == "agent" for c in parsed.calls):
        return None
    source: SessionSource | None = None
    if host == "opencode":
        sources, _ = opencode_sessions(home / OPENCODE_DB, None, 1)
        source = sources[0] if sources else None
    elif host == "codex" and session_log is not None:
        sources, _ = discover("codex", home)
        source = next((s for s in sources if len(s.files) > 1 and _same(s.files[0], session_log)), None)
    elif host == "gemini":
        source = gemini_source(home)
    if source is None:
        return None
    run, _ = load_source(source, home, MAX_FILE_BYTES)
    if run is None or all(c.read_by == MAIN_READER for c in run.parsed.calls):
        return None
    return list(run.parsed.calls)


def _same(a: Path, b: Path) -> bool:
    """Whether A and B are the same file (the HOME the launch names may be spelled another way)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def gemini_source(home: Path) -> SessionSource | None:
    """The run's Gemini session with its subagents' chat files: the newest in the run's own HOME (the
    run's HOME holds only its own), None when it has no subagent file."""
    sources, _ = discover("gemini", home, limit=1)
    return sources[0] if sources and len(sources[0].files) > 1 else None
