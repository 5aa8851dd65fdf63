"""Delegation through the canary door (`workbench canary`, confined) with the REAL Claude Code,
OpenCode, Codex and Gemini CLI driven by the scripted model server, and with the sim: who read the
procedure is in the record, as the script says (the subagent; the main agent beside a delegation;
nobody). OpenCode's, Codex's and Gemini CLI's streams omit the child's calls: they come from the host's
session store in the run's HOME (OpenCode's database, Codex's child rollout, Gemini's subagent chat
file), read as the sessions door reads them, and the sessions door given that HOME agrees on who
issued each call."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from capture_scripts import delegation as capture

from workbench.cli import main
from workbench.core.models import Call, RunRecord
from workbench.core.records import load_file
from workbench.hosts.install import ENV_DIR

pytestmark = pytest.mark.bwrap

ROOT = Path(__file__).resolve().parent.parent


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


def child_reads(calls: list[Call]) -> set[str]:
    """Names of the files a subagent read (Codex reads with `cat`)."""
    names = set()
    for c in calls:
        if c.read_by == "main":
            continue
        if c.kind == "read" and c.path:
            names.add(Path(c.path).name)
        elif c.kind == "shell" and (c.command or "").startswith("cat "):
            names.add(Path((c.command or "").split()[-1]).name)
    return names


@pytest.mark.parametrize("scenario", sorted(capture.SCRIPTS))
@pytest.mark.parametrize("host", ["claude", "opencode", "codex", "gemini"])
def test_delegation_is_attributed_through_the_canary_door(host: str, scenario: str, demo: Path, tmp_path: Path,
                                                          installed_hosts: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv(ENV_DIR, str(installed_hosts))
    got = canary(host, scenario, tmp_path, capsys)
    assert (got.overall, got.fired_by) == capture.TRUTH[scenario]
    assert child_reads(got.calls) == {"commit.md" if scenario == "subagent-reads" else "app.py"}
    if host == "gemini":  # the model server ends its subagent with complete_task
        assert [c.tool for c in got.calls if c.read_by != "main"][-1] == "complete_task"
    if host == "claude":  # it names the type it ran; the other hosts' children by their session/thread
        assert {c.read_by for c in got.calls} == {"main", "subagent:general-purpose"}


def test_a_codex_child_read_after_the_moment_is_too_late(demo: Path, tmp_path: Path, installed_hosts: Path,
                                                         monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """The main agent spawns the reader and commits in the same response: Codex's child starts only
    after, so its read of the procedure comes after the moment and the run is a skip."""
    monkeypatch.setenv(ENV_DIR, str(installed_hosts))
    script = {"steps": [{"calls": [capture.delegate(capture.PROCEDURE, "Commit with a scoped message."),
                                   capture.EDIT, capture.COMMIT]}, {"say": "Committed."}]}
    (tmp_path / "late.json").write_text(json.dumps(script), encoding="utf-8")
    records = tmp_path / "records.jsonl"
    assert main(["canary", capture.CASE, "--host", "codex", "--script", str(tmp_path / "late.json"), "--record",
                 str(records), "--json"]) == 0, capsys.readouterr().out
    [got] = load_file(records).records
    assert got.valid and (got.overall, got.fired_by) == ("skip", None)
    assert got.moment_at is not None and (got.calls[got.moment_at].command or "").startswith("git commit")
    assert got.required_read_at[capture.REQUIRED] == got.moment_at + 1 == got.tool_calls - 1  # the child's, after it
    assert {c.read_by for c in got.calls} == {"main"}  # the record keeps the calls up to the moment


@pytest.mark.parametrize("scenario", sorted(capture.SCRIPTS))
@pytest.mark.parametrize("host", ["codex"])  # OpenCode's: on its captures (tests/test_delegation_doors.py)
def test_the_sessions_door_agrees_with_the_canary_door_on_read_by(host: str, scenario: str, tmp_path: Path,
                                                                   installed_hosts: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    _, result = capture.canary(host, scenario, installed_hosts, tmp_path)
    try:
        out_file = tmp_path / "sessions.jsonl"
        code = main(["sessions", "--host", host, "--home", str(result.run_dir / "home"), "--require",
                     capture.REQUIRED, "--moment", "commit", "--json", "--record", str(out_file)])
        capsys.readouterr()
        assert code == 0
        [session] = load_file(out_file).records
        canary_calls = [(c.tool, c.kind, c.read_by) for c in result.record.calls]
        assert [(c.tool, c.kind, c.read_by) for c in session.calls] == canary_calls
        assert any(reader != "main" for *_, reader in canary_calls)
        assert (session.overall, session.fired_by) == (result.record.overall, result.record.fired_by) == \
            capture.TRUTH[scenario]
    finally:
        shutil.rmtree(result.run_dir, ignore_errors=True)


@pytest.mark.parametrize("scenario", sorted(capture.SCRIPTS))
def test_sim_delegation_is_attributed_through_the_canary_door(scenario: str, demo: Path, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    got = canary("sim", scenario, tmp_path, capsys)
    assert (got.overall, got.fired_by) == capture.TRUTH[scenario]
