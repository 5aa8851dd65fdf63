"""Wait for a folder's files to change: a script added to, rewritten in or removed from `canaries/`.

For a worker thread: `wait` blocks until the kernel reports a change (inotify, through the pinned
inotify_simple the run watcher uses) or the timeout passes. A folder that does not exist yet, or an
inotify that cannot be had, is looked at again on every wait instead (its listing compared).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from inotify_simple import INotify, flags

MASK = flags.CREATE | flags.CLOSE_WRITE | flags.DELETE | flags.MOVED_TO | flags.MOVED_FROM | flags.DELETE_SELF \
    | flags.MOVE_SELF | flags.ONLYDIR


class FolderWatch:
    """Changes of the files directly in one folder."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._inotify: INotify | None = None
        self._listing = self._list()
        self._arm()

    def _list(self) -> tuple[tuple[str, int], ...]:
        try:
            return tuple(sorted((e.name, e.stat().st_mtime_ns) for e in os.scandir(self.folder)))
        except OSError:
            return ()

    def _arm(self) -> None:
        """Watch the folder if it is there (inotify); else leave it to the listing."""
        self.close()
        try:
            notify = INotify()
        except OSError:
            return
        try:
            notify.add_watch(self.folder, MASK)
        except OSError:
            notify.close()
            return
        self._inotify = notify

    def wait(self, timeout: float, stop: threading.Event) -> bool:
        """Whether the folder's files changed, waiting at most TIMEOUT seconds for the first change (or
        until STOP is set, without inotify)."""
        if self._inotify is not None:
            events = self._inotify.read(timeout=int(timeout * 1000))
            if any(e.mask & (flags.DELETE_SELF | flags.MOVE_SELF | flags.IGNORED) for e in events):
                self._arm()  # the folder itself went: watch it again once it is back
            if not events:
                return False
            self._listing = self._list()
            return True
        stop.wait(timeout)
        listing = self._list()
        if self._inotify is None and self.folder.is_dir():
            self._arm()
        changed, self._listing = listing != self._listing, listing
        return changed

    def close(self) -> None:
        if self._inotify is not None:
            self._inotify.close()
            self._inotify = None
