"""Tiers: named batch presets in workbench.toml (`[tiers.NAME]`), with three built in.

- `smoke`: 1 run per case on every host of the workspace;
- `decide`: until decided (alpha 0.05) or 20 runs per cell;
- `publish`: a fixed N of at least 5 on every host, every negative case included.

A workspace's `[tiers.NAME]` table overrides the built-in tier of that name key by key (or defines a
new one); the merged tier is validated, so `[tiers.publish] runs = 3` is an error naming the line.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator


class Tier(BaseModel):
    """One batch preset."""

    model_config = ConfigDict(extra="forbid")

    description: str = ""
    runs: int = Field(default=1, ge=1, description="Fixed runs per case, host and arm (until-decided: ignored).")
    min_runs: int | None = Field(default=None, ge=1, description="Least `runs` the tier accepts (publish: 5).")
    until_decided: bool = Field(default=False, description="Stop each host/row comparison once decided.")
    alpha: float = Field(default=0.05, gt=0, lt=1, description="until-decided: error level.")
    max_runs: int = Field(default=20, ge=1, description="until-decided: runs per cell at most.")
    hosts: list[str] | None = Field(default=None, description="Hosts (default: every host of [defaults] hosts).")
    negatives: bool = Field(default=False, description="Add every negative case to the selection.")

    @model_validator(mode="after")
    def _enough_runs(self) -> Tier:
        if self.min_runs is not None and not self.until_decided and self.runs < self.min_runs:
            raise ValueError(f"runs = {self.runs} is below this tier's min_runs = {self.min_runs}")
        return self


BUILTIN: dict[str, dict[str, Any]] = {
    "smoke": {"description": "1 run per case, every host", "runs": 1},
    "decide": {"description": "until decided (alpha 0.05) or 20 runs", "until_decided": True, "alpha": 0.05,
               "max_runs": 20},
    "publish": {"description": "fixed N >= 5, every host, negatives on every host", "runs": 5, "min_runs": 5,
                "negatives": True},
}


def merged_tiers(raw: Any) -> Any:
    """The built-in tiers with the workspace's `[tiers.*]` tables laid over them, key by key."""
    if not isinstance(raw, dict):
        return raw
    out: dict[str, Any] = {name: dict(values) for name, values in BUILTIN.items()}
    for name, values in raw.items():
        out[name] = {**out.get(name, {}), **values} if isinstance(values, dict) else values
    return out
