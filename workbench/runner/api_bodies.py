"""What reached a real model: the request bodies Claude Code writes when `OTEL_LOG_RAW_API_BODIES`
is `file:<dir>` (the run's own tmp folder, inside the sandbox), else what the host's own transcript
kept of its listing (Claude's `skill_listing`, Codex's rollout). Each is read once for the Skills it
listed: only its hash and the listed Skill entries (name and description as listed) are kept; the
bodies are deleted."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from workbench.core.offered import listed_rows
from workbench.core.sessions.claude import skill_listing
from workbench.hosts.claude import API_BODIES
from workbench.modelstub.anthropic import AnthropicMessages
from workbench.modelstub.wire import plugins_of, texts_of

MAX_BODY = 8 * 1024 * 1024


def offered_entries(run_dir: Path) -> list[dict[str, Any]]:
    """One `offered` entry per request body the host wrote (as the model server logs them: skills,
    plugins, listed rows, plus `source: api-body` and the body's sha256); the bodies are removed. A
    body that is not JSON, or too big, is one entry with no skills."""
    folder = run_dir / API_BODIES
    if not folder.is_dir() or folder.is_symlink():
        return []
    entries: list[dict[str, Any]] = []
    for path in sorted(folder.glob("*.request.json")):
        if not path.is_file() or path.is_symlink() or path.stat().st_size > MAX_BODY:
            continue
        data = path.read_bytes()
        rows: dict[str, str] = {}
        try:
            body = json.loads(data)
        except ValueError:
            body = None
        if isinstance(body, dict):
            rows = listed_rows(AnthropicMessages().parse("/v1/messages", body).texts)
        entries.append({"source": "api-body", "sha256": hashlib.sha256(data).hexdigest(), "scripted": False,
                        "skills": list(rows), "plugins": plugins_of(list(rows)), "rows": rows})
    for path in folder.iterdir():
        if path.is_file() or path.is_symlink():
            path.unlink()
    return entries


MAX_TRANSCRIPT = 64 * 1024 * 1024
TRANSCRIPTS = ((Path("home") / ".claude" / "projects", "*/*.jsonl"),
               (Path("home") / ".codex" / "sessions", "**/rollout-*.jsonl"))
"""Where a run's host keeps what it sent, under the run folder: Claude Code's transcripts (a
`skill_listing` attachment; the sim keeps one too) and Codex's rollouts (the developer message
with its `<skills_instructions>`)."""


def transcript_entries(run_dir: Path) -> list[dict[str, Any]]:
    """One `offered` entry (`source: transcript`) per transcript or rollout of the run that lists
    Skills: the file's sha256 and the Skill entries found; the file itself is left alone."""
    entries: list[dict[str, Any]] = []
    for folder, pattern in TRANSCRIPTS:
        root = run_dir / folder
        if not root.is_dir() or root.is_symlink():
            continue
        for path in sorted(root.glob(pattern)):
            if not path.is_file() or path.is_symlink() or path.stat().st_size > MAX_TRANSCRIPT:
                continue
            data = path.read_bytes()
            rows = _listed_in(data.decode("utf-8", errors="replace"))
            if rows:
                entries.append({"source": "transcript", "sha256": hashlib.sha256(data).hexdigest(),
                                "scripted": False, "skills": list(rows), "plugins": plugins_of(list(rows)),
                                "rows": rows})
    return entries


def _listed_in(text: str) -> dict[str, str]:
    """Skill entries of a transcript: Claude's `skill_listing` attachments, and the listing blocks in
    the message texts a Codex rollout keeps (`response_item` messages)."""
    rows: dict[str, str] = {}
    for line in text.splitlines():
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if not isinstance(obj, dict):
            continue
        listing = skill_listing(obj)
        if listing is not None:
            for name, desc in listing.items():
                rows[name] = rows.get(name) or desc
            continue
        payload = obj.get("payload")
        if isinstance(payload, dict) and payload.get("type") == "message":
            for name, desc in listed_rows(texts_of(payload.get("content"))).items():
                rows.setdefault(name, desc)
    return rows
