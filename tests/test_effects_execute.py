"""Effect evidence through the one run path: a shell write no moment pattern knows is the moment.

Sim and the four real CLIs (pinned, scripted model server), through `execute` from the canary door
and the batch door (both confined in bubblewrap, the watcher outside it), and Claude Code's
unconfined canary (`--unconfined`: no sandbox, so its own permission layer decides). The write comes
first (no procedure read before it: `skip`, moment by effect) or in a later turn than the read
(`fired`, moment by effect); without the watcher both runs would score as if nothing was written.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.core.cases import find_case
from workbench.core.models import RunRecord
from workbench.core.moments import is_edit_attempt
from workbench.core.rescore import rescore
from workbench.hosts import REAL_HOSTS
from workbench.hosts.install import find_binary
from workbench.modelstub import parse_script
from workbench.runner.confine import bwrap_path
from workbench.runner.execute import execute
from workbench.runner.request import build_request

pytestmark = pytest.mark.bwrap  # runs go through a door confined (the default); see docs/testing.md

ROOT = Path(__file__).resolve().parent.parent
CASE = "docs-readme-section"
WRITE = ("python3 -c \"import os; os.write(os.open('{repo}/README.md', os.O_WRONLY | os.O_APPEND), b'x')\"")
"""Appends to README.md in a form no moment pattern recognises."""
READ = {"read": "{plugin}/skills/ops/workflows/docs.md"}
SCRIPTS = {
    "skip": {"steps": [{"calls": [{"shell": WRITE}]}, {"calls": [READ]}, {"say": "Done."}]},
    "fired": {"steps": [{"calls": [READ]}, {"calls": [{"shell": WRITE}]}, {"say": "Done."}]},
}
WRITER = {"skip": 0, "fired": 1}


def run(host: str, door: str, verdict: str, hosts_dir: Path | None, unconfined: bool = False) -> RunRecord:
    """One run in the system temp folder: Claude Code's sandbox fails to make its sockets under a long path."""
    if door == "batch" and bwrap_path() is None:
        pytest.skip("never: .ci/run installs bubblewrap")
    binary = None if hosts_dir is None else find_binary(host, hosts_dir)
    assert hosts_dir is None or binary is not None, f"{host} not installed"
    request = build_request(find_case(CASE, ROOT / "cases"), host, door=door,  # type: ignore[arg-type]
                            plugin=ROOT / "plugin", fixture=ROOT / "fixtures" / "base",
                            script=parse_script(SCRIPTS[verdict]), binary=binary, timeout=180.0,
                            unconfined=unconfined)
    return execute(request).record


def check(record: RunRecord, verdict: str) -> None:
    writer = WRITER[verdict]
    calls = record.calls
    assert record.valid and record.effects_watched == "watched", record.invalid_reason
    assert calls[writer].kind == "shell" and not is_edit_attempt(calls[writer]), "no pattern knows the write"
    if record.host == "claude" and record.condition == "unconfined":
        # acceptEdits without its sandbox asks before a shell write and refuses it: nothing changed
        assert calls[writer].status == "denied" and not any(c.effects for c in calls)
        assert record.moment_at is None and record.moment_basis is None
        return
    assert [(e.path, e.kind) for e in calls[writer].effects] == [("README.md", "modified")], \
        [(c.index, c.status, c.command or c.path, (c.result or "")[:120], c.effects) for c in calls]
    assert (record.overall, record.moment_at, record.moment_basis) == (verdict, writer, "effect")
    assert [(c.call, c.evidence, c.command) for c in record.evidence_conflicts] == [(writer, "effect", "no-action")]
    again = rescore(record)
    assert (again.verdict, again.moment_basis, again.evidence_conflicts) == (
        record.verdict, record.moment_basis, record.evidence_conflicts), "rescore from the record alone"


@pytest.mark.parametrize("verdict", ["skip", "fired"])
@pytest.mark.parametrize("door", ["canary", "batch"])
def test_an_unrecognised_shell_write_is_the_moment_on_sim(door: str, verdict: str) -> None:
    check(run("sim", door, verdict, None), verdict)


@pytest.mark.parametrize("verdict", ["skip", "fired"])
@pytest.mark.parametrize("door", ["canary", "batch"])
@pytest.mark.parametrize("host", REAL_HOSTS)
def test_an_unrecognised_shell_write_is_the_moment_on_every_real_host(host: str, door: str, verdict: str,
                                                                       installed_hosts: Path) -> None:
    check(run(host, door, verdict, installed_hosts), verdict)


@pytest.mark.parametrize("verdict", ["skip", "fired"])
def test_claude_unconfined_canary_refuses_the_shell_write_itself(verdict: str, installed_hosts: Path) -> None:
    check(run("claude", "canary", verdict, installed_hosts, unconfined=True), verdict)
