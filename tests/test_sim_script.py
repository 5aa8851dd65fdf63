"""The sim host executing host-neutral scripts: real effects in the repo, and the verdicts the scorer gives."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
from sim_support import GIT, Dirs, make_dirs, run_sim, script_file

from workbench.core.models import ScoreSpec
from workbench.core.scoring import score

EDIT = {"edit": {"path": "{repo}/notes.txt", "old": "status: todo", "new": "status: done"}}
READ = {"read": "{repo}/docs/proc.md"}


@pytest.fixture
def dirs(tmp_path: Path) -> Dirs:
    return make_dirs(tmp_path)


def verdict(dirs: Dirs, steps: list[Any], *, moment: str = "edit", kind: str = "positive") -> str:
    run = run_sim(dirs, "--script", script_file(dirs, steps))
    assert run.code == 0 and not run.parsed.skipped
    spec = ScoreSpec(kind=kind, required=["docs/proc.md"], moment=moment)
    return score(spec, run.parsed.calls).overall


def test_read_then_edit_fires_and_really_edits(dirs: Dirs) -> None:
    assert verdict(dirs, [{"calls": [READ]}, {"calls": [EDIT]}]) == "fired"
    assert (dirs.repo / "notes.txt").read_text() == "notes\nstatus: done\n"


def test_edit_then_read_skips(dirs: Dirs) -> None:
    assert verdict(dirs, [{"calls": [EDIT]}, {"calls": [READ]}]) == "skip"
    assert "status: done" in (dirs.repo / "notes.txt").read_text()


def test_refused_read_then_edit_skips(dirs: Dirs) -> None:
    steps = [{"calls": [{"read": "{outside}/proc.md"}]}, {"calls": [EDIT]}]
    run = run_sim(dirs, "--script", script_file(dirs, steps))
    refused = run.parsed.calls[0]
    assert (refused.status, refused.unreadable) == ("denied", [str(dirs.outside / "proc.md")])
    result = run.events()[-1]
    assert [d["tool_input"] for d in result["permission_denials"]] == [{"file_path": str(dirs.outside / "proc.md")}]
    spec = ScoreSpec(kind="positive", required=["proc.md"], moment="edit")
    assert score(spec, run.parsed.calls).overall == "skip"


def test_cd_then_cat_fires(dirs: Dirs) -> None:
    assert verdict(dirs, [{"calls": [{"shell": "cd docs && cat proc.md"}]}, {"calls": [EDIT]}]) == "fired"


def test_cat_then_failing_ls_fires_with_exit_code(dirs: Dirs) -> None:
    steps = [{"calls": [{"shell": "cat docs/proc.md; ls missing"}]}, {"calls": [EDIT]}]
    run = run_sim(dirs, "--script", script_file(dirs, steps))
    shell = run.parsed.calls[0]
    assert (shell.status, shell.exit_code, shell.unreadable) == ("error", 2, ["missing"])
    assert shell.result is not None and shell.result.startswith("Exit code 2\n# Procedure")
    assert score(ScoreSpec(kind="positive", required=["docs/proc.md"]), run.parsed.calls).overall == "fired"


def test_read_chained_with_commit_in_one_call_skips_and_commits(dirs: Dirs) -> None:
    steps = [{"calls": [EDIT]}, {"calls": [{"shell": "cat docs/proc.md && git commit -qam 'sim commit'"}]}]
    assert verdict(dirs, steps, moment="commit") == "skip"
    log = subprocess.run([*GIT, "log", "-1", "--format=%s"], cwd=dirs.repo, capture_output=True, text=True)
    assert log.stdout.strip() == "sim commit"


def test_read_then_stop_is_read_noaction(dirs: Dirs) -> None:
    assert verdict(dirs, [{"calls": [READ]}, {"say": "Nothing to change."}]) == "read-noaction"
    assert (dirs.repo / "notes.txt").read_text() == "notes\nstatus: todo\n"


def test_negative_read_is_opened(dirs: Dirs) -> None:
    assert verdict(dirs, [{"calls": [READ]}, {"calls": [EDIT]}], kind="negative") == "opened"
    assert verdict(dirs, [{"calls": [EDIT]}], kind="negative") == "clean"


def test_stream_is_claude_shaped(dirs: Dirs) -> None:
    steps = [{"say": "Loading.", "calls": [{"skill": "ops"}]}, {"calls": [READ]}, {"say": "All done."}]
    run = run_sim(dirs, "--script", script_file(dirs, steps), "--model", "m-1")
    init = run.parsed.init
    assert init is not None and init.host_version is not None and init.host_version.startswith("sim-")
    assert (init.model, init.skills, init.plugins) == ("m-1", ("demo-ops:ops",), ("demo-ops",))
    assert set(init.tools) == {"Task", "Read", "Bash", "Edit", "Write", "Skill"}  # Task: as Claude Code lists it
    assert [(c.tool, c.kind, c.status) for c in run.parsed.calls] == [("Skill", "skill", "ok"), ("Read", "read", "ok")]
    assert run.parsed.texts == ["Loading.", "All done."]
    assert run.parsed.ended is not None and run.parsed.ended.text == "All done." and not run.parsed.ended.is_error
    assert run.parsed.ended.served_model == "m-1"
    usage = run.parsed.usage
    assert usage.input_tokens and usage.output_tokens and usage.cost_usd is None
    spec = ScoreSpec(kind="positive", required=["docs/proc.md"], moment="end", entry_skill="ops")
    assert score(spec, run.parsed.calls).entry_loaded_at == 0


def test_failed_calls_are_errors(dirs: Dirs) -> None:
    steps = [{"calls": [{"read": "{repo}/nope.md"}, {"skill": "nope"},
                        {"edit": {"path": "{repo}/notes.txt", "old": "absent", "new": "x"}}]}]
    run = run_sim(dirs, "--script", script_file(dirs, steps))
    assert [(c.kind, c.status) for c in run.parsed.calls] == [("read", "error"), ("skill", "error"), ("edit", "error")]
    assert run.parsed.calls[0].unreadable == [str(dirs.repo / "nope.md")]


def test_writes_outside_the_repo_are_refused(dirs: Dirs) -> None:
    steps = [{"calls": [{"write": {"path": "{outside}/new.txt", "content": "x"}},
                        {"edit": {"path": "{outside}/proc.md", "old": "Outside", "new": "Changed"}},
                        {"write": {"path": "{repo}/../escape.txt", "content": "x"}},
                        {"write": {"path": "{repo}/sub/new.txt", "content": "hello\n"}}]}]
    run = run_sim(dirs, "--script", script_file(dirs, steps))
    assert [c.status for c in run.parsed.calls] == ["denied", "denied", "denied", "ok"]
    assert not (dirs.outside / "new.txt").exists() and not (dirs.root / "escape.txt").exists()
    assert (dirs.outside / "proc.md").read_text() == "# Outside procedure\n"
    assert (dirs.repo / "sub" / "new.txt").read_text() == "hello\n"


def test_fault_no_output(dirs: Dirs) -> None:
    run = run_sim(dirs, "--fault", "no-output")
    assert run.code == 1
    assert not run.parsed.model_output
    assert run.parsed.ended is not None and run.parsed.ended.is_error and run.parsed.ended.error


def test_bad_input_exits_2(dirs: Dirs, capsys: pytest.CaptureFixture[str]) -> None:
    bad = dirs.root / "bad.json"
    bad.write_text('{"steps": [{"calls": [{"read": 1}]}]}')
    assert run_sim(dirs, "--script", str(bad)).code == 2
    assert "bad.json" in capsys.readouterr().err
    dirs.repo = dirs.root / "missing"
    assert run_sim(dirs, "--policy").code == 2
    assert "--repo" in capsys.readouterr().err


def test_shell_timeout_is_an_error(dirs: Dirs) -> None:
    path = script_file(dirs, [{"calls": [{"shell": "sleep 30"}]}])
    run = run_sim(dirs, "--script", path, "--timeout", "0.2")
    call = run.parsed.calls[0]
    assert call.status == "error" and call.result is not None and "timed out" in call.result
