"""What reached the model of a routing row: the Skill entries a host listed in the text it sent
(a request body, or the listing a transcript kept), and whether the entry skill's description is
there in full.

One parser for every source: Claude's `- name: description` lines (the Skill tool's reminder in a
request, the `skill_listing` attachment in a transcript), Codex's `<skills_instructions>` block
(`- name: description (file: path)`) and the `<available_skills>` XML of OpenCode and Gemini CLI.
A name listed with its description dropped or clipped did not offer the row: only the whole
description, whitespace aside, counts.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable

CLAUDE_SKILLS_HEADER = "The following skills are available for use with the Skill tool:"
_CLAUDE_SKILL = re.compile(r"^- (?:\*\*(.+?)\*\*|(\S+?):(?:\s|$))")
_CODEX_SKILL = re.compile(r"^- (\S+?): (.*?)\s*\(file: (\S+)\)\s*$")
_AGENT_SKILLS = re.compile(r"<available_skills>(.*?)(?:</available_skills>|$)", re.S)
_AGENT_SKILL = re.compile(r"<skill>\s*<name>([^<]+)</name>(?:\s*<description>(.*?)</description>)?", re.S)


def claude_rows(listing: str) -> dict[str, str]:
    """Name -> listed description of Claude's `- name: description` lines (a transcript's
    `skill_listing` content, or the part of a request after the Skill tool's header)."""
    rows: dict[str, str] = {}
    for line in listing.splitlines():
        line = line.strip()
        found = _CLAUDE_SKILL.match(line)
        if found:
            name = found.group(1) or found.group(2)
            rows.setdefault(name, line[found.end():].lstrip(":").strip())
    return rows


def listed_rows(texts: Iterable[str]) -> dict[str, str]:
    """Name -> description as listed, for every Skill the host listed in TEXTS, in listing order."""
    rows: dict[str, str] = {}
    for text in texts:
        start = text.find(CLAUDE_SKILLS_HEADER)
        if start >= 0:
            for name, desc in claude_rows(text[start + len(CLAUDE_SKILLS_HEADER):].split("</system-reminder>")[0]).items():
                rows.setdefault(name, desc)
        begin = text.find("<skills_instructions>")
        if begin >= 0:
            for line in text[begin:].split("</skills_instructions>")[0].splitlines():
                skill = _CODEX_SKILL.match(line.strip())
                if skill:
                    rows.setdefault(skill.group(1), skill.group(2))
        for block in _AGENT_SKILLS.findall(text):
            for name, desc in _AGENT_SKILL.findall(block):
                rows.setdefault(name.strip(), html.unescape(desc).strip())
    return rows


def _flat(text: str) -> str:
    return " ".join(text.split())


def row_shown(rows: dict[str, str], skill: str, description: str | None) -> str | None:
    """The listed description of SKILL (`plugin:skill` or bare) when it holds DESCRIPTION whole;
    None: not listed, or listed with its description dropped or clipped. No DESCRIPTION to check:
    the listed text whenever the name is listed."""
    want = _flat(description or "")
    for name, listed in rows.items():
        if skill in (name, name.split(":")[-1]) and (not want or want in _flat(html.unescape(listed))):
            return listed
    return None


def skill_description(text: str) -> str | None:
    """The `description` of a SKILL.md's front matter, whitespace collapsed (None: none, or the front
    matter cannot be read: then only the name can be checked)."""
    from workbench.core.errors import InputError
    from workbench.core.markdown import front_matter

    try:
        desc = front_matter(text).data.get("description")
    except InputError:
        return None
    return _flat(desc) if isinstance(desc, str) and desc.strip() else None
