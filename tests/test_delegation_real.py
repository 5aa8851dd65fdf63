"""Delegation through the canary door (`workbench canary`, confined) with the REAL Claude Code,
OpenCode and Gemini CLI driven by the scripted model server, and with the sim: who read the procedure
is in the record, as the script says (the subagent; the main agent beside a delegation; nobody).
OpenCode's and Gemini CLI's streams omit the child's calls: they come from the host's own session
store in the run's HOME (OpenCode's database, Gemini's subagent chat file)."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

from workbench.cli import main
from workbench.core.models import RunRecord
from workbench.core.records import load_file
from workbench.hosts.install import ENV_DIR

pytestmark = pytest.mark.bwrap

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("capture_delegation", ROOT / "scripts" / "capture_delegation.py")
assert _spec is not None and _spec.loader is not None
capture = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(capture)


@pytest.fixture
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The demo workspace copied to TMP and made the working folder: the canary's guard watches it, not
    this checkout (whose shared git other work may change meanwhile)."""
    ws = tmp_path / "ws"
    ws.mkdir()
    shutil.copy(ROOT / "workbench.toml", ws / "workbench.toml")
    for folder in ("plugin", "cases", "fixtures"):
        shutil.copytree(ROOT / folder, ws / folder)
    monkeypatch.chdir(ws)
    return ws


def canary(host: str, scenario: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> RunRecord:
    script = tmp_path / f"{scenario}.json"
    script.write_text(json.dumps(capture.script_for(host, scenario)), encoding="utf-8")
    records = tmp_path / "records.jsonl"
    code = main(["canary", capture.CASE, "--host", host, "--script", str(script), "--record", str(records),
                 "--json"])
    out = capsys.readouterr().out
    assert code == 0, out
    [record] = load_file(records).records
    assert record.condition == "canary" and record.valid, record.invalid_reason
    assert json.loads(out)["fired_by"] == record.fired_by
    return record


@pytest.mark.parametrize("scenario", sorted(capture.SCRIPTS))
@pytest.mark.parametrize("host", ["claude", "opencode", "gemini"])
def test_delegation_is_attributed_through_the_canary_door(host: str, scenario: str, demo: Path, tmp_path: Path,
                                                          installed_hosts: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv(ENV_DIR, str(installed_hosts))
    got = canary(host, scenario, tmp_path, capsys)
    assert (got.overall, got.fired_by) == capture.TRUTH[scenario]
    child = {Path(c.path).name for c in got.calls if c.kind == "read" and c.path and c.read_by != "main"}
    assert child == {"commit.md" if scenario == "subagent-reads" else "app.py"}
    if host == "gemini":  # the model server ends its subagent with complete_task
        assert [c.tool for c in got.calls if c.read_by != "main"][-1] == "complete_task"
    if host == "claude":  # it names the type it ran; OpenCode's and Gemini's child is named by its session
        assert {c.read_by for c in got.calls} == {"main", "subagent:general-purpose"}


@pytest.mark.parametrize("scenario", sorted(capture.SCRIPTS))
def test_sim_delegation_is_attributed_through_the_canary_door(scenario: str, demo: Path, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    got = canary("sim", scenario, tmp_path, capsys)
    assert (got.overall, got.fired_by) == capture.TRUTH[scenario]
