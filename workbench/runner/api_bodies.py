"""What reached a real model: the request bodies Claude Code writes when `OTEL_LOG_RAW_API_BODIES`
is `file:<dir>` (the run's own tmp folder, inside the sandbox). Each body is read once for the skills
it listed, then deleted: only its hash and the listed names are kept."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from workbench.hosts.claude import API_BODIES
from workbench.modelstub.anthropic import AnthropicMessages
from workbench.modelstub.wire import listed_skills, plugins_of

MAX_BODY = 8 * 1024 * 1024


def offered_entries(run_dir: Path) -> list[dict[str, Any]]:
    """One `offered` entry per request body the host wrote (as the model server logs them: skills,
    plugins, plus `source: api-body` and the body's sha256); the bodies are removed. A body that is not JSON, or too
    big, is one entry with no skills."""
    folder = run_dir / API_BODIES
    if not folder.is_dir() or folder.is_symlink():
        return []
    entries: list[dict[str, Any]] = []
    for path in sorted(folder.glob("*.request.json")):
        if not path.is_file() or path.is_symlink() or path.stat().st_size > MAX_BODY:
            continue
        data = path.read_bytes()
        skills: list[str] = []
        try:
            body = json.loads(data)
        except ValueError:
            body = None
        if isinstance(body, dict):
            skills = listed_skills(AnthropicMessages().parse("/v1/messages", body).texts)
        entries.append({"source": "api-body", "sha256": hashlib.sha256(data).hexdigest(), "scripted": False,
                        "skills": skills, "plugins": plugins_of(skills)})
    for path in folder.iterdir():
        if path.is_file() or path.is_symlink():
            path.unlink()
    return entries
