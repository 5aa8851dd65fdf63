"""A batch's cost and time before it starts, from the workspace's earlier records of the same hosts."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

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


@dataclass
class HostTimes:
    """One host's earlier valid runs: known durations and costs, summed (the estimate's inputs)."""

    seconds: float = 0.0
    timed: int = 0
    cost: float = 0.0
    costed: int = 0


def host_times(files: list[Path]) -> dict[str, HostTimes]:
    """Per host, the summed durations and costs of the valid runs in FILES (read once, in a worker)."""
    try:
        records = [r for r in load_files(files, lenient=True).records if r.valid]
    except InputError:
        records = []
    out: dict[str, HostTimes] = {}
    for r in records:
        t = out.setdefault(r.host, HostTimes())
        secs = _seconds(r.started_at, r.finished_at)
        if secs is not None:
            t.seconds, t.timed = t.seconds + secs, t.timed + 1
        if r.usage.cost_usd is not None:
            t.cost, t.costed = t.cost + r.usage.cost_usd, t.costed + 1
    return out


def estimate_from(runs: int, hosts: list[str], jobs: int, times: dict[str, HostTimes]) -> Estimate:
    """Mean duration and cost of the earlier valid runs on HOSTS, times the planned RUNS (no I/O:
    a keystroke's estimate)."""
    known = [times[h] for h in hosts if h in times]
    timed, costed = sum(t.timed for t in known), sum(t.costed for t in known)
    secs = sum(t.seconds for t in known) / timed if timed else None
    cost = sum(t.cost for t in known) / costed if costed else None
    return Estimate(runs, secs, cost, jobs)


def estimate(runs: int, hosts: list[str], jobs: int, files: list[Path]) -> Estimate:
    """Mean duration and cost of earlier valid runs on HOSTS in FILES, times the planned RUNS."""
    return estimate_from(runs, hosts, jobs, host_times(files))
