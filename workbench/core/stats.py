"""Statistics for trigger tables: Wilson intervals, exact paired test, the anytime-valid paired
sequential test, majority vote, null-aware means."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
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


SEQUENTIAL_PRIOR = 0.5
"""Beta(a, a) mixing prior of the paired e-process: a = 0.5 (Jeffreys) decides an all-one-way run of
discordant pairs after 7 pairs at alpha 0.05, a = 1 after 8 (bench/decide.py compares them)."""


def paired_e_value(b_wins: float, a_wins: float, prior: float = SEQUENTIAL_PRIOR) -> float:
    """Mixture likelihood ratio of the discordant pairs against H0 "each arm wins a discordant pair
    with probability 1/2": E = integral of p^b (1-p)^a dBeta(a, a) / (1/2)^(a+b).

    Under H0 the sequence of E values is a non-negative martingale with E[E] = 1, so by Ville's
    inequality P(E ever reaches 1/alpha) <= alpha however often it is checked: a batch may stop the
    first time E >= 1/alpha (anytime-valid, unlike a fixed-N p-value checked after every pair)."""
    from scipy.special import betaln

    n = a_wins + b_wins
    log_e = betaln(prior + b_wins, prior + a_wins) - betaln(prior, prior) + n * math.log(2.0)
    return float(math.exp(log_e))


@dataclass(frozen=True)
class SequentialDecision:
    """The anytime-valid paired comparison of arms A and B after the pairs seen so far."""

    pairs: int
    """Complete pairs (both arms ran the same case, host and run index)."""
    a_wins: int
    b_wins: int
    e_value: float
    alpha: float
    better: str | None
    """"A" or "B" once decided, else None."""
    more_pairs: int | None
    """Undecided: about how many more pairs decide at the observed rates; None when the observed
    rates can never decide (no discordant pair yet, or an even split)."""

    @property
    def decided(self) -> bool:
        return self.better is not None


def sequential_decision(a_wins: int, b_wins: int, pairs: int, alpha: float = 0.05,
                        prior: float = SEQUENTIAL_PRIOR, horizon: int = 10_000) -> SequentialDecision:
    """Decide A vs B from the discordant counts of `pairs` complete pairs (anytime-valid, see
    `paired_e_value`); undecided comparisons estimate the pairs still needed if the rates hold."""
    if not 0 < alpha < 1:
        raise ValueError("alpha must be between 0 and 1")
    e = paired_e_value(b_wins, a_wins, prior)
    if e >= 1 / alpha:
        return SequentialDecision(pairs, a_wins, b_wins, e, alpha, "B" if b_wins > a_wins else "A", 0)
    return SequentialDecision(pairs, a_wins, b_wins, e, alpha, None,
                              _pairs_to_decide(a_wins, b_wins, pairs, alpha, prior, horizon))


def _pairs_to_decide(a_wins: int, b_wins: int, pairs: int, alpha: float, prior: float, horizon: int) -> int | None:
    """Smallest m such that m more pairs at the observed discordance and win rates reach 1/alpha."""
    discordant = a_wins + b_wins
    if pairs == 0 or discordant == 0 or a_wins == b_wins:
        return None
    rate_discordant, share_b = discordant / pairs, b_wins / discordant
    for m in range(1, horizon + 1):
        extra = m * rate_discordant
        if paired_e_value(b_wins + extra * share_b, a_wins + extra * (1 - share_b), prior) >= 1 / alpha:
            return m
    return None
