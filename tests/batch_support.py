"""Helpers for the confinement, guard and batch tests: a throwaway workspace (its own git repo, the
demo plugin, two cases, the base fixture) and a fake "real home" with a secret and a live config."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import git

ROOT = Path(__file__).resolve().parent.parent
SECRET = "TOPSECRET-4f1c9"
CASES = ("docs-readme-section", "negative-explain-app")


@dataclass
class World:
    """A workspace checkout, a fake real home and the records file of one test."""

    ws: Path
    home: Path
    record: Path

    @property
    def plugin(self) -> Path:
        return self.ws / "plugin"


def commit_all(repo_dir: Path, message: str) -> str:
    repo = git.Repo(repo_dir)
    repo.git.add(A=True)
    actor = git.Actor("t", "t@localhost")
    return repo.index.commit(message, author=actor, committer=actor).hexsha


def make_world(tmp: Path) -> World:
    """The workspace (committed twice: arm B's SKILL.md differs) and the fake home."""
    ws = tmp / "ws"
    (ws / "cases").mkdir(parents=True)
    shutil.copy(ROOT / "workbench.toml", ws / "workbench.toml")
    shutil.copytree(ROOT / "plugin", ws / "plugin")
    shutil.copytree(ROOT / "fixtures", ws / "fixtures")
    for case in CASES:
        shutil.copy(ROOT / "cases" / f"{case}.toml", ws / "cases" / f"{case}.toml")
    (ws / ".gitignore").write_text("*.log\nrecords/\n", encoding="utf-8")
    (ws / "tracked.txt").write_text("tracked\n", encoding="utf-8")
    git.Repo.init(ws, initial_branch="main")
    commit_all(ws, "arm A")
    skill = ws / "plugin" / "skills" / "ops" / "SKILL.md"
    skill.write_text(skill.read_text(encoding="utf-8") + "\n<!-- arm B -->\n", encoding="utf-8")
    commit_all(ws, "arm B")
    home = tmp / "home"
    (home / ".claude").mkdir(parents=True)
    (home / "secret.txt").write_text(SECRET + "\n", encoding="utf-8")
    (home / ".claude" / "settings.json").write_text("{}\n", encoding="utf-8")
    return World(ws, home, ws / "records" / "batch.jsonl")
