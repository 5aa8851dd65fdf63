"""Delegation read back from what the real hosts wrote, by both doors that read it (the run's own
reading, as the canary and batch doors do, and the sessions door): mostly Codex 0.171.0.

The captures (`scripts/capture_delegation.py`, tests/data/streams/codex-delegated-*/) are confined
canaries of the demo workspace driven by the scripted model server: the main agent spawns a
subagent (`spawn_agent`) that reads the procedure; one that reads src/app.py while the main agent
reads the procedure; one that reads only src/app.py. `codex exec --json` prints the spawn but none of
the child's turns: those are in the child's own rollout, whose `session_meta` names the run's thread.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from capture_scripts import delegation as capture

from workbench.cli import main
from workbench.core.models import Call, ScoreSpec
from workbench.core.parsers import parse_lines
from workbench.core.records import load_file
from workbench.core.scoring import score
from workbench.runner.children import child_calls
from workbench.runner.hostrun import _rollout
from workbench.runner.sessions import rollout_threads

ROOT = Path(__file__).resolve().parent.parent
STREAMS = ROOT / "tests" / "data" / "streams"

SPEC = ScoreSpec(kind="positive", required=[capture.REQUIRED], moment="commit")
SCENARIOS = sorted(capture.SCRIPTS)


def folder(scenario: str) -> Path:
    return STREAMS / f"codex-delegated-{scenario}"


def thread_of(run_dir: Path) -> str:
    first = (run_dir / "stdout.jsonl").read_text(encoding="utf-8").splitlines()[0]
    return str(json.loads(first)["thread_id"])


def rollouts(run_dir: Path) -> dict[str, Path]:
    """Thread id -> rollout file of a captured run."""
    found = sorted((run_dir / "home" / ".codex" / "sessions").rglob("rollout-*.jsonl"))
    return {str(rollout_threads(p.read_text(encoding="utf-8").splitlines()[0])[0]): p for p in found}


def run_calls(run_dir: Path) -> tuple[list[Call], list[Call] | None]:
    """The calls the canary door reads from a run folder: the stream with the run's own rollout, then
    with its subagents' calls merged in (`hostrun.run_host`)."""
    found = _rollout(run_dir, run_dir / "home" / ".codex", thread_of(run_dir))
    assert found is not None
    lines = (run_dir / "stdout.jsonl").read_text(encoding="utf-8").splitlines()
    parsed = parse_lines("codex", lines, found[1])
    return parsed.calls, child_calls("codex", parsed, run_dir / "home", found[0])


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_child_rollout_gives_the_subagent_calls(scenario: str) -> None:
    stream, merged = run_calls(folder(scenario))
    assert [c.tool for c in stream][0] == "spawn_agent" and stream[0].kind == "agent" and stream[0].status == "ok"
    assert {c.read_by for c in stream} == {"main"}  # neither --json nor the run's rollout has the child's turns
    assert merged is not None
    [child] = [t for t, p in rollouts(folder(scenario)).items() if t != thread_of(folder(scenario))]
    by_child = [c.command for c in merged if c.read_by == f"subagent:{child}"]
    read = f"plugin/skills/ops/{capture.REQUIRED}" if scenario == "subagent-reads" else "repo/src/app.py"
    assert by_child == [f"cat /tmp/run/{read}"]
    assert [c.tool for c in merged if c.read_by == "main"] == [c.tool for c in stream]
    result = score(SPEC, merged)
    assert (result.overall, result.fired_by) == capture.TRUTH[scenario]
    if scenario == "subagent-reads":
        assert score(SPEC, stream).overall == "skip"  # the stream alone would miss the subagent's read


def test_the_child_read_counts_before_the_moment_it_preceded() -> None:
    """The subagent's read was issued after the spawn and before the main agent's commit: it is in
    another, earlier turn than the moment's call."""
    _, merged = run_calls(folder("subagent-reads"))
    assert merged is not None
    read = next(c for c in merged if c.read_by != "main")
    commit = next(c for c in merged if c.command and c.command.startswith("git commit"))
    spawn = next(c for c in merged if c.kind == "agent")
    assert spawn.index < read.index < commit.index and len({spawn.turn, read.turn, commit.turn}) == 3


def test_the_run_s_rollout_is_its_thread_s_even_when_a_child_is_newer(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    shutil.copytree(folder("subagent-reads"), run_dir)
    thread = thread_of(run_dir)
    files = rollouts(run_dir)
    [child] = [p for t, p in files.items() if t != thread]
    for newest in (child, files[thread]):  # the child written last, then the parent
        os.utime(newest, (2_000_000_000, 2_000_000_000))
        found = _rollout(run_dir, run_dir / "home" / ".codex", thread)
        assert found is not None and found[0] == files[thread]
    os.utime(child, (2_100_000_000, 2_100_000_000))
    found = _rollout(run_dir, run_dir / "home" / ".codex")  # no thread id: the newest main rollout
    assert found is not None and found[0] == files[thread]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_sessions_door_agrees_with_the_run_on_read_by(scenario: str, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    _, merged = run_calls(folder(scenario))
    assert merged is not None
    out_file = tmp_path / "sessions.jsonl"
    code = main(["sessions", "--host", "codex", "--home", str(folder(scenario) / "home"), "--require",
                 capture.REQUIRED, "--moment", "commit", "--json", "--record", str(out_file)])
    capsys.readouterr()
    assert code == 0
    [record] = load_file(out_file).records
    assert [(c.tool, c.kind, c.read_by) for c in record.calls] == [(c.tool, c.kind, c.read_by) for c in merged]
    assert (record.overall, record.fired_by) == capture.TRUTH[scenario]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_sessions_door_agrees_with_an_opencode_run_on_read_by(scenario: str, tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """OpenCode's captures (its stream and session database): the run's merged calls and the sessions
    door's record name the same issuer for every call."""
    run_dir = STREAMS / f"opencode-delegated-{scenario}"
    parsed = parse_lines("opencode", (run_dir / "stdout.jsonl").read_text(encoding="utf-8").splitlines())
    merged = child_calls("opencode", parsed, run_dir / "home")
    assert merged is not None
    out_file = tmp_path / "sessions.jsonl"
    code = main(["sessions", "--host", "opencode", "--home", str(run_dir / "home"), "--require", capture.REQUIRED,
                 "--moment", "commit", "--json", "--record", str(out_file)])
    capsys.readouterr()
    assert code == 0
    [record] = load_file(out_file).records
    assert [(c.tool, c.kind, c.read_by) for c in record.calls] == [(c.tool, c.kind, c.read_by) for c in merged]
    assert (record.overall, record.fired_by) == capture.TRUTH[scenario]
