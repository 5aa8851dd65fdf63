"""The started-journal: one line per run the driver launched, next to the records file (`FILE.started`).

Written (append-only, flushed) before a run is submitted, whatever the executor. A run that is in
the journal but not in the records file was started and never recorded (the driver crashed, or a
worker died): it may have been spent, and `--resume` says so before it runs it again.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any


def journal_path(record: Path) -> Path:
    """The started-journal of a records file."""
    return record.with_name(record.name + ".started")


def note_started(path: Path, batch: str, key: dict[str, Any], executor: str, attempt: int) -> None:
    """Append one started line (whole, flushed to disk) before the run is submitted."""
    line = json.dumps({"batch": batch, "key": key, "executor": executor, "attempt": attempt,
                       "at": datetime.now(UTC).isoformat(timespec="seconds")}, sort_keys=True) + "\n"
    with path.open("a", encoding="utf-8") as fh:
        fh.write(line)
        fh.flush()
        os.fsync(fh.fileno())


def started(path: Path, batch: str) -> list[dict[str, Any]]:
    """The keys of BATCH's runs the journal says were started (once each, in order); a torn line is skipped."""
    if not path.is_file():
        return []
    seen: list[dict[str, Any]] = []
    for raw in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            entry = json.loads(raw)
        except ValueError:
            continue
        if isinstance(entry, dict) and entry.get("batch") == batch and isinstance(entry.get("key"), dict) \
                and entry["key"] not in seen:
            seen.append(entry["key"])
    return seen
