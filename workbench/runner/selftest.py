"""The instrument self-test: scripted scenarios with a known verdict, run through each host, compared.

Each scenario in `canaries/*.json` is a case, a host-neutral script and the verdict the scorer
must give when a real host executes that script. A mismatch means a parser, the scorer or an
adapter is wrong, so the numbers of every batch on that host would be too.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from workbench.core.errors import InputError
from workbench.core.filesize import MAX_SCRIPT_BYTES, check_size
from workbench.core.models import FiredBy, Verdict
from workbench.modelstub.script import Script
from workbench.runner.doors import carried_case
from workbench.runner.execute import execute
from workbench.runner.proof import ProofFailed
from workbench.runner.request import build_request


class Scenario(BaseModel):
    """One self-test scenario: case, script and expected verdict (file `canaries/<name>.json`)."""

    model_config = ConfigDict(extra="forbid")

    name: str = ""
    description: str
    expect: Verdict = Field(description="The overall verdict; positives also need every file at it.")
    fired_by: FiredBy | None = Field(default=None, description="Who must have made the reads of a fired run "
                                                               "(main or subagent); None: not checked.")
    case: dict[str, Any]
    script: Script
    fault: Literal["no-output"] | None = Field(default=None,
                                               description="`no-output`: the model never answers (HTTP 529).")
    timeout: float = Field(default=120.0, description="Seconds before the run is stopped.")
    outside_files: dict[str, str] = Field(default_factory=dict)
    not_on: dict[str, str] = Field(default_factory=dict, description="Host -> why it cannot express this.")
    expect_on: dict[str, HostExpectation] = Field(
        default_factory=dict, description="Host -> a different verdict that host must give, and why.")


class HostExpectation(BaseModel):
    """A host that refuses what the script asks (measured), so the correct verdict differs."""

    model_config = ConfigDict(extra="forbid")

    expect: Verdict
    why: str


def load_scenarios(folder: Path) -> list[Scenario]:
    """Every `*.json` scenario in FOLDER, sorted by name."""
    out = []
    for path in sorted(folder.glob("*.json")):
        check_size(path, MAX_SCRIPT_BYTES, "the scenario")  # by stat, before a byte is read
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise InputError(f"cannot read scenario: {exc}", file=str(path)) from None
        try:
            scenario = Scenario.model_validate({"name": path.stem, **data})
        except ValidationError as exc:
            err = exc.errors()[0]
            raise InputError(str(err["msg"]), file=str(path),
                             field=".".join(str(p) for p in err["loc"]) or None) from None
        carried_case(data, path.stem, str(path))
        out.append(scenario)
    return out


@dataclass
class Outcome:
    """One scenario on one host: expected, got, and whether that is a pass (None: not applicable)."""

    scenario: str
    host: str
    expected: str
    got: str
    ok: bool | None
    detail: str = ""


@dataclass
class Report:
    """All outcomes of a self-test."""

    outcomes: list[Outcome] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return all(o.ok is not False for o in self.outcomes)


def check(scenario: Scenario, host: str, *, plugin: Path, binary: Path | None = None,
          unconfined: bool = False) -> Outcome:
    """Run SCENARIO on HOST (confined unless UNCONFINED) and compare its verdicts with the expected one."""
    if host in scenario.not_on:
        return Outcome(scenario.name, host, scenario.expect, f"n/a: {scenario.not_on[host]}", None)
    case = carried_case({"case": scenario.case, "script": {}}, scenario.name)
    assert case is not None
    special = scenario.expect_on.get(host)
    expect: Verdict = special.expect if special else scenario.expect
    try:
        req = build_request(case, host, door="selftest", plugin=plugin, script=scenario.script,
                            no_output=scenario.fault == "no-output", timeout=scenario.timeout,
                            outside_files=scenario.outside_files, binary=binary, unconfined=unconfined)
        record = execute(req).record
    except (InputError, ProofFailed) as exc:
        return Outcome(scenario.name, host, expect, "error", False, str(exc))
    got = record.overall or "?"
    files_ok = expect == "no-output" or case.kind == "negative" or all(v == expect for v in record.verdict.values())
    by = scenario.fired_by if special is None else None
    ok = got == expect and files_ok and (by is None or record.fired_by == by)
    if expect == "no-output":
        ok = ok and not record.valid
    detail = "" if record.valid else f"invalid: {record.invalid_reason}"
    if not files_ok:
        detail = ", ".join(f"{k}={v}" for k, v in record.verdict.items())
    if special:
        detail = (detail + "; " if detail else "") + special.why
    if by is not None:  # who fired it is part of the verdict: `fired by subagent`
        return Outcome(scenario.name, host, f"{expect} by {by}",
                       f"{got} by {record.fired_by}" if record.fired_by else got, ok, detail)
    return Outcome(scenario.name, host, expect, got, ok, detail)


def run_selftest(scenarios: Iterable[Scenario], hosts: Iterable[str], *, plugin: Path, workers: int = 4,
                 binaries: dict[str, Path] | None = None,
                 on_outcome: Callable[[Outcome], None] | None = None, unconfined: bool = False) -> Report:
    """Every scenario on every host; hosts and scenarios run in parallel threads (each run is isolated)."""
    jobs = [(s, h) for h in hosts for s in scenarios]
    report = Report()

    def one(job: tuple[Scenario, str]) -> Outcome:
        scenario, host = job
        outcome = check(scenario, host, plugin=plugin, binary=(binaries or {}).get(host), unconfined=unconfined)
        if on_outcome is not None:
            on_outcome(outcome)
        return outcome

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        report.outcomes = list(pool.map(one, jobs))
    return report
