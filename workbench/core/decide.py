"""When an until-decided batch may stop: per (host, target, kind), the anytime-valid paired comparison
of the stop rule's two arms, computed from the batch's records alone (so a resume, the runner and
`summary` agree).

Pairs are runs of arms A and B with the same case, host and run index (`core.summary.paired`); the
comparison is decided when `core.stats.sequential_decision` says so at the rule's alpha. A batch
stopped this way is complete when every comparison is decided or has run `max_runs` per case.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from workbench.core.models import RunRecord, StopRule
from workbench.core.summary import summarize


@dataclass(frozen=True, order=True)
class Comparison:
    """One comparison of an until-decided batch: a row on a host."""

    host: str
    target: str
    kind: str


@dataclass(frozen=True)
class Decision:
    """Where one comparison stands: its pairs, discordant counts, e-value, and the better arm if decided."""

    comparison: Comparison
    pairs: int
    only_a: int
    only_b: int
    e_value: float
    better: str | None
    more_pairs: int | None

    @property
    def decided(self) -> bool:
        return self.better is not None


def decisions(records: Iterable[RunRecord], rule: StopRule, arm_a: str, arm_b: str) -> dict[Comparison, Decision]:
    """Every comparison of ARM_A vs ARM_B (shas or names) in RECORDS at the rule's alpha."""
    rows = summarize(records).compare(arm_a, arm_b, rule.alpha or 0.05)
    out: dict[Comparison, Decision] = {}
    for row in rows:
        key = Comparison(row["host"], row["target"], row["kind"])
        out[key] = Decision(key, row["pairs"], row["only_a"], row["only_b"], row["e_value"], row["better"],
                            row["more_pairs"])
    return out


def decided(records: Iterable[RunRecord], rule: StopRule, arm_a: str, arm_b: str) -> set[Comparison]:
    """The comparisons already decided."""
    return {k for k, d in decisions(records, rule, arm_a, arm_b).items() if d.decided}
