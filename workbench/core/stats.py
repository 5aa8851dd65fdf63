"""Statistics for trigger tables: Wilson intervals, exact paired test, majority vote, null-aware means."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any


def binomtest(k: int, n: int, p: float = 0.5) -> Any:
    """scipy's exact binomial test, imported on first use (scipy.stats costs ~1 s at startup)."""
    from scipy.stats import binomtest as scipy_binomtest

    return scipy_binomtest(k, n, p)


Z95 = 1.959963984540054
"""The standard normal quantile at 0.975 (scipy.stats.norm.ppf(0.975))."""


def wilson95(hits: int, n: int) -> tuple[float, float] | None:
    """Wilson score 95% interval of hits/n (no continuity correction); None when there is nothing to
    estimate. The closed form, equal to scipy's `proportion_ci(method="wilson")` to the 4 decimals kept
    (tested), so a summary does not pay scipy's import (about 1 s and 90 MB)."""
    if n <= 0:
        return None
    p, z2 = hits / n, Z95 * Z95
    centre = p + z2 / (2 * n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return (round((centre - half) / (1 + z2 / n), 4), round((centre + half) / (1 + z2 / n), 4))


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
