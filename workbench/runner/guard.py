"""The snapshot guard: did anything outside the run change? Compared after every run of a batch.

A snapshot holds, for every guarded checkout, HEAD and `git status --porcelain --ignored=matching
--untracked-files=all` (so a new IGNORED file shows too; an ignored folder is one entry, stamped with
its direct entries, so its size costs nothing) with a hash of every dirty, non-ignored file (a second
edit of an already-modified file shows as well), and a hash of each live host
config file. The workbench's own writes (records, caches, bytecode) are excluded so they never
trip it. The sandbox is the first layer; this is the check that the sandbox held.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from workbench.core.errors import InputError
from workbench.hosts.base import file_digest
from workbench.runner.fixture import neutral_git

LIVE_CONFIGS = (".claude/settings.json", ".claude/settings.local.json", ".claude/CLAUDE.md", ".claude/skills",
                ".claude/plugins/installed_plugins.json", ".codex/config.toml", ".codex/AGENTS.md", ".codex/skills",
                ".gemini/settings.json", ".gemini/GEMINI.md", ".config/opencode/opencode.json",
                ".config/opencode/opencode.jsonc", ".config/opencode/AGENTS.md", ".agents/skills")
"""Live host config files and skill folders, relative to the real home (login files are not config:
hosts refresh them, and a run records their changes instead)."""

OWN_PARTS = ("__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache")
"""Folder names the workbench process itself writes into (bytecode, tool caches)."""


def _file(path: Path, info: os.stat_result) -> bytes:
    """What identifies one entry without trusting it: a link's target text (never followed), a
    regular file's content (opened O_NOFOLLOW|O_NONBLOCK), any other type by its type alone."""
    if stat.S_ISLNK(info.st_mode):
        return b"link:" + os.readlink(path).encode(errors="surrogateescape")
    if not stat.S_ISREG(info.st_mode):
        return f"type:{stat.S_IFMT(info.st_mode):o}".encode()
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        h = hashlib.sha256()
        while chunk := os.read(fd, 1 << 20):
            h.update(chunk)
        return h.hexdigest().encode()
    finally:
        os.close(fd)


def _stamp(info: os.stat_result) -> bytes:
    """A file's identity without reading it: size, inode, mtime and ctime (ctime cannot be set back)."""
    return f"{info.st_size}:{info.st_ino}:{info.st_mtime_ns}:{info.st_ctime_ns}:{info.st_mode:o}".encode()


def _digest(path: Path, *, by_stat: bool = False) -> str | None:
    """sha256 of a file, or of a folder's entries (names and contents, walked without following
    links), or None when missing. BY_STAT: stat stamps instead of contents (big ignored trees)."""
    h = hashlib.sha256()
    try:
        info = os.lstat(path)
        if not stat.S_ISDIR(info.st_mode):
            h.update(_stamp(info) if by_stat else _file(path, info))
            return h.hexdigest()
        for dirpath, dirnames, filenames in os.walk(path, followlinks=False):
            dirnames.sort()
            for name in sorted(filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]):
                p = Path(dirpath) / name
                entry = os.lstat(p)
                body = _stamp(entry) if by_stat and not stat.S_ISLNK(entry.st_mode) else _file(p, entry)
                h.update(p.relative_to(path).as_posix().encode() + b"\0" + body + b"\0")
        return h.hexdigest()
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"unreadable: {exc.strerror}"


def _shallow(path: Path) -> str | None:
    """An ignored entry's stamp without walking it: the file's, or a folder's own and its direct
    entries' (a `.venv` of 10,000 files costs a handful of stats). A write deep inside an ignored
    folder is not seen here; the sandbox hides every guarded checkout read-only."""
    h = hashlib.sha256()
    try:
        h.update(_stamp(os.lstat(path)))
        if path.is_dir() and not path.is_symlink():
            with os.scandir(path) as it:
                for entry in sorted(it, key=lambda e: e.name):
                    h.update(entry.name.encode(errors="surrogateescape") + b"\0"
                             + _stamp(entry.stat(follow_symlinks=False)) + b"\0")
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


GIT_WATCHED = ("config", "hooks", "refs", "packed-refs", "HEAD", "info", "modules", "worktrees", "commondir")
"""Inside a checkout's git folder: what changes how git behaves there (config: fsmonitor, hooksPath,
aliases; hooks; refs and HEAD), hashed by content."""


def git_state(checkout: Path, own: Sequence[Path] = ()) -> CheckoutState:
    """HEAD, porcelain status and the watched git internals of CHECKOUT, minus the workbench's own
    paths. Every git command runs with the neutral config (a planted fsmonitor or hook never runs)."""
    def git(*args: str) -> str:
        done = neutral_git(checkout, *args, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"guard: git {args[0]} failed in {checkout}: {done.stderr.strip()[:200]}")
        return done.stdout

    head = git("rev-parse", "--verify", "-q", "HEAD").strip() if _has_head(checkout) else "(no commit)"
    root = Path(git("rev-parse", "--show-toplevel").strip())
    entries: dict[str, str | None] = {}
    for item in git("status", "--porcelain", "--ignored=matching", "--untracked-files=all", "-z").split("\0"):
        if len(item) < 4:
            continue
        status, rel = item[:2], item[3:]
        path = root / rel
        if _own(path, own):
            continue
        if status == "!!" and path.is_dir() and any(Path(o).is_relative_to(path) for o in own):
            for dirpath, _dirs, files in os.walk(path):  # the folder holds the workbench's own file: entry by entry
                for name in files:
                    inner = Path(dirpath) / name
                    if not _own(inner, own):
                        entries[f"!! {inner.relative_to(root).as_posix()}"] = _shallow(inner)
            continue
        entries[f"{status} {rel}"] = _shallow(path) if status == "!!" else _digest(path)
    git_dirs = {Path(os.path.realpath(root / git("rev-parse", name).strip())) for name in ("--git-dir", "--git-common-dir")}
    for git_dir in sorted(git_dirs):
        for watched in GIT_WATCHED:
            entries[f"git {git_dir.name}/{watched}"] = _digest(git_dir / watched)
    return CheckoutState(head, entries)


def _has_head(checkout: Path) -> bool:
    return neutral_git(checkout, "rev-parse", "--verify", "-q", "HEAD", check=False).returncode == 0


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
            if not Path(c).is_dir():
                raise InputError(f"not a folder: {c}", field="--guard")
            top = neutral_git(Path(c), "rev-parse", "--show-toplevel", check=False)
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


def checkouts_of(paths: Iterable[Path]) -> list[Path]:
    """The PATHS that lie in a git checkout (the guard compares git state; a plain folder is only
    hidden, not guarded), each once, sorted."""
    return sorted({p for p in paths
                   if p.is_dir() and neutral_git(p, "rev-parse", "--show-toplevel", check=False).returncode == 0})
