"""Rates with their 95% Wilson intervals drawn as one line of text (tables and the compare plot)."""

from __future__ import annotations

from workbench.core import stats


def interval_bar(hits: int, n: int, width: int = 24) -> str:
    """`├──●───┤` over a 0..100% scale of WIDTH cells; `·` outside the interval; empty when n is 0."""
    ci = stats.wilson95(hits, n)
    if ci is None:
        return " " * width
    low, high = (min(width - 1, int(v * (width - 1) + 0.5)) for v in ci)
    point = min(width - 1, int(hits / n * (width - 1) + 0.5))
    cells = ["·"] * width
    for i in range(low, high + 1):
        cells[i] = "─"
    cells[low], cells[high] = "├", "┤"
    cells[point] = "●"
    return "".join(cells)


def rate_text(hits: int, n: int, ci: bool = True) -> str:
    """`7/10 70% [40–89]` (`7/10 70%` without CI)."""
    interval = stats.wilson95(hits, n)
    if interval is None:
        return f"{hits}/{n}"
    if not ci:
        return f"{hits}/{n} {hits / n:4.0%}"
    return f"{hits}/{n} {hits / n:4.0%} [{interval[0] * 100:.0f}–{interval[1] * 100:.0f}]"
