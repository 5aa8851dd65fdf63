"""Validity gates in every canary record, per host: version, served model, entry skill offered, skill error.

One canary of a demo case per host (sim and the four pinned CLIs against the scripted model
server): the script loads the entry skill, reads the required procedure, then edits. Each gate
must be filled from what the host really did, so a host that hid the skill, failed to load it
or wrote nothing shows up here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.core.cases import find_case
from workbench.core.models import RunRecord
from workbench.hosts import REAL_HOSTS
from workbench.hosts.install import find_binary, pin
from workbench.modelstub import Script, parse_script
from workbench.runner.execute import execute
from workbench.runner.request import build_request

pytestmark = pytest.mark.bwrap  # runs go through a door confined (the default); see docs/testing.md

ROOT = Path(__file__).resolve().parent.parent
CASE = find_case("docs-readme-section", ROOT / "cases")
SCRIPT = parse_script({"steps": [
    {"calls": [{"skill": "ops"}]},
    {"calls": [{"read": "{plugin}/skills/ops/workflows/docs.md"}]},
    {"calls": [{"edit": {"path": "{repo}/README.md", "old": "# greeter", "new": "# greeter\n\nTests: pytest."}}]},
    {"say": "Done."},
]})
SERVED = {"sim": "sim-script", "codex": "gpt-5.5", "gemini": "gemini-2.5-pro", "opencode": "scripted"}
"""The model each host reports; Claude Code reports whatever its own model alias resolves to."""


def canary(host: str, hosts_dir: Path | None, script: Script = SCRIPT, no_output_fault: bool = False) -> RunRecord:
    binary = find_binary(host, hosts_dir) if hosts_dir else None
    req = build_request(CASE, host, door="canary", plugin=ROOT / "plugin", fixture=ROOT / "fixtures" / "base",
                        script=script, binary=binary, timeout=120.0, no_output=no_output_fault)
    return execute(req).record


def check_gates(host: str, record: RunRecord) -> None:
    expected_version = "sim-" if host == "sim" else pin(host)[1]
    assert record.host_version and record.host_version.startswith(expected_version)
    assert record.served_model and record.served_model == SERVED.get(host, record.served_model)
    assert record.entry and record.entry.skill == "ops" and record.entry.offered is True, record.entry
    assert record.entry and any(s.split(":")[-1] == "ops" for s in record.entry.offered_skills)
    assert record.entry and record.entry.skill_error is None
    assert record.calls[0].kind == "skill" or "SKILL.md" in (record.calls[0].command or "")
    assert record.calls[0].status == "ok" and record.entry_loaded_at == 0
    assert (record.valid, record.invalid_reason, record.overall) == (True, None, "fired")
    assert record.usage.cost_usd is None or record.usage.cost_usd > 0  # unknown is null, never 0


def test_sim_gates() -> None:
    check_gates("sim", canary("sim", None))


@pytest.mark.parametrize("host", [h for h in REAL_HOSTS if h != "grok"])  # Grok CLI has no skills
def test_real_host_gates(host: str, installed_hosts: Path) -> None:
    check_gates(host, canary(host, installed_hosts))


def test_a_failed_skill_load_and_no_output_are_gated() -> None:
    missing = parse_script({"steps": [{"calls": [{"skill": "no-such-skill"}]}, {"say": "Done."}]})
    record = canary("sim", None, script=missing)
    assert record.entry and record.entry.skill_error and record.entry.offered is True and record.overall == "skip-noaction"
    silent = canary("sim", None, no_output_fault=True)
    assert (silent.valid, silent.invalid_reason, silent.overall) == (False, "no-output", "no-output")
    assert silent.host_version and silent.served_model and silent.entry is not None and silent.entry.skill_error is None
