"""`read_by`: which agent issued each call (main or a delegated subagent), and `fired_by` on the score.

The streams are real: Claude Code 2.1.197, OpenCode 1.18.33 (with its session database), Gemini CLI
0.61.0 (with its chat files) and the sim
driven by scripts whose main agent delegates (`scripts/capture_delegation.py`,
tests/data/streams/README.md): the subagent reads the procedure; the subagent reads src/app.py and
the main agent the procedure; only src/app.py is read.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from capture_scripts import delegation as capture

from workbench.core.models import Call, RunRecord, ScoreSpec
from workbench.core.parsers import parse_lines
from workbench.core.rescore import rescore
from workbench.core.scoring import score

ROOT = Path(__file__).resolve().parent.parent
STREAMS = ROOT / "tests" / "data" / "streams"

SPEC = ScoreSpec(kind="positive", required=[capture.REQUIRED], moment="commit")
CHILD = "subagent:general-purpose"
SCENARIOS = sorted(capture.SCRIPTS)


def calls_of(host: str, scenario: str) -> list[Call]:
    lines = (STREAMS / f"{host}-delegated-{scenario}.jsonl").read_text(encoding="utf-8").splitlines()
    return parse_lines(host, lines).calls


def who(calls: list[Call]) -> list[tuple[str, str, str]]:
    """(tool, file name or command, reader) of each call."""
    return [(c.tool, Path(c.path).name if c.path else (c.command or ""), c.read_by) for c in calls]


@pytest.mark.parametrize("host", ["claude", "sim"])
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_captured_run_scores_its_ground_truth(host: str, scenario: str) -> None:
    result = score(SPEC, calls_of(host, scenario))
    assert (result.overall, result.fired_by) == capture.TRUTH[scenario]


def test_the_subagent_calls_carry_their_reader_and_the_main_calls_main() -> None:
    commit = "git commit -am 'app: fix greeting typo'"
    # Claude Code's Edit refuses an unread file: the model server has the main agent read src/app.py first
    assert who(calls_of("claude", "subagent-reads")) == [
        ("Agent", "", "main"), ("Read", "commit.md", CHILD), ("Read", "app.py", "main"), ("Edit", "app.py", "main"),
        ("Bash", commit, "main")]
    assert who(calls_of("claude", "main-reads")) == [
        ("Agent", "", "main"), ("Read", "app.py", CHILD), ("Read", "commit.md", "main"), ("Read", "app.py", "main"),
        ("Edit", "app.py", "main"), ("Bash", commit, "main")]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_sim_delegates_as_claude_code_does(scenario: str) -> None:
    """The same calls and readers, but the read Claude Code's Edit needs (the sim does not insist on it)."""
    claude = [c for c in who(calls_of("claude", scenario)) if c[0] != "Read" or c[1:] != ("app.py", "main")]
    assert who(calls_of("sim", scenario)) == claude


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_opencode_child_calls_come_from_its_session_database(scenario: str) -> None:
    from workbench.runner.children import child_calls
    folder = STREAMS / f"opencode-delegated-{scenario}"
    parsed = parse_lines("opencode", (folder / "stdout.jsonl").read_text(encoding="utf-8").splitlines())
    assert [c.tool for c in parsed.calls if c.read_by == "main"][0] == "task"
    assert {c.read_by for c in parsed.calls} == {"main"}  # the stream prints none of the child's calls
    merged = child_calls("opencode", parsed, folder / "home")
    assert merged is not None
    child = [Path(c.path or "").name for c in merged if c.read_by.startswith("subagent:")]
    assert child == (["commit.md"] if scenario == "subagent-reads" else ["app.py"])
    assert [c.tool for c in merged if c.read_by == "main"] == [c.tool for c in parsed.calls]
    result = score(SPEC, merged)
    assert (result.overall, result.fired_by) == capture.TRUTH[scenario]
    if scenario == "subagent-reads":
        assert score(SPEC, parsed.calls).overall == "skip"  # the stream alone would miss the subagent's read


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_gemini_subagent_calls_come_from_its_chat_files(scenario: str) -> None:
    """Gemini CLI 0.61.0 prints `invoke_agent` and its result, not the subagent's calls: they are in the
    subagent's chat file, beside the main session's, in the run's own HOME."""
    from workbench.runner.children import child_calls
    folder = STREAMS / f"gemini-delegated-{scenario}"
    parsed = parse_lines("gemini", (folder / "stdout.jsonl").read_text(encoding="utf-8").splitlines())
    assert [(c.tool, c.kind) for c in parsed.calls][0] == ("invoke_agent", "agent")
    assert {c.read_by for c in parsed.calls} == {"main"}
    merged = child_calls("gemini", parsed, folder / "home")
    assert merged is not None
    child = [(c.tool, Path(c.path or "").name) for c in merged if c.read_by.startswith("subagent:")]
    # the subagent ends by calling complete_task (its only way out)
    assert child == [("read_file", "commit.md" if scenario == "subagent-reads" else "app.py"), ("complete_task", "")]
    assert [c.tool for c in merged if c.read_by == "main"] == [c.tool for c in parsed.calls]
    result = score(SPEC, merged)
    assert (result.overall, result.fired_by) == capture.TRUTH[scenario]
    if scenario == "subagent-reads":
        assert score(SPEC, parsed.calls).overall == "skip"  # the stream alone misses the subagent's read


