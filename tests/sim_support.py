"""Helpers for the sim host tests: a throwaway git repo, an outside folder, and one in-process sim run."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.core.events import ParsedRun
from workbench.core.parsers import parse_lines
from workbench.sim.__main__ import main

PLUGIN = Path(__file__).resolve().parent.parent / "plugin"
GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@localhost", "-c", "init.defaultBranch=main"]


@dataclass
class Dirs:
    """The folders of one sim test: repo (a git repo), plugin (a copy of the demo), home, outside."""

    root: Path
    repo: Path
    plugin: Path
    home: Path
    outside: Path


def make_dirs(root: Path) -> Dirs:
    """A committed repo with notes.txt, README.md and docs/proc.md; a plugin copy; home; outside/proc.md."""
    dirs = Dirs(root, root / "repo", root / "plugin", root / "home", root / "outside")
    dirs.repo.mkdir()
    (dirs.repo / "notes.txt").write_text("notes\nstatus: todo\n")
    (dirs.repo / "README.md").write_text("# Demo repo\nHello from README.\n")
    (dirs.repo / "docs").mkdir()
    (dirs.repo / "docs" / "proc.md").write_text("# Procedure\n1. Do it right.\n")
    subprocess.run([*GIT, "init", "-q"], cwd=dirs.repo, check=True)
    subprocess.run([*GIT, "add", "-A"], cwd=dirs.repo, check=True)
    subprocess.run([*GIT, "commit", "-qm", "fixture"], cwd=dirs.repo, check=True)
    shutil.copytree(PLUGIN, dirs.plugin)
    dirs.home.mkdir()
    dirs.outside.mkdir()
    (dirs.outside / "proc.md").write_text("# Outside procedure\n")
    return dirs


@dataclass
class SimRun:
    """One sim run: exit code, the raw stream lines and what the sim parser made of them."""

    code: int
    lines: list[str]
    parsed: ParsedRun

    def events(self) -> list[dict[str, Any]]:
        """The stream's JSON objects."""
        return [json.loads(line) for line in self.lines]


def run_sim(dirs: Dirs, *args: str, prompt: str = "Do the task") -> SimRun:
    """`python -m workbench.sim` in-process with the test folders; stdout parsed with make_parser("sim")."""
    out = io.StringIO()
    argv = ["--prompt", prompt, "--repo", str(dirs.repo), "--plugin", str(dirs.plugin), "--home", str(dirs.home),
            "--outside", str(dirs.outside), "--timeout", "60", *args]
    with contextlib.redirect_stdout(out):
        code = main(argv)
    lines = out.getvalue().splitlines()
    return SimRun(code, lines, parse_lines("sim", lines))


def script_file(dirs: Dirs, steps: list[Any], name: str = "script.json") -> str:
    """Write a host-neutral script next to the repo and return its path."""
    path = dirs.root / name
    path.write_text(json.dumps({"steps": steps}))
    return str(path)
