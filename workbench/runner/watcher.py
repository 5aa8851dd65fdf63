"""Watch the throwaway repo during one run: every file change in its tree and every new commit, merge,
tag or branch, with the monotonic time it was seen (`workbench.core.effects.Effect`).

It runs outside any sandbox: bubblewrap binds the repo at its own path, so the kernel reports the
sandboxed host's writes on the same inodes. The library is inotify_simple (pinned): a ctypes wrapper
of the kernel's inotify calls and nothing else, so one thread blocked in poll() stamps each event the
moment it arrives and adds a watch for each new folder itself. watchdog was the alternative; its
observer thread batches and re-orders events behind its own emitter queue, which blurs exactly the
timing attribution needs.

An attribute-only change (IN_ATTRIB: `touch` of an existing file, a new mtime, an owner) changed no
content and git sees none of it, so it is no effect; only a changed executable bit (the one mode git
records, `chmod +x`) is a `modified`. A file `touch` creates is `created` as any new file is.

Git: the tree's `.git` is not watched except HEAD, packed-refs, index and refs/ (recursively).
A ref change is read at once (its new sha) and classified after the run with one `git rev-list`:
a new tag, a new branch, a merge (a new commit with two parents), a commit, or `ref` (moved to
commits that existed before: reset, checkout, fast-forward).
"""

from __future__ import annotations

import errno
import fnmatch
import os
import select
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from inotify_simple import INotify, flags

from workbench.core.effects import Effect, EffectKind

TREE_MASK = (flags.CREATE | flags.MODIFY | flags.ATTRIB | flags.DELETE | flags.MOVED_FROM | flags.MOVED_TO
             | flags.ONLYDIR | flags.EXCL_UNLINK)
GIT_MASK = flags.CREATE | flags.MODIFY | flags.DELETE | flags.MOVED_TO | flags.ONLYDIR
GIT_FILES = frozenset({"HEAD", "packed-refs", "index"})
"""The files directly in .git that are watched; everything else there is git's internals."""
CONTENT_EVENTS = flags.CREATE | flags.MODIFY | flags.DELETE | flags.MOVED_FROM | flags.MOVED_TO
MAX_EFFECTS = 100_000
"""Raw effects kept per run; past this the watcher says `overflowed` (so does a kernel queue overflow)."""


def _executable(path: Path) -> bool | None:
    """Whether PATH has its owner's executable bit (git's only recorded mode); None: it is gone."""
    try:
        return bool(path.lstat().st_mode & 0o100)
    except OSError:
        return None


def _size(path: Path) -> int | None:
    """PATH's size in bytes; None: it is gone."""
    try:
        return path.lstat().st_size
    except OSError:
        return None


