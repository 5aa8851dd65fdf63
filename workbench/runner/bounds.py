"""The caps on every number a user gives a run or a batch, checked before any memory is spent.

Every door (CLI, TUI, the tune door) sets runs up through `runner/doors.py`, which checks the form's
numbers first (`check_form`, before any case, script or arm is loaded); planning (`runner/batch.py`
`plan`/`check_plan`) checks the batch's size again (`check_batch`). A number below its floor or above
its cap is refused with one line naming the flag and the cap. The forms show `CAPS` next to their
fields (docs/confinement.md, "Bounds").
"""

from __future__ import annotations

import math
from types import MappingProxyType

from workbench.core.errors import InputError

MAX_RUNS = 1_000
"""Runs per (case, host, arm) cell (`--runs`, `--max-runs`)."""
MAX_JOBS = 64
"""Runs in flight at once (`--jobs`, selftest `--workers`)."""
MAX_PLANNED = 100_000
"""Planned runs in one batch: cases x hosts x arms x runs."""
MAX_SECONDS = 86_400.0
"""Seconds one run may take (`--timeout`, `--silence-timeout`): a day."""
MAX_INFRA_RETRIES = 10
"""Submissions of a run again after its worker or node died (`--infra-retries`)."""
MAX_BUDGET_USD = 1_000_000.0
"""A batch's dollar budget (`--budget-usd`)."""
MAX_BUDGET_TOKENS = 10**12
"""A batch's token budget (`--budget-tokens`)."""

CAPS = MappingProxyType({"--runs": MAX_RUNS, "--jobs": MAX_JOBS, "planned": MAX_PLANNED,
                         "--max-runs": MAX_RUNS, "--workers": MAX_JOBS, "--timeout": MAX_SECONDS,
                         "--silence-timeout": MAX_SECONDS, "--infra-retries": MAX_INFRA_RETRIES,
                         "--budget-usd": MAX_BUDGET_USD, "--budget-tokens": MAX_BUDGET_TOKENS})
"""Flag -> cap, for a form to show beside its field and the docs to list."""


def check_count(flag: str, value: int, *, least: int = 1) -> int:
    """VALUE, a whole number from LEAST to the flag's cap, else InputError (one line) naming FLAG and the cap."""
    cap = CAPS[flag]
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"must be a whole number from {least} to {cap:,}, not {value!r}", field=flag)
    if value < least:
        raise InputError(f"must be at least {least}, not {value} (cap {cap:,})", field=flag)
    if value > cap:
        raise InputError(f"{value:,} is above the cap of {cap:,}", field=flag)
    return value


def check_amount(flag: str, value: float) -> float:
    """VALUE, a finite number above 0 and at most the flag's cap, else InputError (one line) naming FLAG and the
    cap (`nan`, `inf`, 0 and negatives refused)."""
    cap = CAPS[flag]
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InputError(f"must be a finite number above 0 and at most {_shown(cap)}, not {value!r}",
                         field=flag)
    if value <= 0:
        raise InputError(f"must be above 0, not {_shown(value)} (cap {_shown(cap)})", field=flag)
    if value > cap:
        raise InputError(f"{_shown(value)} is above the cap of {_shown(cap)}", field=flag)
    return value


def _shown(value: float) -> str:
    """VALUE with thousands separators, without a fraction when it has none (`86,400`, `0.5`, `1e+23`)."""
    if abs(value) >= 1e15:
        return f"{value:g}"
    return f"{value:,.0f}" if value == int(value) else f"{value:,g}"


def check_timeouts(timeout: float, silence_timeout: float) -> None:
    """A run's two time limits, each above 0 and at most a day."""
    check_amount("--timeout", timeout)
    check_amount("--silence-timeout", silence_timeout)


def check_budget(usd: float | None, tokens: int | None) -> None:
    """A batch's budgets (None: none), each above 0 and within its cap."""
    if usd is not None:
        check_amount("--budget-usd", usd)
    if tokens is not None:
        check_count("--budget-tokens", tokens)


def check_batch(*, runs: int, jobs: int, cases: int, hosts: int, arms: int, runs_flag: str = "--runs") -> int:
    """The planned run count, or InputError (one line) for a number below 1 or above its cap; RUNS_FLAG names
    the flag the runs per cell came from (`--max-runs` for an until-decided batch)."""
    check_count(runs_flag, runs)
    check_count("--jobs", jobs)
    planned = cases * hosts * max(1, arms) * runs
    if planned > MAX_PLANNED:
        raise InputError(f"{cases} case(s) x {hosts} host(s) x {arms} arm(s) x {runs_flag} {runs} = {planned:,} "
                         f"planned runs, above the cap of {MAX_PLANNED:,}", field=runs_flag)
    return planned
