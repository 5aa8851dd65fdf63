"""A batch before it starts: the earlier records its forecast rests on, and the forecast itself.

History is every valid-or-not earlier record of the batch's own records file and of the workspace's
records folder (`*.jsonl`), read leniently (a bad line elsewhere must not block a launch). The plan
forecast is the runs still to do (a resume skips recorded ones); an until-decided batch is forecast at
its maximum, so the forecast is an upper bound.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from workbench.core.forecast import Forecast, PlannedRun, forecast
from workbench.core.models import RunRecord
from workbench.core.records import Loaded, load_file
from workbench.runner.batch import BatchConfig, plan, planned_run, todo


def load_history(files: Iterable[Path]) -> list[RunRecord]:
    """Records of FILES (folders: their `*.jsonl`), each record once, unreadable lines skipped."""
    seen: set[Path] = set()
    out = Loaded()
    for f in files:
        for path in sorted(f.glob("*.jsonl")) if f.is_dir() else [f]:
            path = path.resolve()
            if path in seen or not path.is_file():
                continue
            seen.add(path)
            try:
                load_file(path, lenient=True, into=out)
            except (OSError, ValueError):
                continue
    return out.records


def batch_forecast(cfg: BatchConfig, history: list[RunRecord]) -> Forecast:
    """The forecast of CFG's runs still to do, from HISTORY."""
    items = plan(cfg)
    if cfg.resume and cfg.record.is_file():
        own = Loaded(records=load_history([cfg.record]))
        items = todo(items, own, resume=True, retry_invalid=cfg.retry_invalid)
    return forecast([planned_run(p) for p in items], history)


def form_forecast(case_ids: list[str], hosts: list[str], runs: int, arms: int, model: str | None, scripted: bool,
                  history: list[RunRecord]) -> Forecast:
    """The forecast of a batch described by a form (the TUI's): every case x run x host x arm."""
    def recorded_model(host: str) -> str | None:
        return "scripted" if scripted else model or ("sim-policy" if host == "sim" else None)

    planned = [PlannedRun(h, recorded_model(h), c) for c in case_ids for _ in range(runs * arms) for h in hosts]
    return forecast(planned, history)
