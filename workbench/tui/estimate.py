"""A batch's cost and time before it starts, from the workspace's earlier records of the same hosts."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from workbench.core import stats
from workbench.core.errors import InputError
from workbench.core.records import load_files


@dataclass(frozen=True)
class Estimate:
    """Planned runs; mean seconds and dollars per run when earlier records tell (None: unknown)."""

    runs: int
    seconds_per_run: float | None
    cost_per_run: float | None
    jobs: int

    def text(self) -> str:
        wall = "unknown (no earlier runs of these hosts)" if self.seconds_per_run is None else \
            f"~{self.runs * self.seconds_per_run / max(1, self.jobs) / 60:.1f} min"
        cost = "unknown" if self.cost_per_run is None else f"~${self.runs * self.cost_per_run:.2f}"
        return f"{self.runs} runs · time {wall} at {self.jobs} at once · cost {cost}"


def _seconds(start: str | None, end: str | None) -> float | None:
    if not start or not end:
        return None
    try:
        return (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds()
    except ValueError:
        return None


def estimate(runs: int, hosts: list[str], jobs: int, files: list[Path]) -> Estimate:
    """Mean duration and cost of earlier valid runs on HOSTS in FILES, times the planned RUNS."""
    try:
        records = [r for r in load_files(files, lenient=True).records if r.host in hosts and r.valid]
    except InputError:
        records = []
    secs, _ = stats.mean_known(_seconds(r.started_at, r.finished_at) for r in records)
    cost, _ = stats.mean_known(r.usage.cost_usd for r in records)
    return Estimate(runs, secs, cost, jobs)
