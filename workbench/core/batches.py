"""Partial batches, seen from the records alone: every batch record carries its batch id and the
number of runs the batch planned, so a batch with fewer distinct valid runs is partial. A summary
warns about each one instead of mixing it in silently."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from workbench.core.models import RunRecord


@dataclass(frozen=True)
class BatchState:
    """One batch: its id, the distinct runs recorded valid, and how many were planned."""

    batch: str
    valid: int
    planned: int

    @property
    def partial(self) -> bool:
        return self.valid < self.planned


@dataclass
class BatchTracker:
    """Batch states counted as records stream by: per batch the planned count and the distinct valid
    runs (a hash of each run's identity, so memory grows with distinct runs, not with the file)."""

    planned: dict[str, int] = field(default_factory=dict)
    valid: dict[str, set[int]] = field(default_factory=dict)

    def add(self, r: Any) -> None:
        """Count one record (a RunRecord or a summary's RecordView)."""
        n = r.batch_planned
        if r.batch is None or not isinstance(n, int):
            return
        self.planned[r.batch] = max(self.planned.get(r.batch, 0), n)
        keys = self.valid.setdefault(r.batch, set())
        if r.valid:
            keys.add(hash((r.host, r.model, r.effort, r.source or r.arm, r.case_id, r.run)))

    def states(self) -> list[BatchState]:
        """Every batch seen that says how many runs it planned, in order of first appearance."""
        return [BatchState(b, len(self.valid[b]), n) for b, n in self.planned.items()]


def batch_states(records: Iterable[RunRecord]) -> list[BatchState]:
    """Every batch in RECORDS that says how many runs it planned, in order of first appearance."""
    tracker = BatchTracker()
    for r in records:
        tracker.add(r)
    return tracker.states()


def partial_batches(records: Iterable[RunRecord]) -> list[BatchState]:
    """The batches with fewer valid runs than planned."""
    return [s for s in batch_states(records) if s.partial]
