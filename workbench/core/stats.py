"""Statistics for trigger tables: Wilson intervals, exact paired test, majority vote, null-aware means."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any


def binomtest(k: int, n: int, p: float = 0.5) -> Any:
    """scipy's exact binomial test, imported on first use (scipy.stats costs ~1 s at startup)."""
    from scipy.stats import binomtest as scipy_binomtest

    return scipy_binomtest(k, n, p)


def wilson95(hits: int, n: int) -> tuple[float, float] | None:
    """Wilson score 95% interval of hits/n; None when there is nothing to estimate."""
    if n <= 0:
        return None
    ci = binomtest(hits, n).proportion_ci(confidence_level=0.95, method="wilson")
    return (round(float(ci.low), 4), round(float(ci.high), 4))


def mcnemar_exact(only_a: int, only_b: int) -> float:
    """Two-sided exact McNemar p-value: a binomial test on the discordant pairs (1.0 when none)."""
    n = only_a + only_b
    if n == 0:
        return 1.0
    return round(float(binomtest(only_a, n, 0.5).pvalue), 6)


def rate(hits: int, n: int) -> float | None:
    """hits/n, or None when n is 0."""
    return hits / n if n > 0 else None


def delta_pp(hits_a: int, n_a: int, hits_b: int, n_b: int) -> float | None:
    """Rate of B minus rate of A in percentage points; None when either side has no runs."""
    ra, rb = rate(hits_a, n_a), rate(hits_b, n_b)
    if ra is None or rb is None:
        return None
    return round((rb - ra) * 100, 1)


def majority(hits: Sequence[bool]) -> bool:
    """Majority vote of a case's runs: strictly more than half must hit; an even split is a miss."""
    return sum(hits) * 2 > len(hits)


def flaky(hits: Sequence[bool]) -> bool:
    """True when runs of the same case disagree."""
    return 0 < sum(hits) < len(hits)


def mean_known(values: Iterable[float | int | None]) -> tuple[float | None, int]:
    """Mean over the known values (None is unknown, never 0) and how many were known."""
    known = [float(v) for v in values if v is not None]
    if not known:
        return None, 0
    return round(sum(known) / len(known), 4), len(known)