def _read_ref(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace").strip() or None
    except OSError:
        return None


def _packed(git: Path) -> dict[str, str]:
    refs: dict[str, str] = {}
    text = _read_ref(git / "packed-refs") or ""
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and not line.startswith(("#", "^")):
            refs[parts[1]] = parts[0]
    return refs


def snapshot_refs(git: Path) -> dict[str, str]:
    """Ref name -> value for HEAD, every loose ref under refs/ and the packed refs."""
    refs = _packed(git)
    for root, _dirs, files in os.walk(git / "refs"):
        for name in files:
            if not name.endswith(".lock"):
                path = Path(root) / name
                value = _read_ref(path)
                if value:
                    refs[path.relative_to(git).as_posix()] = value
    head = _read_ref(git / "HEAD")
    if head:
        refs["HEAD"] = head
    return refs


def drop_transient(effects: list[Effect]) -> list[Effect]:
    """EFFECTS without each empty file that was created and deleted again with nothing in between
    (a write of nothing to it is not recorded, `RepoWatcher._tree_event`).

    Such a file changed nothing in the repo; Claude Code's own sandbox makes them around every Bash
    call (mount points for `.bashrc`, `.gitconfig`, `.mcp.json`, ... in the working folder)."""
    drop: set[int] = set()
    last: dict[str, int] = {}
    for i, effect in enumerate(effects):
        before = last.get(effect.path)
        if effect.kind == "deleted" and before is not None and effects[before].kind == "created":
            drop.update((before, i))
        last[effect.path] = i
    return [e for i, e in enumerate(effects) if i not in drop]


class RepoWatcher:
    """Start before the host, stop after it exits: `stop()` returns the run's effects in time order.

    `noise` holds glob patterns (repo-relative, fnmatch) of files a case or host changes on its own;
    their effects are dropped. `clock` must be the clock the stream lines are stamped with."""

    def __init__(self, repo: Path, noise: Iterable[str] = (), clock: Callable[[], float] = time.monotonic) -> None:
        self.repo = Path(os.path.realpath(repo))
        self.git = self.repo / ".git"
        self.noise = tuple(noise)
        self.clock = clock
        self.overflowed = False
        """Some changes may be missing: the kernel queue overflowed, a folder could not be watched, or
        MAX_EFFECTS was reached. Effect evidence from such a run is incomplete."""
        self._raw: list[Effect] = []
        self._dirs: dict[int, Path] = {}
        self._git_dirs: dict[int, Path] = {}
        self._existing: set[str] = set()
        self._modes: dict[str, bool | None] = {}
        """File -> its executable bit, as last seen (an attribute change is an effect only if it flips)."""
        self._walked: set[str] = set()
        """Files of a new folder recorded `created` by its listing: their own CREATE event, if it comes
        after the watch, is the same creation."""
        self._empty: set[str] = set()
        """Files created during the run that are still empty as far as the watcher saw."""
        self._refs: dict[str, str] = {}
        self._start_refs: dict[str, str] = {}
        self._inotify: INotify | None = None
        self._wake_r, self._wake_w = -1, -1
        self._thread: threading.Thread | None = None
        self._drained = threading.Event()
        self._lock = threading.Lock()
        """One reader of the inotify queue at a time: the watcher's thread, or `sync` from the stdout reader."""
        self._closed = False
        self._effects: list[Effect] | None = None

    def __enter__(self) -> RepoWatcher:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        if self._effects is None:
            self.stop()

    # -- setup ---------------------------------------------------------------------------------
    def start(self) -> RepoWatcher:
        """Add the watches (the whole tree, new folders as they appear, git's refs) and start reading."""
        self._inotify = INotify()
        self._wake_r, self._wake_w = os.pipe()
        self._watch_tree(self.repo, None)
        if self.git.is_dir():
            self._start_refs = snapshot_refs(self.git)
            self._refs = dict(self._start_refs)
            self._git_dirs[self._inotify.add_watch(self.git, GIT_MASK)] = self.git
            self._watch_refs(self.git / "refs")
        self._thread = threading.Thread(target=self._loop, daemon=True, name="repo-watcher")
        self._thread.start()
        return self

    def _watch_tree(self, top: Path, t: float | None) -> None:
        """Watch TOP and every folder below it (not .git). With T (a folder that appeared during the
        run), the files already inside it were created before its watch existed: record them at T.

        Each folder's watch is added BEFORE its entries are listed: a file made between the listing and
        the watch would otherwise show only its later writes (`modified`, never `created`)."""
        assert self._inotify is not None
        pending = [top]
        while pending:
            base = pending.pop()
            try:
                self._dirs[self._inotify.add_watch(base, TREE_MASK)] = base
                entries = list(os.scandir(base))
            except OSError as err:
                if err.errno not in (errno.ENOENT, errno.ENOTDIR):
                    self.overflowed = True  # out of watches (fs.inotify.max_user_watches) or unreadable
                continue
            for entry in sorted(entries, key=lambda e: e.name):
                if entry.is_dir(follow_symlinks=False):
                    if not (base == self.repo and entry.name == ".git"):
                        pending.append(Path(entry.path))
                    continue
                rel = Path(entry.path).relative_to(self.repo).as_posix()
                self._modes[rel] = _executable(Path(entry.path))
                if t is None:
                    self._existing.add(rel)
                elif rel not in self._existing:
                    self._existing.add(rel)
                    self._walked.add(rel)
                    self._add(Effect(t, rel, "created"))

    def _watch_refs(self, top: Path) -> None:
        assert self._inotify is not None
        for root, _dirs, _files in os.walk(top):
            with_path = Path(root)
            try:
                self._git_dirs[self._inotify.add_watch(with_path, GIT_MASK)] = with_path
            except OSError:
                continue

    # -- reading -------------------------------------------------------------------------------
    def _add(self, effect: Effect) -> None:
        if len(self._raw) >= MAX_EFFECTS:
            self.overflowed = True
            return
        last = self._raw[-1] if self._raw else None
        if last is not None and last.path == effect.path and last.kind == effect.kind and last.detail == effect.detail:
            return  # one write() after another: the first one is the change
        self._raw.append(effect)

    def _loop(self) -> None:
        """Read events until woken by stop(); a failure here marks the run `overflowed` (incomplete)."""
        assert self._inotify is not None
        poller = select.poll()
        poller.register(self._inotify.fileno(), select.POLLIN)
        poller.register(self._wake_r, select.POLLIN)
        try:
            while True:
                ready = {fd for fd, _ in poller.poll()}
                if self._inotify.fileno() in ready:
                    with self._lock:
                        self._drain()
                if self._wake_r in ready:
                    with self._lock:
                        self._drain()  # what the kernel queued before the host exited
                    return
        except Exception:
            self.overflowed = True
            raise
        finally:
            self._drained.set()
            with self._lock:
                self._closed = True
            # closing an inotify fd waits for a kernel grace period (~5 ms): off the run's path
            self._inotify.close()
            os.close(self._wake_r)

    def sync(self) -> None:
        """Read and stamp what the kernel has queued by now, from the caller's thread.

        The host's stdout reader calls it as each line is read, before stamping the line: a change
        the kernel queued before the host printed that line is then stamped before it, however late
        the watcher's own thread gets the CPU. Every stamp stays at or after the change itself."""
        with self._lock:
            if not self._closed and self._inotify is not None:
                self._drain()

    def _drain(self) -> None:
        assert self._inotify is not None
        events = self._inotify.read(timeout=0)
        if not events:
            return
        t = self.clock()
        for ev in events:
            if ev.mask & flags.Q_OVERFLOW:
                self.overflowed = True
            elif ev.wd in self._dirs:
                self._tree_event(self._dirs[ev.wd], ev.name, ev.mask, t)
            elif ev.wd in self._git_dirs:
                self._git_event(self._git_dirs[ev.wd], ev.name, ev.mask, t)

    def _tree_event(self, folder: Path, name: str, mask: int, t: float) -> None:
        if not name:
            return
        path = folder / name
        if mask & flags.ISDIR:
            if mask & (flags.CREATE | flags.MOVED_TO):
                self._watch_tree(path, t)
            return
        rel = path.relative_to(self.repo).as_posix()
        if rel in self._walked:  # the first event after its listing: a CREATE is that same creation
            self._walked.discard(rel)
            if mask & flags.CREATE:
                return
        if not mask & CONTENT_EVENTS:  # attributes only: an effect only if the executable bit flipped
            mode = _executable(path)
            if mode is None or mode == self._modes.get(rel, mode):
                return
        kind: EffectKind
        if mask & (flags.CREATE | flags.MOVED_TO | flags.ATTRIB):
            self._modes[rel] = _executable(path)
        if mask & flags.CREATE:
            kind = "created"
        elif mask & flags.MOVED_TO:
            kind = "modified" if rel in self._existing else "created"
        elif mask & flags.MOVED_FROM:
            kind = "moved"
        elif mask & flags.DELETE:
            kind = "deleted"
        else:
            kind = "modified"
        if kind == "modified" and rel in self._empty and _size(path) == 0:
            return  # a write of nothing to a file created empty (a host's mount point): no content yet
        self._empty.discard(rel)
        if kind == "created" and _size(path) == 0:
            self._empty.add(rel)
        if kind in ("moved", "deleted"):
            self._existing.discard(rel)
        else:
            self._existing.add(rel)
        self._add(Effect(t, rel, kind))

    def _git_event(self, folder: Path, name: str, mask: int, t: float) -> None:
        if not name or name.endswith(".lock"):
            return
        path = folder / name
        if mask & flags.ISDIR:
            if mask & flags.CREATE and path.is_relative_to(self.git / "refs"):
                self._watch_refs(path)
                for root, _dirs, files in os.walk(path):  # refs written before the watch existed
                    for ref in files:
                        self._ref_changed((Path(root) / ref).relative_to(self.git).as_posix(), t)
            return
        if folder == self.git:
            if name == "index":
                self._add(Effect(t, ".git/index", "index"))
            elif name == "HEAD":
                self._ref_changed("HEAD", t)
            elif name == "packed-refs":
                for ref, value in _packed(self.git).items():
                    if self._refs.get(ref) != value:
                        self._ref_changed(ref, t, value)
            return
        self._ref_changed(path.relative_to(self.git).as_posix(), t)

    def _ref_changed(self, ref: str, t: float, value: str | None = None) -> None:
        value = value or _read_ref(self.git / ref)
        if value is None and ref in _packed(self.git):
            return  # a loose ref packed away: no change
        if value == self._refs.get(ref):
            return
        if value is None:
            self._refs.pop(ref, None)
        else:
            self._refs[ref] = value
        self._add(Effect(t, ref, "ref", value))

    # -- result --------------------------------------------------------------------------------
    def stop(self) -> list[Effect]:
        """Read what is still queued, stop the thread, classify git changes, drop noise; the effects."""
        if self._effects is not None:
            return self._effects
        assert self._thread is not None and self._inotify is not None
        os.write(self._wake_w, b"x")
        os.close(self._wake_w)
        self._drained.wait()
        effects = [self._classify(e) if e.kind == "ref" else e for e in drop_transient(self._raw)]
        self._effects = [e for e in effects if not self._is_noise(e.path)]
        return self._effects

    def _is_noise(self, rel: str) -> bool:
        return any(fnmatch.fnmatchcase(rel, pattern) for pattern in self.noise)

    def _classify(self, effect: Effect) -> Effect:
        """A ref change as a tag, branch, merge, commit or plain `ref` move."""
        ref, value = effect.path, effect.detail
        if value is None or value.startswith("ref:"):
            return effect  # deleted, or HEAD switched to another branch
        if ref.startswith("refs/tags/"):
            return Effect(effect.t, ref, "tag", value)
        if ref.startswith("refs/heads/") and ref not in self._start_refs and not self._seen_before(effect):
            return Effect(effect.t, ref, "branch", value)
        if any(e.detail == value for e in self._raw[:self._raw.index(effect)]):
            return effect  # back to a commit some ref already pointed at during the run (a reset)
        known = {v for v in self._start_refs.values() if not v.startswith("ref:")}
        from workbench.runner.fixture import neutral_git  # the repo is the sandbox uid's: safe.directory

        tip = neutral_git(self.repo, "rev-list", "--parents", "-n1", value, "--not", *sorted(known),
                          check=False).stdout.split()
        if tip and tip[0] == value:  # the ref points at a commit made during the run
            return Effect(effect.t, ref, "merge" if len(tip) > 2 else "commit", value)
        return effect

    def _seen_before(self, effect: Effect) -> bool:
        """Whether EFFECT's ref already had a value during the run before EFFECT (a later update of a new branch)."""
        for earlier in self._raw:
            if earlier is effect:
                return False
            if earlier.path == effect.path and earlier.detail is not None:
                return True
        return False
