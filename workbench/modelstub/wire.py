"""What the four wire APIs share: the parsed request, the answer, SSE framing and skill listings."""

from __future__ import annotations

import json
import re
import uuid
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from workbench.core.offered import listed_rows
from workbench.modelstub.turns import Turn

INPUT_TOKENS = 120
OUTPUT_TOKENS = 20
"""Fixed usage numbers in every answer: hosts and scorers expect usage, its size does not matter."""

_CODEX_SKILL = re.compile(r"^- (\S+?): .*\(file: (\S+)\)\s*$")
_CODEX_ROOT = re.compile(r"^- `(\w+)` = `([^`]+)`")


@dataclass
class Request:
    """A host's request as the server needs it, whatever the wire API."""

    body: dict[str, Any]
    model: str
    tools: dict[str, str]
    """Offered tool name -> its kind on the wire (function, custom, ...)."""
    texts: list[str]
    """System, developer and user texts, searched for skill listings."""
    model_turns: int
    host: str | None = None
    """The host that sent it, when the wire is shared (None: the wire's own host)."""
    stream: bool = True
    options: dict[str, Any] = field(default_factory=dict)
    opening: list[str] = field(default_factory=list)
    """The user texts before the first model turn: a subagent's history opens with its delegated prompt."""

    @property
    def scripted(self) -> bool:
        """Requests that offer tools follow the script; others (titles, routers) get canned text."""
        return bool(self.tools)


@dataclass
class Answer:
    """An HTTP answer: a status, a content type and the body in pieces (SSE events when streamed)."""

    chunks: list[bytes]
    stream: bool = True
    status: int = 200
    content_type: str = "text/event-stream"


class WireAPI(ABC):
    """One wire API: parse a request and render a scripted turn or a canned answer in its shape."""

    name: str
    host: str
    read_before_edit = False
    deferred_agents = False
    """The host offers its agent tools deferred and runs subagents in the background (Codex):
    delegating steps get the extra turns of `turns.plan_turns`."""

    @abstractmethod
    def parse(self, path: str, body: dict[str, Any]) -> Request:
        """Pull model, offered tools, prompt texts and the count of model turns from a request."""

    @abstractmethod
    def answer(self, turn: Turn | None, request: Request, context: dict[str, str]) -> Answer:
        """The answer for a scripted turn, or the canned answer when `turn` is None."""

    @abstractmethod
    def error(self, status: int) -> bytes:
        """A JSON error body in the API's shape for an injected HTTP fault."""


def sse(data: Any, event: str | None = None) -> bytes:
    """One server-sent event; `event:` lines only for the APIs whose clients dispatch on them."""
    head = f"event: {event}\n" if event else ""
    payload = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
    return f"{head}data: {payload}\n\n".encode()


def json_answer(obj: Any, status: int = 200) -> Answer:
    return Answer([json.dumps(obj).encode()], stream=False, status=status, content_type="application/json")


def new_id(prefix: str) -> str:
    return prefix + uuid.uuid4().hex[:24]


def halves(text: str) -> list[str]:
    """Split a string in two deltas so clients must join streamed pieces (empty text: one piece)."""
    cut = len(text) // 2
    return [text[:cut], text[cut:]] if cut else [text]


def listed_skills(texts: list[str]) -> list[str]:
    """Skill names the host listed to the model: Claude's reminder list, Codex's skills block, or the
    `<available_skills><skill><name>` block OpenCode and Gemini CLI put in their system prompt."""
    return list(listed_rows(texts))


def codex_skill_files(text: str) -> dict[str, str]:
    """Skill name -> SKILL.md path from a Codex `<skills_instructions>` block, roots expanded."""
    start = text.find("<skills_instructions>")
    if start < 0:
        return {}
    roots: dict[str, str] = {}
    files: dict[str, str] = {}
    for line in text[start:].split("</skills_instructions>")[0].splitlines():
        root = _CODEX_ROOT.match(line.strip())
        if root:
            roots[root.group(1)] = root.group(2)
            continue
        skill = _CODEX_SKILL.match(line.strip())
        if skill:
            head, _, rest = skill.group(2).partition("/")
            files[skill.group(1)] = f"{roots[head]}/{rest}" if head in roots and rest else skill.group(2)
    return files


def plugins_of(skills: list[str]) -> list[str]:
    """Plugins named by their namespaced skills (`plugin:skill`)."""
    return list(dict.fromkeys(name.split(":", 1)[0] for name in skills if ":" in name))


def opening_texts(messages: list[dict[str, Any]], role: str, model_role: str, key: str = "content") -> list[str]:
    """The texts of the ROLE messages before the first MODEL_ROLE one."""
    out: list[str] = []
    for message in messages:
        if message.get("role") == model_role:
            break
        if message.get("role") == role:
            out.extend(texts_of(message.get(key)))
    return out


def texts_of(content: Any) -> list[str]:
    """The text pieces of a message content: a string or a list of typed parts."""
    if isinstance(content, str):
        return [content]
    out: list[str] = []
    if isinstance(content, list):
        for part in content:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                out.append(part["text"])
            elif isinstance(part, dict) and "content" in part:
                out.extend(texts_of(part["content"]))
    return out
