"""Live view = final answer: when the record's parse differs from what the live pane folded (Codex's
rollout shows refusals its --json stream omits), the runner resets the pane to the record's calls."""

from __future__ import annotations

import io
from pathlib import Path

from workbench.commands.canary import LiveView
from workbench.core.cases import parse_case
from workbench.core.events import CallsReset, Event, ParsedRun
from workbench.core.parsers import make_parser, parse_lines
from workbench.core.runstate import RunState
from workbench.hosts.install import find_binary
from workbench.modelstub import parse_script
from workbench.runner.execute import execute
from workbench.runner.request import build_request

ROOT = Path(__file__).resolve().parent.parent
STREAMS = Path(__file__).parent / "data" / "streams"
CASE = parse_case({"id": "reset", "target": "t", "kind": "positive", "required": ["docs/proc.md"],
                   "moment": "edit", "prompt": "Scripted: follow the script.",
                   "extra_files": {"notes.txt": "notes\nstatus: todo\n", "docs/proc.md": "# Procedure\n"}})


def live_then_final() -> tuple[list[Event], ParsedRun]:
    """The captured Codex run: its stdout events as a live pane gets them, and the record's parse."""
    stdout = (STREAMS / "codex.jsonl").read_text().splitlines()
    parser = make_parser("codex")
    events: list[Event] = [e for line in stdout for e in parser.feed(line)] + list(parser.finish())
    final = parse_lines("codex", stdout, (STREAMS / "codex-rollout.jsonl").read_text().splitlines())
    return events, final


def test_run_state_and_cli_view_end_on_the_records_calls() -> None:
    events, final = live_then_final()
    state = RunState(kind="positive", required=["notes.txt"], moment="edit")
    state.consume_all(events)
    live_calls = state.calls
    assert len(live_calls) < len(final.calls), "the captured stream omits the refusals"
    before = state.version
    state.consume(CallsReset(tuple(final.calls)))
    assert state.calls == final.calls and state.version > before
    assert state.score() == RunState.from_calls(final.calls, kind="positive", required=["notes.txt"],
                                                moment="edit").score()
    out = io.StringIO()
    view = LiveView(CASE, out)
    for event in [*events, CallsReset(tuple(final.calls))]:
        view(event)
    shown = out.getvalue().split("final calls")[-1]
    assert [line.split()[0] for line in shown.splitlines()[1:] if line[:3].strip().isdigit()] == \
        [str(c.index) for c in final.calls]


def test_parsed_run_takes_the_reset() -> None:
    events, final = live_then_final()
    run = ParsedRun()
    for event in [*events, CallsReset(tuple(final.calls))]:
        run.apply(event)
    assert run.calls == final.calls


def test_a_real_codex_run_ends_with_the_records_calls_in_the_live_state(installed_hosts: Path) -> None:
    """Whatever the rollout adds, the live state ends on the record's calls (a reset only when they differ)."""
    script = parse_script({"steps": [
        {"calls": [{"shell": "echo escaped > {outside}/escaped.txt"}]},
        {"calls": [{"edit": {"path": "{repo}/notes.txt", "old": "status: todo", "new": "status: done"}}]},
        {"say": "done"}]})
    req = build_request(CASE, "codex", door="canary", plugin=ROOT / "plugin", script=script,
                        binary=find_binary("codex", installed_hosts), timeout=180.0)
    seen: list[Event] = []
    result = execute(req, on_event=seen.append)
    assert result.run.session_log is not None, "the record was parsed with the rollout"
    live = ParsedRun()
    for event in seen:
        if not isinstance(event, CallsReset):
            live.apply(event)
    resets = [e for e in seen if isinstance(e, CallsReset)]
    assert bool(resets) == (live.calls != result.run.parsed.calls)
    state = RunState(kind="positive", required=["docs/proc.md"], moment="edit")
    state.consume_all(seen)
    assert state.calls == result.run.parsed.calls and result.record.tool_calls == len(state.calls)
