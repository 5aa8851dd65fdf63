"""Partial batches, seen from the records alone: every batch record carries its batch id and the
number of runs the batch planned, so a batch with fewer distinct valid runs is partial. A summary
warns about each one instead of mixing it in silently. An until-decided batch plans its maximum:
it is complete when every comparison is decided or has all its runs (its stop rule says which)."""

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
    settled: bool = False
    """until-decided: every comparison decided or run to its maximum (fewer runs than planned is complete)."""

    @property
    def partial(self) -> bool:
        return self.valid < self.planned and not self.settled


@dataclass
class BatchTracker:
    """Batch states counted as records stream by: per batch the planned count and the distinct valid
    runs (a hash of each run's identity, so memory grows with distinct runs, not with the file)."""

    planned: dict[str, int] = field(default_factory=dict)
    valid: dict[str, set[int]] = field(default_factory=dict)

    decided: dict[str, list[Any]] = field(default_factory=dict)
    """until-decided batches: their records (a batch is bounded by its plan), to tell settled from partial."""

    def add(self, r: Any) -> None:
        """Count one record (a RunRecord or a summary's RecordView)."""
        n = r.batch_planned
        if r.batch is None or not isinstance(n, int):
            return
        if r.stop_rule is not None and r.stop_rule.rule == "until-decided":
            self.decided.setdefault(r.batch, []).append(r)
        self.planned[r.batch] = max(self.planned.get(r.batch, 0), n)
        keys = self.valid.setdefault(r.batch, set())
        if r.valid:
            keys.add(hash((r.host, r.model, r.effort, r.source or r.arm, r.case_id, r.run)))

    def states(self) -> list[BatchState]:
        """Every batch seen that says how many runs it planned, in order of first appearance."""
        pool = [r for kept in self.decided.values() for r in kept]
        return [BatchState(b, len(self.valid[b]), n, b in self.decided and settled(self.decided[b], pool))
                for b, n in self.planned.items()]


def batch_states(records: Iterable[RunRecord]) -> list[BatchState]:
    """Every batch in RECORDS that says how many runs it planned, in order of first appearance."""
    planned: dict[str, int] = {}
    valid: dict[str, set[tuple[object, ...]]] = {}
    mine: dict[str, list[RunRecord]] = {}
    records = list(records)
    for r in records:
        n = r.batch_planned
        if r.batch is None or n is None:
            continue
        planned[r.batch] = max(planned.get(r.batch, 0), n)
        mine.setdefault(r.batch, []).append(r)
        keys = valid.setdefault(r.batch, set())
        if r.valid:
            keys.add((r.host, r.model, r.effort, r.source or r.arm, r.case_id, r.run))
    return [BatchState(b, len(valid[b]), n, settled(mine[b], records)) for b, n in planned.items()]


def settled(records: list[RunRecord], everything: list[RunRecord]) -> bool:
    """An until-decided batch's RECORDS: every comparison decided, or each of its cases has all its pairs.
    Pairs come from every until-decided record of the same two arms (a resume with a larger maximum is
    another batch id over the same runs)."""
    from workbench.core.decide import decisions

    rule = records[0].stop_rule
    if rule is None or rule.rule != "until-decided" or len(rule.compare) != 2:
        return False
    names = {r.arm: r.source or r.arm for r in records if r.arm in rule.compare}
    if len(names) != 2:
        return False
    shas = set(names.values())
    pool = [r for r in everything if r.stop_rule is not None and r.stop_rule.rule == "until-decided"
            and (r.source or r.arm) in shas]
    found = decisions(pool, rule, names[rule.compare[0]], names[rule.compare[1]])
    cases: dict[tuple[str, str, str], set[str]] = {}
    for r in records:
        cases.setdefault((r.host, r.target, r.kind), set()).add(r.case_id or "")
    return all(d.decided or d.pairs >= rule.max_runs * len(cases.get((k.host, k.target, k.kind), ()))
               for k, d in found.items())
