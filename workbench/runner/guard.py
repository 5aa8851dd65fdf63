"""The snapshot guard: did anything outside the run change? Compared after every run of a batch.

A snapshot holds, for every guarded checkout, HEAD and `git status --porcelain --ignored=matching
--untracked-files=all` with a hash of every dirty, non-ignored file (a second edit of an
already-modified file shows as well), stamps of the ignored entries that cost the same whatever they
hold (`_ignored`: a folder by its own lstat, which changes when an entry is added, removed or renamed
directly in it; a virtual environment's startup hooks by content), and a hash of each live host
config file. The workbench's own writes (records, caches, bytecode) are excluded so they never
trip it. The sandbox is the first layer; this is the check that the sandbox held.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
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


def _own_stamp(path: Path) -> str | None:
    """An ignored entry's stamp without reading or walking it: its own lstat (a folder's mtime and
    ctime change when an entry is added, removed or renamed directly in it)."""
    try:
        return hashlib.sha256(_stamp(os.lstat(path))).hexdigest()
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"unreadable: {exc.strerror}"


FEW = 32
"""Ignored files in one folder stamped one by one; a folder with more is stamped by its own lstat."""


def _venv_spots(venv: Path) -> dict[str, str | None]:
    """What in a Python virtual environment changes what a run's Python does, stamped without a walk:
    `pyvenv.cfg` by content, `bin` by its own lstat, and every `site-packages` folder by its own
    lstat plus the content of its startup hooks (`*.pth`, `sitecustomize.py`, `usercustomize.py`)."""
    out = {"pyvenv.cfg": _digest(venv / "pyvenv.cfg"), "bin": _own_stamp(venv / "bin")}
    for site in sorted(s for s in venv.glob("lib*/python*/site-packages") if not s.parent.parent.is_symlink()):
        rel = site.relative_to(venv).as_posix()
        out[rel] = _own_stamp(site)
        with contextlib.suppress(OSError), os.scandir(site) as it:
            for entry in it:
                if entry.name.endswith(".pth") or entry.name in ("sitecustomize.py", "usercustomize.py"):
                    out[f"{rel}/{entry.name}"] = _digest(Path(entry.path))
    return out


def _ignored(root: Path, rels: Sequence[str], own: Sequence[str],
             skip: Sequence[str] = ()) -> tuple[dict[str, str | None], list[str]]:
    """Stamps of git's ignored entries (RELS, paths under ROOT; a folder ends in `/`) at a cost that
    does not grow with what they hold: an ignored folder by its own lstat, ignored files one by one
    up to FEW per folder (more: the folder's own lstat), and each virtual environment among them by
    `_venv_spots`. Whatever holds one of the workbench's OWN paths (relative to ROOT) is stamped file
    by file, minus those paths. Strings, not Paths: git may list 10,000 entries. SKIP: folders git
    was told not to walk, each stamped as a group. Returns the stamps and the folders stamped as groups."""
    out: dict[str, str | None] = {}
    folders: dict[str, list[str]] = {}
    grouped = list(skip)
    for folder in skip:
        out[f"!! {folder}/*"] = _own_stamp(root / folder)
        folders[folder] = []
    for rel in rels:
        if rel.endswith("/") and any(o.startswith(rel) for o in own):
            for dirpath, _dirs, files in os.walk(root / rel):  # the folder holds the workbench's own file
                for name in files:
                    inner = (Path(dirpath) / name).relative_to(root).as_posix()
                    if not _own_rel(inner, own):
                        out[f"!! {inner}"] = _own_stamp(root / inner)
        elif rel.endswith("/"):
            out[f"!! {rel}"] = _own_stamp(root / rel)
            folders.setdefault(rel.rstrip("/"), [])
        else:
            folders.setdefault(rel.rpartition("/")[0], []).append(rel)
    for folder, files in folders.items():
        if len(files) > FEW and folder and not any(o.startswith(folder + "/") for o in own):
            out[f"!! {folder}/*"] = _own_stamp(root / folder)
            grouped.append(folder)
        else:
            out.update((f"!! {f}", _own_stamp(root / f)) for f in files)
    checked: set[str] = set()
    for folder in folders:
        parts = folder.split("/") if folder else []
        for n in range(len(parts), 0, -1):
            d = "/".join(parts[:n])
            if d in checked:
                break
            checked.add(d)
            if (root / d / "pyvenv.cfg").is_file():
                out.update((f"venv {d}/{k}", v) for k, v in _venv_spots(root / d).items())
    return out, grouped


_OWN_PART = re.compile("(?:^|/)(?:" + "|".join(map(re.escape, OWN_PARTS)) + ")(?:/|$)")


def _own_rel(rel: str, own: Sequence[str]) -> bool:
    """Whether REL (a path under a checkout) is the workbench's own: a cache folder, or in OWN."""
    return _OWN_PART.search(rel) is not None or any(rel == o or rel.startswith(o + "/") for o in own)


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
    skippable: tuple[str, ...] = ()
    """Folders stamped as a group that hold nothing else git reports or tracks: a later snapshot may
    tell git not to walk them (their stamp still shows an entry added, removed or renamed in them)."""


@dataclass(frozen=True)
class Snapshot:
    """Every checkout's state and every live config file's hash."""

    checkouts: dict[str, CheckoutState]
    configs: dict[str, str | None]


GIT_WATCHED = ("config", "hooks", "refs", "packed-refs", "HEAD", "info", "modules", "worktrees", "commondir")
"""Inside a checkout's git folder: what changes how git behaves there (config: fsmonitor, hooksPath,
aliases; hooks; refs and HEAD), hashed by content."""


def git_state(checkout: Path, own: Sequence[Path] = (), skip: Sequence[str] = ()) -> CheckoutState:
    """HEAD, porcelain status and the watched git internals of CHECKOUT, minus the workbench's own
    paths; git does not walk the SKIP folders (a previous state's `skippable`). Every git command runs
    with the neutral config (a planted fsmonitor or hook never runs)."""
    def git(*args: str) -> str:
        done = neutral_git(checkout, *args, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"guard: git {args[0]} failed in {checkout}: {done.stderr.strip()[:200]}")
        return done.stdout

    found = neutral_git(checkout, "rev-parse", "--verify", "-q", "HEAD", check=False)
    head = found.stdout.strip() if found.returncode == 0 else "(no commit)"
    top, dot_git, common_dir = git("rev-parse", "--show-toplevel", "--git-dir", "--git-common-dir").splitlines()
    root = Path(top)
    entries: dict[str, str | None] = {}
    ignored: list[str] = []
    own_rels = [Path(o).relative_to(root).as_posix() for o in own if Path(o).is_relative_to(root)]
    others: list[str] = []
    where = ["--", ":/", *(f":(top,exclude,literal){f}" for f in skip)] if skip else []
    for item in git("status", "--porcelain", "--ignored=matching", "--untracked-files=all", "-z", *where).split("\0"):
        if len(item) < 4:
            continue
        status, rel = item[:2], item[3:]
        if _own_rel(rel.rstrip("/"), own_rels):
            continue
        if status == "!!":
            ignored.append(rel)
        else:
            others.append(rel)
            entries[f"{status} {rel}"] = _digest(root / rel)
    stamps, grouped = _ignored(root, ignored, own_rels, skip)
    entries.update(stamps)
    skippable = tuple(skip) or _skippable(checkout, grouped, ignored, others, own_rels)
    git_dirs = {Path(os.path.realpath(checkout / d)) for d in (dot_git, common_dir)}
    for git_dir in sorted(git_dirs):
        for watched in GIT_WATCHED:
            entries[f"git {git_dir.name}/{watched}"] = _digest(git_dir / watched)
    return CheckoutState(head, entries, skippable)


def _skippable(checkout: Path, grouped: Sequence[str], ignored: Sequence[str], others: Sequence[str],
               own: Sequence[str]) -> tuple[str, ...]:
    """The GROUPED folders that hold only their direct ignored files: no other entry git reported
    (OTHERS, or an ignored one deeper down), none of the workbench's OWN paths, no tracked file."""
    busy: set[str] = set()  # folders holding something other than direct ignored files

    def mark(folder: str) -> None:
        while folder and folder not in busy:
            busy.add(folder)
            folder = folder.rpartition("/")[0]
    parents = {r.rpartition("/")[0] for r in ignored if not r.endswith("/")}
    for parent in parents:
        mark(parent.rpartition("/")[0])
    for rel in (*others, *own, *(r for r in ignored if r.endswith("/"))):
        mark(rel.rstrip("/").rpartition("/")[0])
    out = [f for f in grouped if f not in busy]
    if out:
        tracked = neutral_git(checkout, "ls-files", "-z", "--", *(f":(top,literal){f}" for f in out), check=False)
        if tracked.returncode != 0:
            return ()
        held = {f for path in tracked.stdout.split("\0") for f in out if path.startswith(f + "/")}
        out = [f for f in out if f not in held]
    return tuple(sorted(out))


@dataclass
class Guard:
    """Guarded checkouts, live config files, and the workbench's own paths to ignore."""

    checkouts: list[Path] = field(default_factory=list)
    configs: list[Path] = field(default_factory=list)
    own: list[Path] = field(default_factory=list)
    skip: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Per checkout, the folders its first snapshot found skippable: later snapshots do not walk them."""

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
        states = {}
        for c in self.checkouts:
            states[str(c)] = git_state(c, self.own, self.skip.get(str(c), ()))
            self.skip.setdefault(str(c), states[str(c)].skippable)
        return Snapshot(states, {str(p): _digest(p) for p in self.configs})

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
