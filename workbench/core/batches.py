"""Partial batches, seen from the records alone: every batch record carries its batch id and the
number of runs the batch planned, so a batch with fewer distinct valid runs is partial. A summary
warns about each one instead of mixing it in silently."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

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


def batch_states(records: Iterable[RunRecord]) -> list[BatchState]:
    """Every batch in RECORDS that says how many runs it planned, in order of first appearance."""
    planned: dict[str, int] = {}
    valid: dict[str, set[tuple[object, ...]]] = {}
    for r in records:
        n = r.batch_planned
        if r.batch is None or n is None:
            continue
        planned[r.batch] = max(planned.get(r.batch, 0), n)
        keys = valid.setdefault(r.batch, set())
        if r.valid:
            keys.add((r.host, r.model, r.effort, r.source or r.arm, r.case_id, r.run))
    return [BatchState(b, len(valid[b]), n) for b, n in planned.items()]


def partial_batches(records: Iterable[RunRecord]) -> list[BatchState]:
    """The batches with fewer valid runs than planned."""
    return [s for s in batch_states(records) if s.partial]
