"""The snapshot guard: did anything outside the run change? Compared after every run of a batch.

A snapshot holds, for every guarded checkout, HEAD and `git status --porcelain --ignored
--untracked-files=all` (so a new IGNORED file shows too) with a hash of every dirty, non-ignored
file (a second edit of an already-modified file shows as well), and a hash of each live host
config file. The workbench's own writes (records, caches, bytecode) are excluded so they never
trip it. The sandbox is the first layer; this is the check that the sandbox held.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from workbench.hosts.base import file_digest

LIVE_CONFIGS = (".claude/settings.json", ".claude/settings.local.json", ".claude/CLAUDE.md", ".claude/skills",
                ".claude/plugins/installed_plugins.json", ".codex/config.toml", ".codex/AGENTS.md", ".codex/skills",
                ".gemini/settings.json", ".gemini/GEMINI.md", ".config/opencode/opencode.json",
                ".config/opencode/opencode.jsonc", ".config/opencode/AGENTS.md", ".agents/skills")
"""Live host config files and skill folders, relative to the real home (login files are not config:
hosts refresh them, and a run records their changes instead)."""

OWN_PARTS = ("__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache")
"""Folder names the workbench process itself writes into (bytecode, tool caches)."""


def _digest(path: Path) -> str | None:
    """sha256 of a file, of a folder's file names and contents, or None when missing."""
    h = hashlib.sha256()
    try:
        if path.is_dir():
            for p in sorted(path.rglob("*")):
                if p.is_file():
                    h.update(p.relative_to(path).as_posix().encode() + b"\0" + p.read_bytes())
            return h.hexdigest()
        h.update(path.read_bytes())
        return h.hexdigest()
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"unreadable: {exc.strerror}"


def login_files_changed(before: Mapping[str, str | None]) -> list[str]:
    """The login files whose hash differs from BEFORE (written, replaced or removed during the run).
    A changed login makes the run invalid and stops the batch: the sandbox binds them read-only, so
    a change means something got past it (or ran unconfined)."""
    return sorted(name for name, digest in before.items() if file_digest(Path(name)) != digest)


@dataclass(frozen=True)
class CheckoutState:
    """HEAD and the status of one checkout (entry -> hash of the file, None for ignored ones)."""

    head: str
    entries: dict[str, str | None]


@dataclass(frozen=True)
class Snapshot:
    """Every checkout's state and every live config file's hash."""

    checkouts: dict[str, CheckoutState]
    configs: dict[str, str | None]


def git_state(checkout: Path, own: Sequence[Path] = ()) -> CheckoutState:
    """HEAD and porcelain status of CHECKOUT, minus the workbench's own paths."""
    def git(*args: str) -> str:
        done = subprocess.run(["git", "-C", str(checkout), "-c", "core.quotepath=off", *args],
                              capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"guard: git {args[0]} failed in {checkout}: {done.stderr.strip()[:200]}")
        return done.stdout

    head = git("rev-parse", "--verify", "-q", "HEAD").strip() if _has_head(checkout) else "(no commit)"
    root = Path(git("rev-parse", "--show-toplevel").strip())
    entries: dict[str, str | None] = {}
    for item in git("status", "--porcelain", "--ignored", "--untracked-files=all", "-z").split("\0"):
        if len(item) < 4:
            continue
        status, rel = item[:2], item[3:]
        path = root / rel
        if _own(path, own):
            continue
        entries[f"{status} {rel}"] = None if status == "!!" else _digest(path)
    return CheckoutState(head, entries)


def _has_head(checkout: Path) -> bool:
    return subprocess.run(["git", "-C", str(checkout), "rev-parse", "--verify", "-q", "HEAD"],
                          capture_output=True, check=False).returncode == 0


def _own(path: Path, own: Sequence[Path]) -> bool:
    if any(part in OWN_PARTS for part in path.parts):
        return True
    return any(path == o or path.is_relative_to(o) for o in own)


@dataclass
class Guard:
    """Guarded checkouts, live config files, and the workbench's own paths to ignore."""

    checkouts: list[Path] = field(default_factory=list)
    configs: list[Path] = field(default_factory=list)
    own: list[Path] = field(default_factory=list)

    @classmethod
    def for_home(cls, home: Path, checkouts: Iterable[Path], own: Iterable[Path] = ()) -> Guard:
        """A guard over CHECKOUTS and the live host configs under HOME."""
        roots: list[Path] = []
        for c in checkouts:
            top = subprocess.run(["git", "-C", str(c), "rev-parse", "--show-toplevel"], capture_output=True,
                                 text=True, check=False)
            root = Path(top.stdout.strip()) if top.returncode == 0 else Path(os.path.realpath(c))
            if root not in roots:
                roots.append(root)
        return cls(roots, [home / rel for rel in LIVE_CONFIGS], [Path(os.path.realpath(p)) for p in own])

    def snapshot(self) -> Snapshot:
        return Snapshot({str(c): git_state(c, self.own) for c in self.checkouts},
                        {str(p): _digest(p) for p in self.configs})

    def changes(self, before: Snapshot) -> list[str]:
        """What differs from BEFORE, one line each (empty: nothing escaped)."""
        now = self.snapshot()
        out: list[str] = []
        for name, old in before.checkouts.items():
            new = now.checkouts[name]
            if new.head != old.head:
                out.append(f"{name}: HEAD moved {old.head[:12]} -> {new.head[:12]}")
            for entry in sorted(set(old.entries) | set(new.entries)):
                if entry not in old.entries:
                    out.append(f"{name}: new {entry}")
                elif entry not in new.entries:
                    out.append(f"{name}: gone {entry}")
                elif old.entries[entry] != new.entries[entry]:
                    out.append(f"{name}: changed {entry}")
        for name, digest in before.configs.items():
            if now.configs[name] != digest:
                out.append(f"live config changed: {name}")
        return out
