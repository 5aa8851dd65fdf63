"""The caps on every number a user gives a batch, checked before any memory is spent.

Every door (CLI, TUI, the tune door) plans through `runner/batch.py` `plan`/`check_plan`, which call
`check_batch` first: a request above a cap is refused with one line naming the field and the cap.
The forms show `CAPS` next to their fields (docs/confinement.md, "Bounds").
"""

from __future__ import annotations

from types import MappingProxyType

from workbench.core.errors import InputError

MAX_RUNS = 1_000
"""Runs per (case, host, arm) cell."""
MAX_JOBS = 64
"""Runs in flight at once."""
MAX_PLANNED = 100_000
"""Planned runs in one batch: cases x hosts x arms x runs."""

CAPS = MappingProxyType({"--runs": MAX_RUNS, "--jobs": MAX_JOBS, "planned": MAX_PLANNED})
"""Field -> cap, for a form to show beside its field."""


def check_batch(*, runs: int, jobs: int, cases: int, hosts: int, arms: int) -> int:
    """The planned run count, or InputError (one line) for a number below 1 or above its cap."""
    for name, value in (("--runs", runs), ("--jobs", jobs)):
        if value < 1:
            raise InputError(f"{name} must be at least 1, not {value}", field=name)
        if value > CAPS[name]:
            raise InputError(f"{name} {value} is above the cap of {CAPS[name]:,}", field=name)
    planned = cases * hosts * max(1, arms) * runs
    if planned > MAX_PLANNED:
        raise InputError(f"{cases} case(s) x {hosts} host(s) x {arms} arm(s) x {runs} run(s) = {planned:,} "
                         f"planned runs, above the cap of {MAX_PLANNED:,}", field="--runs")
    return planned
