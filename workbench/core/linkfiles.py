"""Whether a path a Skill names is a file the plugin ships, one it could never ship, or a missing one.

A link exists when its file does, compared case-sensitively, or, for a templated path
(`references/{language}.md`, `<name>.md`, `guides/*.md`), when any file matches it.

A path that matches nothing is DANGLING only when the plugin could have shipped it. These name
what the agent will find or make in the user's own project instead (`unshipped`):
- a template or glob: `<repo>/scratch/<topic>/notes.md`, `plans/{plan-id}.md`, `$LEDGER_DIR/x.md`,
  `YYYY-MM-DD-<title>.md`, `NNNN-title.md`, `docs/specs/*.md`, `**/CHANGELOG.md`, `.../skills/x.md`;
- a file of the project the agent works in: a bare project-file name (`CLAUDE.md`, `AGENTS.md`, a
  hidden `.claude.local.md`), one
  under a host's project folder (`.claude/rules/x.md`,
  `repos/.claude/x.md`, `.github/x.md`), in the home folder (`~/…`) or in a scratch folder (`tmp/…`).
A path that climbs out of its folder (`../../.claude/rules/x.md`) is the author's own link and stays
DANGLING when broken.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

PROJECT_FILES = frozenset({"readme.md", "claude.md", "claude.local.md", "agents.md", "gemini.md", "changelog.md",
                           "contributing.md", "license.md", "security.md", "code_of_conduct.md"})
"""Names a Skill uses for the user's project files; bare, they never name the plugin's own file."""
TEMPLATE = re.compile(r"\{[^}/]*\}|<[^>/]*>|\*+")
"""The parts of a templated path that stand for any name."""
_PLACEHOLDER = re.compile(r"[{}<>*?$]|(?<![A-Za-z])(?:YYYY|YY|MM|DD|HH|N{2,}|X{3,})(?![A-Za-z])|(?:^|/)\.{3}/")
"""What stands for a name the agent fills in: braces, a glob, a date or number mask, an elided `.../`."""
_PROJECT_FOLDERS = frozenset({".claude", ".codex", ".gemini", ".opencode", ".grok", ".github", ".cursor", ".vscode"})
_SCRATCH = frozenset({"~", "tmp", ".tmp"})


def exists_exactly(path: Path) -> bool:
    """PATH is a file whose every component matches case-sensitively (also on case-folding disks)."""
    if not path.is_file():
        return False
    parent = path.parent
    return path.name in {p.name for p in parent.iterdir()} if parent.is_dir() else False


def json_object(path: Path) -> dict[str, Any]:
    """The JSON object in the file at PATH; {} when it is missing, unreadable, not JSON or not an object."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def str_items(value: object) -> list[str]:
    """A manifest value that is one path or a list of them (`"skills": "./skills"`, `["./a", "./b"]`) as
    its strings; anything else is none."""
    items = value if isinstance(value, list) else [value]
    return [item for item in items if isinstance(item, str)]


def skill_folders(file: Path) -> list[str]:
    """The plainly named folders (`references`, `assets`; not `.cache`) beside FILE when FILE's folder is
    a Skill's (holds a SKILL.md), else none."""
    folder = file.parent
    if not (folder / "SKILL.md").is_file():
        return []
    return sorted(d.name for d in folder.iterdir() if d.is_dir() and _PLAIN_FOLDER.fullmatch(d.name))


_PLAIN_FOLDER = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")


def link_exists(target: str, path: Path) -> bool:
    """The linked file exists; a templated path (`{language}/x.md`, `<name>.md`) exists when any file matches."""
    if TEMPLATE.search(target):
        pattern = glob_pattern(path.as_posix())
        root = Path(pattern.split("*", 1)[0]).parent
        return root.is_dir() and any(root.glob(pattern[len(root.as_posix()) + 1:]))
    return exists_exactly(path)


def glob_pattern(templated: str) -> str:
    """TEMPLATED as a glob: each placeholder stands for any name within its folder (`*<key>*.md` is
    `*.md`); only a whole `**` folder stays recursive."""
    return "/".join(part if part == "**" else _STARS.sub("*", TEMPLATE.sub("*", part)) for part in templated.split("/"))


_STARS = re.compile(r"\*{2,}")


_STUB = re.compile(r"(?:\.{1,2}/)*[\w.@+-]+(?:/[\w.@+-]+)+\n?")
STUB_BYTES = 512
"""Longest file read as a possible symlink stub: a path, never a procedure."""


def symlink_stub(path: Path) -> str | None:
    """The path a file holds when that path is all it holds (`../../references/x.md`): a symlink git
    stored as a text file (committed or checked out with `core.symlinks` off). A host reads the path,
    not the procedure it names. None for any other file, or one that cannot be read."""
    try:
        if not path.is_file() or path.is_symlink() or path.stat().st_size > STUB_BYTES:
            return None
        text = path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return text.strip() if _STUB.fullmatch(text) else None


def stub_note(path: Path, target: str) -> str:
    """Why the stub at PATH holding TARGET is no procedure, and what to do about it."""
    fix = ("restore the symlink, or copy the file it names" if (path.parent / target).is_file()
           else "and that path names no file either")
    return f"holds only the path `{target}`: a symlink stored as text, so a host reads the path, not the procedure ({fix})"


def is_project_file(target: str) -> bool:
    """TARGET is a bare project-file name (`CLAUDE.md`, `./README.md`): the user's file, never the plugin's."""
    parts = target.split("#")[0].split("/")
    folders = parts[1:] if parts[0] == "." else parts
    return len(folders) == 1 and folders[0].lower().removeprefix(".") in PROJECT_FILES  # `.claude.local.md` too


def unshipped(target: str) -> str:
    """Why TARGET, a path that matches no file, names something no plugin ships ('' when it may be one)."""
    parts = target.split("#")[0].split("/")
    if "*" in target or "?" in target:
        return f"a glob (`{target}`) over the user's project, not a procedure"
    if _PLACEHOLDER.search(target):
        return f"a template (`{target}`): a name the agent fills in, not a procedure"
    folders = parts[1:] if parts[0] == "." else parts
    if is_project_file(target):
        return f"the user's project file `{target}` (as `CLAUDE.md`, `AGENTS.md`), not a procedure the plugin ships"
    if ".." not in folders and (folders[0] in _SCRATCH or any(p in _PROJECT_FOLDERS for p in folders[:-1])):
        return f"a file of the user's project (`{target}`), not a procedure the plugin ships"
    return ""
