"""The texts of a plugin copy's procedures, for content evidence (workbench.core.fingerprints)."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from workbench.core.errors import InputError

MAX_BYTES = 1024 * 1024
"""Larger files are not procedures a model reads; they are left out instead of slowing every run."""

Stamp = tuple[int, int, int, int, int, int] | None
"""(mode, device, inode, size, mtime ns, ctime ns) of a file or folder; None: it cannot be stat'ed."""


@dataclass(frozen=True)
class _Loaded:
    stamps: tuple[tuple[str, Stamp], ...]
    """Every folder walked and every file read, with its stamp when it was read."""
    texts: dict[str, str]


_LOADED: dict[str, _Loaded] = {}
_KEEP_LOADED = 16


def _stamp(path: str) -> Stamp:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_mode, info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns


def _unchanged(stamps: tuple[tuple[str, Stamp], ...]) -> bool:
    """Whether every path still has its stamp (`_stamp`'s comparison, inlined: it may run per scored stream)."""
    stat_of = os.stat
    for path, stamp in stamps:
        try:
            info = stat_of(path)
        except OSError:
            if stamp is not None:
                return False
            continue
        if stamp is None or (info.st_mode, info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns,
                             info.st_ctime_ns) != stamp:
            return False
    return True


def _walk(root: str) -> tuple[list[tuple[tuple[str, ...], str]], list[tuple[str, Stamp]]]:
    """The `*.md` entries under ROOT outside hidden folders, as (parts inside ROOT, path), and every
    folder walked with its stamp. Symlinked folders are not entered (as `Path.rglob` does not)."""
    found: list[tuple[tuple[str, ...], str]] = []
    folders: list[tuple[str, Stamp]] = []
    pending: list[tuple[tuple[str, ...], str]] = [((), root)]
    while pending:
        parts, folder = pending.pop()
        folders.append((folder, _stamp(folder)))
        try:
            with os.scandir(folder) as entries:
                listed = list(entries)
        except OSError:
            continue
        for entry in listed:
            if entry.name.startswith("."):
                continue  # hidden: never a procedure, nor anything under it
            if entry.name.endswith(".md"):
                found.append(((*parts, entry.name), entry.path))
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            if is_dir:
                pending.append(((*parts, entry.name), entry.path))
    found.sort()
    return found, folders


def load_procedures(plugin: Path, *, check: bool = False) -> dict[str, str]:
    """Every Markdown file under PLUGIN (hidden folders skipped), keyed by its path inside the plugin.

    Read once per process and folder: a later call returns what was read, touching no file, so
    scoring many streams of one plugin costs one walk. CHECK is for a caller whose folder may have
    changed since (a long-lived TUI scoring a workspace, a run's fresh plugin copy): it re-stats the
    folders walked and the files read (any file added, removed, renamed or rewritten changes one of
    those stamps) and reads the plugin again when one differs. The caller gets its own dict. A
    missing folder is bad input: scoring without the procedures would silently fall back to command
    analysis."""
    key = os.fspath(plugin)
    loaded = _LOADED.get(key)
    if loaded is not None and (not check or _unchanged(loaded.stamps)):
        return dict(loaded.texts)
    if not plugin.is_dir():
        raise InputError("not a plugin folder", file=str(plugin))
    entries, folders = _walk(key)
    stamps = list(folders)
    texts: dict[str, str] = {}
    for parts, path in entries:
        stamp = _stamp(path)
        stamps.append((path, stamp))  # whatever it is now: a change to it may make it a procedure
        if stamp is None or not stat.S_ISREG(stamp[0]) or stamp[3] > MAX_BYTES:
            continue
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                texts["/".join(parts)] = fh.read()
        except OSError:
            continue
    if len(_LOADED) >= _KEEP_LOADED and key not in _LOADED:
        _LOADED.pop(next(iter(_LOADED)))
    _LOADED[key] = _Loaded(tuple(stamps), texts)
    return dict(texts)
