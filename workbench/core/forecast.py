"""What a batch will cost, forecast before launch from earlier records of the same host and model.

Real-model runs spend money and quota: the author sees runs, tokens, cost and wall time (with a
range) before pressing go. Per planned run the history is the records of the same host, model and
case when there are any, else of the same host and model; a quantity no earlier record knows is
unknown (None), never 0; a scripted run (the model server on 127.0.0.1) costs 0. The range of a
total is the normal approximation of a sum of independent runs (mean x n +- 1.645 sd sqrt(n),
about 90%), clipped to what the cheapest and dearest runs seen would give.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from workbench.core.models import RunRecord

Z90 = 1.645
SCRIPTED = "scripted"
"""The model a scripted run records: it costs nothing, whatever earlier records say."""


@dataclass(frozen=True)
class PlannedRun:
    """What the forecast needs to know about one planned run."""

    host: str
    model: str | None
    case_id: str | None = None


@dataclass(frozen=True)
class Estimate:
    """A total with its ~90% range; None everywhere when no earlier record knows the quantity."""

    total: float | None
    low: float | None
    high: float | None
    known_runs: int
    """Planned runs whose history knows this quantity (the others are left out of the total)."""

    def text(self, unit: str, digits: int = 0) -> str:
        if self.total is None or self.low is None or self.high is None:
            return f"unknown {unit}"
        fmt = f"{{:,.{digits}f}}"
        return f"{fmt.format(self.total)} {unit} ({fmt.format(self.low)}-{fmt.format(self.high)})"


@dataclass(frozen=True)
class Forecast:
    """The batch's forecast: runs, tokens, cost and wall time, and how much history it rests on."""

    runs: int
    tokens: Estimate
    cost_usd: Estimate
    seconds: Estimate
    history: int
    """Earlier records the forecast used."""
    unknown: list[str] = field(default_factory=list)
    """`host/model` pairs with no earlier record at all."""

    def lines(self) -> list[str]:
        """The forecast as the CLI and TUI show it."""
        out = [f"forecast: {self.runs} run(s) · {self.tokens.text('tokens')} · {self.cost_usd.text('USD', 2)} · "
               f"{self.seconds.text('s of host time')}"]
        if self.unknown:
            out.append("forecast: no earlier record of " + ", ".join(self.unknown) + " (their cost is unknown)")
        return out


def run_seconds(record: RunRecord) -> float | None:
    """Wall seconds of a recorded run, from its start and finish stamps."""
    if not record.started_at or not record.finished_at:
        return None
    try:
        return (datetime.fromisoformat(record.finished_at) - datetime.fromisoformat(record.started_at)).total_seconds()
    except ValueError:
        return None


def run_tokens(record: RunRecord) -> float | None:
    """Input plus output tokens of a run; None when neither is known."""
    parts = [record.usage.input_tokens, record.usage.output_tokens]
    return None if all(p is None for p in parts) else float(sum(p or 0 for p in parts))


def forecast(plan: Sequence[PlannedRun], history: Iterable[RunRecord]) -> Forecast:
    """Forecast PLAN from HISTORY (valid earlier records; invalid ones spent too, so they count)."""
    by_case: dict[tuple[str, str | None, str | None], list[RunRecord]] = {}
    by_model: dict[tuple[str, str | None], list[RunRecord]] = {}
    used = 0
    for r in history:
        by_case.setdefault((r.host, r.model, r.case_id), []).append(r)
        by_model.setdefault((r.host, r.model), []).append(r)
        used += 1
    samples: dict[str, list[list[float]]] = {"tokens": [], "cost": [], "seconds": []}
    unknown: dict[str, None] = {}
    for p in plan:
        past = by_case.get((p.host, p.model, p.case_id)) or by_model.get((p.host, p.model), [])
        if not past and p.model != SCRIPTED:
            unknown[f"{p.host}/{p.model or 'default'}"] = None
        for name, get in (("tokens", run_tokens), ("cost", _cost), ("seconds", run_seconds)):
            samples[name].append([v for v in map(get, past) if v is not None])
        if p.model == SCRIPTED:
            samples["cost"][-1] = [0.0]  # the scripted model server on 127.0.0.1: no provider bills it
    return Forecast(len(plan), _total(samples["tokens"]), _total(samples["cost"]), _total(samples["seconds"]),
                    used, list(unknown))


def _cost(record: RunRecord) -> float | None:
    return record.usage.cost_usd


def _total(per_run: list[list[float]]) -> Estimate:
    """Sum over planned runs of their history's mean, with the range of a sum of independent runs."""
    known = [values for values in per_run if values]
    if not known:
        return Estimate(None, None, None, 0)
    total = sum(statistics.fmean(v) for v in known)
    spread = math.sqrt(sum(statistics.pvariance(v) for v in known))
    floor, ceiling = sum(min(v) for v in known), sum(max(v) for v in known)
    low = max(floor, total - Z90 * spread)
    high = min(ceiling, total + Z90 * spread)
    return Estimate(total, low, high, len(known))
