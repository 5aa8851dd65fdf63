"""Validation of the anytime-valid paired test by simulation (not a timed test): prints a markdown
report for docs/benchmarks.md.

Each simulated batch is a sequence of pairs (arm A's run, arm B's run of the same case), each run a
hit with its arm's rate. The sequential test (`core.stats.sequential_decision`) is checked after
EVERY pair and stops at the first decision or at max N pairs; the fixed-N exact McNemar test is
judged once at N, and, to show why peeking needs the sequential test, also after every pair.

1. Under H0 (equal rates 0.2, 0.5, 0.8): the false-positive rate of each procedure (target <= alpha).
2. Under the published effect sizes (0/5 -> 5/5, 2/5 -> 5/5, 3/5 vs 5/5) and a smaller 60% vs 80%:
   power at max N and the mean number of pairs the sequential test used.

Usage: python bench/decide.py [--batches 10000] [--max-pairs 20] [--alpha 0.05] [--out FILE]
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from workbench.core.stats import SEQUENTIAL_PRIOR, mcnemar_exact, paired_e_value

H0_RATES = (0.2, 0.5, 0.8)
EFFECTS = (("0/5 -> 5/5", 0.0, 1.0), ("2/5 -> 5/5", 0.4, 1.0), ("3/5 vs 5/5", 0.6, 1.0), ("60% vs 80%", 0.6, 0.8))


@dataclass
class Outcome:
    """How the procedures did over many simulated batches of one setting."""

    sequential: float
    """Share of batches the sequential test decided (any direction under H0, B under an effect)."""
    sequential_pairs: float
    """Mean pairs the sequential test used (stopping at its decision or at max N)."""
    fixed: float
    """Share decided by the exact McNemar test at N."""
    fixed_peeking: float
    """Share where the exact McNemar p fell below alpha after ANY pair (peeking, invalid)."""


def simulate(rate_a: float, rate_b: float, batches: int, max_pairs: int, alpha: float, seed: int) -> Outcome:
    """Run BATCHES simulated paired batches of at most MAX_PAIRS pairs."""
    rng = np.random.default_rng(seed)
    hits_a = rng.random((batches, max_pairs)) < rate_a
    hits_b = rng.random((batches, max_pairs)) < rate_b
    a_wins = np.cumsum(hits_a & ~hits_b, axis=1)
    b_wins = np.cumsum(hits_b & ~hits_a, axis=1)
    want_b = rate_b > rate_a
    seq = seq_pairs = fixed = peek = 0
    for row_a, row_b in zip(a_wins, b_wins, strict=True):
        stopped = next((i for i in range(max_pairs) if _decides(int(row_a[i]), int(row_b[i]), alpha)), None)
        if stopped is not None and (not want_b or row_b[stopped] > row_a[stopped]):
            seq += 1
        seq_pairs += (stopped + 1) if stopped is not None else max_pairs
        final = _mcnemar(int(row_a[-1]), int(row_b[-1])) < alpha
        fixed += final and (not want_b or row_b[-1] > row_a[-1])
        peek += any(_mcnemar(int(row_a[i]), int(row_b[i])) < alpha for i in range(max_pairs))
    return Outcome(seq / batches, seq_pairs / batches, fixed / batches, peek / batches)


@cache
def _decides(a: int, b: int, alpha: float) -> bool:
    return paired_e_value(b, a, SEQUENTIAL_PRIOR) >= 1 / alpha


@cache
def _mcnemar(a: int, b: int) -> float:
    return mcnemar_exact(a, b)


def report(batches: int, max_pairs: int, alpha: float) -> str:
    """The markdown tables."""
    out = [f"Paired sequential test (e-process, Beta({SEQUENTIAL_PRIOR}, {SEQUENTIAL_PRIOR}) mixture), "
           f"{batches:,} simulated batches per row, checked after every pair, max N = {max_pairs} pairs, "
           f"alpha = {alpha}.", "",
           "Under H0 (both arms at the same rate): false-positive rate.", "",
           "| rate | sequential (every pair) | exact McNemar at N | exact McNemar, peeking every pair |",
           "|---|---|---|---|"]
    for i, rate in enumerate(H0_RATES):
        o = simulate(rate, rate, batches, max_pairs, alpha, seed=i)
        out.append(f"| {rate} | {o.sequential:.4f} | {o.fixed:.4f} | {o.fixed_peeking:.4f} |")
    out += ["", "Under an effect (B better): power at max N and mean pairs used.", "",
            "| effect (A -> B) | sequential power | sequential mean pairs | exact McNemar power at N |",
            "|---|---|---|---|"]
    for i, (label, ra, rb) in enumerate(EFFECTS):
        o = simulate(ra, rb, batches, max_pairs, alpha, seed=100 + i)
        out.append(f"| {label} | {o.sequential:.4f} | {o.sequential_pairs:.1f} | {o.fixed:.4f} |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=10_000)
    parser.add_argument("--max-pairs", type=int, default=20)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    text = report(args.batches, args.max_pairs, args.alpha)
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