def test_an_untyped_delegation_is_named_by_the_type_the_host_ran() -> None:
    calls = calls_of("claude", "nobody-reads")
    assert calls[0].tool == "Agent" and calls[1].read_by == CHILD  # the call named none; the host ran its default


def test_streams_without_delegation_are_all_main() -> None:
    for path in sorted(STREAMS.glob("claude*.jsonl")):
        if "-delegated-" in path.name:
            continue
        calls = parse_lines("claude", path.read_text().splitlines()).calls
        assert calls and {c.read_by for c in calls} == {"main"}, path.name


def record_of(scenario: str, run: int = 0) -> RunRecord:
    calls = calls_of("claude", scenario)
    result = score(SPEC, calls)
    return RunRecord(condition="canary", host="claude", target="commit", kind="positive", run=run,
                     case_id=f"c{run}", moment="commit", required=SPEC.required, calls=calls,
                     verdict=dict(result.verdicts), overall=result.overall, fired_by=result.fired_by)


def test_older_records_migrate_to_main_and_rescore_sets_fired_by() -> None:
    old = Call(index=0, tool="Read", kind="read", path="/tmp/run/plugin/x.md", turn=0).model_dump()
    old.pop("read_by")
    assert Call.model_validate(old).read_by == "main"
    record = record_of("subagent-reads").model_copy(update={"fired_by": None})
    again = rescore(RunRecord.model_validate_json(record.model_dump_json()))
    assert (again.overall, again.fired_by) == ("fired", "subagent")


def test_sessions_door_puts_its_read_by_on_the_calls() -> None:
    from workbench.core.events import ParsedRun
    from workbench.core.sessions import SessionRun, with_read_by
    calls = [Call(index=i, tool="Read", kind="read", path="/tmp/run/plugin/procedures/testing.md", turn=i)
             for i in range(2)]
    run = with_read_by(SessionRun(host="claude", session_id="s", parsed=ParsedRun(calls=calls),
                                  read_by=["main", "subagent:agent-1"]))
    assert [c.read_by for c in run.parsed.calls] == ["main", "subagent:agent-1"]
    assert score(ScoreSpec(kind="positive", required=["procedures/testing.md"], moment="end"),
                 run.parsed.calls).fired_by == "main"


def test_summary_splits_fired_by_main_from_subagent() -> None:
    from workbench.commands.summary import cell_text
    from workbench.core.summary import summarize
    records = [record_of(s, n) for n, s in enumerate(SCENARIOS)]
    [cell] = [c.to_json() for c in summarize(records).cells.values()]
    assert (cell["fired"], cell["fired_by_main"], cell["fired_by_subagent"], cell["skip"]) == (2, 1, 1, 1)
    assert cell_text(cell).startswith("2/3 (1 fired by subagent)")


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_sessions_door_groups_a_gemini_subagents_chat_with_its_session(scenario: str) -> None:
    """The sessions door finds the subagent's chat file with its main session and gives its calls the
    same readers the run's record has."""
    from workbench.runner.children import child_calls
    from workbench.runner.sessions import MAX_FILE_BYTES, discover, load_source
    home = STREAMS / f"gemini-delegated-{scenario}" / "home"
    [source], warnings = discover("gemini", home)
    assert warnings == [] and source.files[0].name.startswith("session-") and len(source.files) == 2
    # the subagent's folder is named by the main session's id (the main file's name ends with its start)
    assert source.files[1].parent.name.startswith(source.files[0].stem.rsplit("-", 1)[-1])
    run, _ = load_source(source, home, MAX_FILE_BYTES)
    assert run is not None
    stream = parse_lines("gemini", (home.parent / "stdout.jsonl").read_text(encoding="utf-8").splitlines())
    merged = child_calls("gemini", stream, home)
    assert merged is not None
    assert [(c.tool, c.read_by) for c in run.parsed.calls] == [(c.tool, c.read_by) for c in merged]
    assert (score(SPEC, run.parsed.calls).overall, score(SPEC, run.parsed.calls).fired_by) == capture.TRUTH[scenario]


def test_the_turn_clock_times_only_the_main_agents_turns() -> None:
    """The scripted server counts the main agent's requests only; a delegating run's merged calls are
    numbered across agents, so the effect clock ranks the main agent's turns and skips the subagent's
    (else a write of main turn 1 lands in the window of the subagent's read, numbered 1)."""
    from workbench.core.effects import server_turns
    from workbench.runner.children import child_calls
    folder = STREAMS / "gemini-delegated-subagent-reads"
    stream = parse_lines("gemini", (folder / "stdout.jsonl").read_text(encoding="utf-8").splitlines()).calls
    merged = child_calls("gemini", parse_lines("gemini", (folder / "stdout.jsonl").read_text(
        encoding="utf-8").splitlines()), folder / "home")
    assert merged is not None
    assert [c.turn for c in merged] == [0, 1, 2, 3, 4]  # invoke, [read, complete_task], edit, commit
    assert server_turns(merged) == [0, None, None, 1, 2]
    assert server_turns(stream) == [c.turn for c in stream] == [0, 1, 2]  # no subagent call: as they are
