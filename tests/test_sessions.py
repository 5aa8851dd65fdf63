"""The sessions door on session files the pinned real CLIs wrote (tests/data/sessions/, made by
scripts/capture_sessions.py from kept canary runs): the same verdict as the canary, the per-row
table, bad input, and the record judged from outside (no home path, no login value)."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from workbench.cli import main
from workbench.core.models import Call
from workbench.core.records import load_file
from workbench.core.sessions import Part, merge_parts
from workbench.core.workspace import load_workspace
from workbench.runner.sessions import SessionsForm, read_bounded, read_sessions, sessions_setup, tabulate

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "sessions"
CAPTURES = sorted(p.name for p in DATA.iterdir() if (p / "manifest.json").is_file())
NEUTRAL = "/tmp/run"


def manifest(name: str) -> dict:  # type: ignore[type-arg]
    return json.loads((DATA / name / "manifest.json").read_text())


def rooted(name: str, root: Path) -> Path:
    """The capture's HOME under ROOT, its `/tmp/run` paths pointing at ROOT again (as the host wrote
    them there); returns the HOME."""
    for src in (DATA / name / "home").rglob("*"):
        if src.is_file():
            rel = src.relative_to(DATA / name).as_posix().replace("-tmp-run-", f"{slug(root)}-")
            dest = root / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            if src.suffix == ".db":  # OpenCode's SQLite database: the same rewrite, in SQL
                shutil.copy(src, dest)
                with closing(sqlite3.connect(dest)) as con:
                    for (table,) in con.execute("select name from sqlite_master where type='table'").fetchall():
                        for _, column, kind, *_ in con.execute(f'pragma table_info("{table}")').fetchall():
                            if kind.lower() == "text":
                                con.execute(f'update "{table}" set "{column}" = replace("{column}", ?, ?)',
                                            (NEUTRAL, str(root)))
                    con.commit()
            else:
                dest.write_text(src.read_text().replace(NEUTRAL, str(root)))
    return root / "home"


def slug(path: Path) -> str:
    return "".join(c if c.isalnum() else "-" for c in str(path))


def sessions_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict, str]:  # type: ignore[type-arg]
    code = main(["sessions", *argv, "--json"])
    out = capsys.readouterr()
    return code, json.loads(out.out) if out.out.strip() else {}, out.err


def test_every_pinned_host_that_keeps_sessions_was_captured() -> None:
    hosts = {manifest(n)["host"] for n in CAPTURES}
    assert {"claude", "codex"} <= hosts
    assert {manifest(n)["canary_overall"] for n in CAPTURES} == {"fired", "skip"}  # both scripts, so it can fail


@pytest.mark.parametrize("name", CAPTURES)
def test_session_verdict_is_the_canary_verdict(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    m = manifest(name)
    home = rooted(name, tmp_path / "run")
    code, out, err = sessions_json(capsys, "--host", m["host"], "--home", str(home), "--require", m["require"],
                                   "--moment", m["moment"])
    assert code == 0, err
    assert len(out["sessions"]) == 1
    session = out["sessions"][0]
    assert session["verdicts"] == m["canary_verdicts"]
    assert session["overall"] == m["canary_overall"]
    assert session["host_version"] is None or m["host_version"].startswith(session["host_version"])
    assert session["moment_at"] is not None, "the commit attempt is the moment in every capture"


@pytest.mark.parametrize("name", [n for n in CAPTURES if n.endswith("reads-then-commits")])
def test_record_from_outside_holds_no_home_path_and_no_login(name: str, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    m = manifest(name)
    home = rooted(name, tmp_path / "run")
    secret = "1. Run `git status --short` and `git diff --staged`"  # a line the session's read returned
    login = {"claude": ".claude/.credentials.json", "codex": ".codex/auth.json", "gemini": ".gemini/oauth_creds.json",
             "opencode": ".local/share/opencode/auth.json"}
    (home / login[m["host"]]).parent.mkdir(parents=True, exist_ok=True)
    (home / login[m["host"]]).write_text(json.dumps({"token": secret}))
    out_file = tmp_path / "out" / "sessions.jsonl"
    out_file.parent.mkdir()
    code = main(["sessions", "--host", m["host"], "--home", str(home), "--require", m["require"], "--moment",
                 m["moment"], "--record", str(out_file)])
    capsys.readouterr()
    assert code == 0
    raw = out_file.read_bytes().decode()
    for path in (tmp_path,):  # home, project and plugin paths are all labelled
        assert str(path) not in raw and os.path.realpath(path) not in raw
    assert secret not in raw
    records = load_file(out_file).records
    assert [r.condition for r in records] == ["sessions"]
    record = records[0]
    assert record.verdict == m["canary_verdicts"]
    assert any("<repo>" in (c.path or c.command or "") or "~" in (c.path or c.command or "") for c in record.calls)
    if m["host"] != "gemini":  # Gemini's read result is the file's text only on the model's side
        assert "<login>" in raw
    assert main(["rescore", str(out_file)]) == 0
    assert "0 verdicts changed" in capsys.readouterr().out


def test_workspace_rows_table_counts_moment_sessions_and_lab_beside(tmp_path: Path) -> None:
    fired = rooted("claude-reads-then-commits", tmp_path / "a")
    rooted("claude-commits-unread", tmp_path / "a")  # the same HOME holds both sessions
    ws = load_workspace(ROOT)
    plan = sessions_setup(ws, SessionsForm(hosts=("claude",), home=fired))
    assert {t.row for t in plan.targets} >= {"commit", "pull-request"}
    result = read_sessions(plan)
    assert result.read == 2
    commit = next(t for t in result.table if t.row == "commit")
    assert (commit.sessions, commit.fired, commit.not_offered) == (2, 1, 0)  # the skill listing offered demo-ops:ops
    pr = next(t for t in result.table if t.row == "pull-request")
    assert (pr.sessions, pr.no_moment) == (0, 2)  # no PR was opened: not a miss
    lab = [s.record.model_copy(update={"condition": "canary", "arm": "strong"}) for s in result.scores
           if s.target.row == "commit"]
    table = tabulate(result.scores, lab)
    row = next(t for t in table if t.row == "commit")
    assert (row.lab_arm, row.lab_runs, row.lab_hits) == ("strong", 2, 1)


def test_a_session_that_never_offered_the_row_is_counted_apart(tmp_path: Path) -> None:
    home = rooted("claude-reads-then-commits", tmp_path / "a")
    plan = sessions_setup(None, SessionsForm(hosts=("claude",), home=home, require=("workflows/commit.md",),
                                             moment="commit", entry_skill="release-notes"))
    result = read_sessions(plan)
    assert [t.not_offered for t in result.table] == [1]
    assert result.table[0].sessions == 0


def test_missing_store_is_one_warning_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = sessions_json(capsys, "--host", "codex", "--home", str(tmp_path), "--require", "x.md",
                                   "--moment", "commit")
    assert code == 2
    assert out["sessions"] == []
    assert [line for line in err.splitlines() if line.startswith("warning:")] == [
        f"warning: codex: no session store at {tmp_path}/.codex/sessions"]


def test_bad_files_warn_once_each_and_the_rest_is_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    m = manifest("codex-reads-then-commits")
    home = rooted("codex-reads-then-commits", tmp_path / "run")
    day = next((home / ".codex" / "sessions").glob("*/*/*"))
    (day / "rollout-foreign.jsonl").write_text('{"not": "a rollout"}\n[1, 2]\n')
    (day / "rollout-binary.jsonl").write_bytes(b"\x00\xff\xfe garbage\n")
    good = next(p for p in day.glob("rollout-2*.jsonl"))
    torn = day / "rollout-torn.jsonl"
    torn.write_text(good.read_text() + '{"timestamp": "2026-12-01T23:00:00Z", "type": "respo')
    (day / "rollout-link.jsonl").symlink_to(good)
    code, out, err = sessions_json(capsys, "--host", "codex", "--home", str(home), "--require", m["require"],
                                   "--moment", m["moment"])
    assert code == 0
    assert [s["verdicts"] for s in out["sessions"]] == [m["canary_verdicts"]] * 2  # good and torn; no link
    warnings = [line for line in err.splitlines() if line.startswith("warning:")]
    assert any("rollout-foreign.jsonl" in w and "another format" in w for w in warnings)
    assert any("rollout-binary.jsonl" in w for w in warnings)
    assert sum("rollout-torn.jsonl" in w and "incomplete" in w for w in warnings) == 1
    assert not any("rollout-link" in w for w in warnings)
    assert "Traceback" not in err


def test_a_huge_file_is_read_to_its_last_complete_line_under_the_cap(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    path.write_text('{"a": 1}\n{"b": 2}\n{"c": 3}\n')
    text, warnings = read_bounded(path, 14)
    assert text == '{"a": 1}\n'
    assert len(warnings) == 1 and "over the 14-byte cap" in warnings[0]
    home = rooted("claude-reads-then-commits", tmp_path / "run")
    plan = sessions_setup(None, SessionsForm(hosts=("claude",), home=home, require=("workflows/commit.md",),
                                             moment="commit", max_file_bytes=4000))
    result = read_sessions(plan)
    assert any("byte cap" in w for w in result.warnings)
    assert all(s.record.overall != "fired" for s in result.scores)  # the read lies past the cap: never invented


def test_since_keeps_recent_sessions_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = rooted("gemini-commits-unread", tmp_path / "run")
    for f in home.rglob("*"):
        os.utime(f, (0, 0))
    code, out, _ = sessions_json(capsys, "--host", "gemini", "--home", str(home), "--since", "7d", "--require",
                                 "workflows/commit.md", "--moment", "commit")
    assert code == 2 and out["sessions"] == []
    assert main(["sessions", "--since", "seven days", "--require", "x", "--moment", "commit"]) == 2
    assert "--since" in capsys.readouterr().err


def test_project_filter_matches_the_session_working_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = rooted("codex-commits-unread", tmp_path / "run")
    args = ["--host", "codex", "--home", str(home), "--require", "workflows/commit.md", "--moment", "commit"]
    assert len(sessions_json(capsys, *args, "--project", str(tmp_path / "run" / "repo"))[1]["sessions"]) == 1
    assert sessions_json(capsys, *args, "--project", str(tmp_path / "elsewhere"))[1]["sessions"] == []


def test_subagent_calls_merge_by_issue_time_with_read_by() -> None:
    main_calls = [Call(index=0, tool="Task", kind="agent", turn=0), Call(index=1, tool="Bash", kind="shell",
                                                                         command="git commit -m x", turn=1)]
    sub_calls = [Call(index=0, tool="Read", kind="read", path="w/commit.md", turn=0)]
    calls, read_by = merge_parts([Part("main", main_calls, {0: "2026-01-01T00:00:01Z", 1: "2026-01-01T00:00:09Z"}),
                                  Part("agent-1", sub_calls, {0: "2026-01-01T00:00:05Z"})])
    assert [(c.index, c.tool, c.turn) for c in calls] == [(0, "Task", 0), (1, "Read", 1), (2, "Bash", 2)]
    assert read_by == ["main", "subagent:agent-1", "main"]


def test_the_capture_script_and_fixtures_agree() -> None:
    # the fixtures hold no machine path: everything the host wrote under its run folder says /tmp/run
    for name in CAPTURES:
        for f in (DATA / name / "home").rglob("*"):
            if f.is_file():
                text = f.read_bytes().decode("utf-8", errors="replace")
                assert "/wb-canary-" not in text and str(Path.home()) + "/" not in text, f
    assert shutil.which("git")


def test_cli_without_require_scores_the_workspace_rows(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    home = rooted("codex-reads-then-commits", tmp_path / "run")
    monkeypatch.chdir(ROOT)  # the bundled demo workspace: its rows, cases and lab records
    code, out, err = sessions_json(capsys, "--host", "codex", "--home", str(home))
    assert code == 0, err
    by_row = {t["row"]: t for t in out["table"]}
    assert (by_row["commit"]["sessions"], by_row["commit"]["fired"]) == (1, 1)
    assert by_row["release"]["no_moment"] == 1 and by_row["release"]["fired"] == 0
    assert {s["row"] for s in out["sessions"]} == set(by_row)
    assert main(["sessions", "--host", "codex", "--home", str(home)]) == 0
    text = capsys.readouterr().out
    assert "| commit | codex | 1/1 (100%) |" in text


def test_bad_form_is_one_line_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sessions", "--require", "x.md", "--moment", "bash:("]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_an_opencode_database_of_another_format_is_one_warning(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / ".local" / "share" / "opencode"
    store.mkdir(parents=True)
    (store / "opencode.db").write_text("not a database\n")
    code, out, err = sessions_json(capsys, "--host", "opencode", "--home", str(tmp_path), "--require", "x.md",
                                   "--moment", "commit")
    assert code == 2 and out["sessions"] == []
    warnings = [line for line in err.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "opencode.db" in warnings[0] and "Traceback" not in err
    assert (store / "opencode.db").read_text() == "not a database\n"  # read-only: untouched
