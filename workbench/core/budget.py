"""Budgets of a batch: stop before the NEXT run would pass `--budget-usd` / `--budget-tokens`.

A run's cost is estimated as the forecast's per-run mean for its host, model and case
(`core.forecast`) from earlier records plus the batch's own runs so far. The check counts what the
batch has spent, what the runs still in flight will spend, and the next run: when that passes the
budget, no further run is launched (runs in flight finish, whole records are kept). A cost no record
knows cannot be checked ahead: the CLI refuses `--budget-usd` then unless forced, and a forced batch
only stops once the spending it has seen passes the budget.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from workbench.core.forecast import PlannedRun, forecast, run_tokens
from workbench.core.models import RunRecord


@dataclass
class Budget:
    """The limits and the history the estimates come from (grown by the batch's own records)."""

    usd: float | None = None
    tokens: int | None = None
    history: list[RunRecord] = field(default_factory=list)

    @property
    def active(self) -> bool:
        return self.usd is not None or self.tokens is not None

    def unknown_cost(self, plan: Sequence[PlannedRun]) -> list[str]:
        """`host/model` of planned runs whose cost no earlier record knows (a USD budget cannot be checked)."""
        out: dict[str, None] = {}
        for p in plan:
            if forecast([p], self.history).cost_usd.total is None:
                out[f"{p.host}/{p.model or 'default'}"] = None
        return list(out)

    def stop_reason(self, spent: Sequence[RunRecord], in_flight: Sequence[PlannedRun], nxt: PlannedRun,
                    label: str) -> str | None:
        """Why NXT must not start (None: it may): the projected spend would pass a budget."""
        ahead = forecast([*in_flight, nxt], self.history)
        if self.usd is not None:
            used = sum(r.usage.cost_usd or 0.0 for r in spent)
            projected = used + (ahead.cost_usd.total or 0.0)
            if projected > self.usd or used >= self.usd:
                return (f"budget: the next run ({label}) would bring the cost to ${projected:.4f}, past the "
                        f"${self.usd:g} budget (spent ${used:.4f} in {len(spent)} run(s))")
        if self.tokens is not None:
            used_t = sum(run_tokens(r) or 0.0 for r in spent)
            projected_t = used_t + (ahead.tokens.total or 0.0)
            if projected_t > self.tokens or used_t >= self.tokens:
                return (f"budget: the next run ({label}) would bring the tokens to {projected_t:,.0f}, past the "
                        f"{self.tokens:,} budget (spent {used_t:,.0f} in {len(spent)} run(s))")
        return None
