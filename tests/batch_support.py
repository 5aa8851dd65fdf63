"""Helpers for the confinement, guard and batch tests: a throwaway workspace (its own git repo, the
demo plugin, two cases, the base fixture) and a fake "real home" with a secret and a live config."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import git

from workbench.core.cases import load_cases
from workbench.modelstub import Script
from workbench.runner.arms import resolve_ref
from workbench.runner.batch import BatchConfig
from workbench.runner.confine import Confinement
from workbench.runner.guard import Guard

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


WRITE_SCRIPT = {"steps": [{"say": "reading the procedure", "calls": [{"read": "{plugin}/skills/ops/workflows/docs.md"}]},
                          {"calls": [{"write": {"path": "{repo}/TESTING.md", "content": "run pytest\n"}}]},
                          {"say": "done"}]}
"""A scripted model that reads the docs procedure, writes one file in the repo and ends (any case)."""


def batch_cli(w: World, hosts: str, *extra: str, env: dict[str, str] | None = None,
              runs: int = 3) -> subprocess.Popen[bytes]:
    """`workbench batch` as a subprocess in the workspace: every case, arms A and B, 2 jobs."""
    argv = [sys.executable, "-m", "workbench", "batch", "--cases", "all", "--hosts", hosts, "--arms",
            "A=HEAD~1,B=HEAD", "--runs", str(runs), "--jobs", "2", "--record", str(w.record), "--home", str(w.home),
            *extra]
    full = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.Popen(argv, cwd=w.ws, env=full, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def config(w: World, *, confined: bool = True, runs: int = 1, jobs: int = 1, script: dict[str, Any] | None = None,
           hosts: tuple[str, ...] = ("sim",), cases: int = 2, **kw: Any) -> BatchConfig:
    arms = [resolve_ref(w.plugin, "A", "HEAD~1"), resolve_ref(w.plugin, "B", "HEAD")]
    guard = Guard.for_home(w.home, [w.ws], own=[w.record])
    return BatchConfig(cases=load_cases(w.ws / "cases")[:cases], hosts=list(hosts), arms=arms, runs=runs,
                       record=w.record, jobs=jobs, guard=guard, fixture=w.ws / "fixtures" / "base",
                       confinement=Confinement(w.home, (w.ws,)) if confined else None, real_home=w.home,
                       script=Script.model_validate(script) if script else None, timeout=120, **kw)


WEAK = "039bfee"
"""The demo plugin's first wording (records/README.md): "When ready to ship" and a procedure joined by "and"."""
WEAK_CASES = ("release-ship", "incident-outage")
"""The demo cases of the two rows the weak wording words badly."""


def make_demo_arms_world(tmp: Path, cases: tuple[str, ...] = WEAK_CASES) -> World:
    """A workspace whose plugin is committed three times: the weak wording (HEAD~2), the shipped
    wording (HEAD~1) and the shipped wording again with only a file outside the plugin changed (HEAD):
    base vs base is HEAD~1 vs HEAD, two commits whose plugins are identical."""
    ws = tmp / "ws"
    (ws / "cases").mkdir(parents=True)
    shutil.copy(ROOT / "workbench.toml", ws / "workbench.toml")
    shutil.copytree(ROOT / "plugin", ws / "plugin")
    shutil.copytree(ROOT / "fixtures", ws / "fixtures")
    for case in cases:
        shutil.copy(ROOT / "cases" / f"{case}.toml", ws / "cases" / f"{case}.toml")
    (ws / ".gitignore").write_text("*.log\nrecords/\n", encoding="utf-8")
    skill = ws / "plugin" / "skills" / "ops" / "SKILL.md"
    shipped = skill.read_text(encoding="utf-8")
    weak = git.Repo(ROOT).git.show(f"{WEAK}:plugin/skills/ops/SKILL.md")
    skill.write_text(weak + "\n", encoding="utf-8")
    git.Repo.init(ws, initial_branch="main")
    commit_all(ws, "weak wording")
    skill.write_text(shipped, encoding="utf-8")
    commit_all(ws, "shipped wording")
    (ws / "notes.txt").write_text("outside the plugin\n", encoding="utf-8")
    commit_all(ws, "base again")
    home = tmp / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text("{}\n", encoding="utf-8")
    return World(ws, home, ws / "records" / "batch.jsonl")
