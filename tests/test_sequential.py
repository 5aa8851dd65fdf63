"""The anytime-valid paired test: a martingale under H0, bounded crossing probability, right direction."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from workbench.core.stats import paired_e_value, sequential_decision


@given(st.integers(0, 60), st.integers(0, 60), st.sampled_from([0.5, 1.0, 2.0]))
def test_e_value_is_a_martingale_under_h0(a: int, b: int, prior: float) -> None:
    """E[next E | now] = E now when each arm wins the next discordant pair with probability 1/2."""
    now = paired_e_value(b, a, prior)
    nxt = 0.5 * paired_e_value(b + 1, a, prior) + 0.5 * paired_e_value(b, a + 1, prior)
    assert math.isclose(now, nxt, rel_tol=1e-9)


@pytest.mark.parametrize("alpha", [0.05, 0.1, 0.2])
def test_probability_of_ever_deciding_under_h0_is_at_most_alpha(alpha: float) -> None:
    """Exact: walk every path of 300 discordant pairs at p = 1/2, stopping at the first crossing."""
    alive = {0: 1.0}  # b_wins -> probability of having reached it without deciding
    crossed = 0.0
    for n in range(1, 301):
        nxt: dict[int, float] = {}
        for b, p in alive.items():
            for b2 in (b, b + 1):
                nxt[b2] = nxt.get(b2, 0.0) + p / 2
        alive = {}
        for b, p in nxt.items():
            if paired_e_value(b, n - b) >= 1 / alpha:
                crossed += p
            else:
                alive[b] = p
    assert 0 < crossed <= alpha


def test_one_way_pairs_decide_for_the_winner() -> None:
    assert sequential_decision(a_wins=0, b_wins=7, pairs=7).better == "B"
    assert sequential_decision(a_wins=7, b_wins=0, pairs=9).better == "A"
    undecided = sequential_decision(a_wins=0, b_wins=5, pairs=5)
    assert undecided.better is None and undecided.more_pairs == 2


def test_identical_arms_never_decide() -> None:
    for n in range(0, 200, 7):
        d = sequential_decision(a_wins=n, b_wins=n, pairs=2 * n)
        assert d.better is None and d.more_pairs is None


def test_bad_alpha_is_refused() -> None:
    with pytest.raises(ValueError):
        sequential_decision(1, 2, 3, alpha=1.5)
