"""The repo watcher and effect attribution, with real parts: real files and git in a throwaway repo,
real bubblewrap, real stdout timestamps, and the four real CLIs plus sim against the scripted model
server (a shell call that writes README.md in a form no write pattern knows, between two calls that
write nothing: the effect must be given to exactly that call, confined and unconfined)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import make_repo

from workbench.core.effects import (
    CallClock,
    CallSpan,
    Effect,
    attribute,
    attribute_run,
    first_changes,
    reindex,
    turn_spans,
)
from workbench.core.events import CallFinished, CallStarted
from workbench.core.models import Call
from workbench.hosts import REAL_HOSTS, adapter
from workbench.hosts.base import clean_env
from workbench.hosts.install import find_binary
from workbench.modelstub import parse_script
from workbench.runner import run_host
from workbench.runner.confine import Confinement, bwrap_path
from workbench.runner.process import run_process
from workbench.runner.watcher import RepoWatcher, drop_transient

GIT_ENV = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
needs_bwrap = pytest.mark.skipif(bwrap_path() is None, reason="never: .ci/run installs bubblewrap")


def sh(repo: Path, command: str) -> None:
    subprocess.run(command, shell=True, cwd=repo, env=GIT_ENV, check=True, capture_output=True)


def kinds(effects: list[Effect]) -> list[tuple[str, str]]:
    return [(e.path, e.kind) for e in effects if e.kind != "index"]


# -- attribution (pure) -------------------------------------------------------------------------

SEQUENTIAL = [CallSpan(0, 1.0, 2.0), CallSpan(1, 3.0, 4.0), CallSpan(2, 5.0, 6.0)]


def test_an_effect_goes_to_the_call_in_flight() -> None:
    found = attribute(SEQUENTIAL, [Effect(3.5, "README.md", "modified")])
    assert [(a.call, a.basis) for a in found] == [(1, "in-flight")]


def test_a_late_start_line_still_names_the_call_whose_result_comes_next() -> None:
    # Codex prints item.started after the command already wrote; OpenCode prints a call only when done.
    late = [CallSpan(0, 2.0, 2.0), CallSpan(1, 4.0, 4.1), CallSpan(2, 6.0, 6.0)]
    found = attribute(late, [Effect(3.0, "README.md", "modified")])
    assert [(a.call, a.basis) for a in found] == [(1, "late-start")]


def test_parallel_calls_in_flight_are_ambiguous_and_same_turn_widens_it() -> None:
    parallel = [CallSpan(0, 1.0, 5.0), CallSpan(1, 1.1, 3.0), CallSpan(2, 6.0, 7.0)]
    found = attribute(parallel, [Effect(2.0, "a.txt", "created")])
    assert [(a.call, a.basis, a.others) for a in found] == [(1, "ambiguous", (0,))]
    reported_when_done = [CallSpan(0, 2.0, 2.0), CallSpan(1, 2.1, 2.1)]
    alone = attribute(reported_when_done, [Effect(1.5, "a.txt", "created")])
    assert [(a.call, a.basis) for a in alone] == [(0, "late-start")]
    same_turn = attribute(reported_when_done, [Effect(1.5, "a.txt", "created")], turns={0: "t1", 1: "t1"})
    assert [(a.call, a.basis, a.others) for a in same_turn] == [(0, "ambiguous", (1,))]


def test_only_first_changes_count_and_the_host_after_its_last_result_is_no_call() -> None:
    effects = [Effect(3.2, "README.md", "modified"), Effect(5.5, "README.md", "modified"),
               Effect(5.6, "refs/heads/main", "commit"), Effect(5.7, ".git/index", "index"),
               Effect(5.8, "refs/heads/main", "commit"), Effect(9.0, "late.txt", "created")]
    assert [(e.path, e.kind) for e in first_changes(effects)] == [
        ("README.md", "modified"), ("refs/heads/main", "commit"), ("late.txt", "created")]
    assert [(a.call, a.effect.t) for a in attribute(SEQUENTIAL, effects)] == [(1, 3.2), (2, 5.6)]
    assert [a.call for a in attribute(SEQUENTIAL, [Effect(0.5, "early.txt", "created")])] == [0]
    assert attribute(SEQUENTIAL, [Effect(7.0, "x", "created"), Effect(5.5, ".git/index", "index")]) == []
    assert Effect(5.6, "refs/heads/main", "commit", "abc").to_record() == {
        "path": "refs/heads/main", "kind": "commit", "sha": "abc"}
    assert Effect(3.2, "README.md", "modified").to_record() == {"path": "README.md", "kind": "modified"}


def test_call_clock_keys_spans_by_index_and_reindexes_by_call_id() -> None:
    clock = CallClock()
    clock.see(CallStarted(Call(index=0, tool="Bash", kind="shell", call_id="a")), 1.0)
    clock.see(CallFinished(Call(index=0, tool="Bash", kind="shell", call_id="a")), 2.0)
    clock.see(CallFinished(Call(index=1, tool="Bash", kind="shell", call_id="b")), 4.0)  # reported when done
    clock.see(CallFinished(Call(index=1, tool="Bash", kind="shell", call_id="b")), 9.0)  # a repeat changes nothing
    assert clock.spans() == [CallSpan(0, 1.0, 2.0, "a"), CallSpan(1, 4.0, 4.0, "b")]
    assert [s.index for s in reindex(clock.spans(), ["z", "a", "b"])] == [1, 2]


def test_transient_empty_files_are_dropped_but_real_writes_are_kept() -> None:
    raw = [Effect(1.0, ".bashrc", "created"), Effect(1.1, ".bashrc", "deleted"),
           Effect(1.2, "tmp.txt", "created"), Effect(1.3, "tmp.txt", "modified"), Effect(1.4, "tmp.txt", "deleted")]
    assert kinds(drop_transient(raw)) == [("tmp.txt", "created"), ("tmp.txt", "modified"), ("tmp.txt", "deleted")]


# -- the watcher on a real repo ------------------------------------------------------------------

def test_file_changes_in_the_tree_and_new_folders(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    with RepoWatcher(repo, noise=["build/*"]) as watcher:
        sh(repo, "mkdir -p a/b")
        # a file made and removed in a folder before its watch exists leaves no trace: wait for the
        # folder's watch (as the stdout reader's sync does) so each write below is an event of its own
        watcher.sync()
        sh(repo, "echo hi > a/b/c.txt && echo more >> README.md && mv notes.txt moved.txt"
                 " && rm a/b/c.txt && mkdir build && echo x > build/out.o && touch .git/ignored-internal")
    got = kinds(watcher.stop())
    assert got == [("a/b/c.txt", "created"), ("a/b/c.txt", "modified"), ("README.md", "modified"),
                   ("notes.txt", "moved"), ("moved.txt", "created"), ("a/b/c.txt", "deleted")], got
    assert not watcher.overflowed


def test_a_file_written_in_a_new_folder_before_its_watch_is_created(tmp_path: Path) -> None:
    # whichever comes first, the folder's watch or the write, the file is recorded as created
    repo = make_repo(tmp_path)
    with RepoWatcher(repo) as watcher:
        sh(repo, "mkdir -p d/e && echo x > d/e/f.txt")
    got = kinds(watcher.stop())
    assert got[0] == ("d/e/f.txt", "created") and {k for _, k in got} <= {"created", "modified"}, got


def test_a_mount_point_written_with_nothing_and_removed_is_no_effect(tmp_path: Path) -> None:
    # Claude Code's sandbox: an empty `.gitmodules` made (O_TRUNC: a write of nothing) and removed again
    repo = make_repo(tmp_path)
    # the sandbox keeps it while the Bash call runs: read while it is there (`sync`, as the stdout reader does)
    with RepoWatcher(repo) as watcher:
        sh(repo, "touch .gitmodules && : > .gitmodules")
        watcher.sync()
        sh(repo, "rm .gitmodules && printf x > kept.txt")
        watcher.sync()
        sh(repo, "rm kept.txt")
    assert kinds(watcher.stop()) == [("kept.txt", "created"), ("kept.txt", "modified"), ("kept.txt", "deleted")]


def test_touch_of_an_existing_file_is_no_effect_but_a_new_file_and_chmod_x_are(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    with RepoWatcher(repo) as watcher:
        sh(repo, "touch README.md && touch -d 2001-01-01 notes.txt && chmod 600 README.md && touch new.txt")
    got = kinds(watcher.stop())
    assert got == [("new.txt", "created")], got  # attributes only: git sees no change
    with RepoWatcher(repo) as watcher:
        sh(repo, "chmod +x README.md")
    assert kinds(watcher.stop()) == [("README.md", "modified")]  # the one mode git records


def test_git_history_commit_tag_branch_merge(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    watcher = RepoWatcher(repo).start()
    sh(repo, "git status --short && git tag -l")  # reads, at most an index refresh
    sh(repo, "echo y >> README.md && git commit -qam two && git tag v1 && git checkout -qb feat"
             " && echo z > z.txt && git add z.txt && git commit -qm three && git checkout -q -"
             " && git merge -q --no-ff -m merged feat && git reset -q --hard HEAD~1")
    effects = watcher.stop()
    git = [(e.path, e.kind) for e in effects if e.kind not in ("created", "modified", "deleted", "moved", "index")]
    branch = next(e.path for e in effects if e.kind == "commit")
    assert git == [(branch, "commit"), ("refs/tags/v1", "tag"), ("refs/heads/feat", "branch"), ("HEAD", "ref"),
                   ("refs/heads/feat", "commit"), ("HEAD", "ref"), (branch, "merge"), (branch, "ref")], git
    assert [e.kind for e in first_changes(effects) if e.path.startswith(("refs/", "HEAD"))] == [
        "commit", "tag", "branch", "merge"]


def test_an_idle_run_has_no_effects(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    with RepoWatcher(repo) as watcher:
        sh(repo, "cat README.md && ls -la && git log --oneline && git diff")
    assert [e for e in watcher.stop() if e.moment] == []


@needs_bwrap
def test_writes_inside_bubblewrap_are_seen_from_outside(tmp_path: Path) -> None:
    rd = tmp_path / "run"
    for sub in ("home", "tmp"):
        (rd / sub).mkdir(parents=True)
    repo = make_repo(rd)
    (tmp_path / "fake-home").mkdir()
    write = "printf 'x' >> README.md; echo new > new.txt"
    argv = Confinement(tmp_path / "fake-home").argv(rd, repo, ["/bin/sh", "-c", write])
    with RepoWatcher(repo) as watcher:
        done = subprocess.run(argv, env=clean_env(os.environ), capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert kinds(watcher.stop()) == [("README.md", "modified"), ("new.txt", "created"), ("new.txt", "modified")]


# -- stdout timestamps ---------------------------------------------------------------------------

def test_run_process_stamps_each_line_as_it_arrives(tmp_path: Path) -> None:
    plain: list[str] = []
    timed: list[tuple[str, float]] = []
    marker = tmp_path / "go"
    # the child prints one line, then waits for a file we create only after that line arrived
    code = (f"import os,sys,time\nprint('first', flush=True)\n"
            f"while not os.path.exists({str(marker)!r}): time.sleep(0.01)\nprint('second', flush=True)\n")

    def on_timed(line: str, t: float) -> None:
        timed.append((line, t))
        if line == "first":
            marker.write_text("")
            timed.append(("made", time.monotonic()))

    before = time.monotonic()
    result = run_process([sys.executable, "-c", code], env=dict(os.environ), cwd=tmp_path,
                         stdout_path=tmp_path / "out", stderr_path=tmp_path / "err", on_line=plain.append,
                         on_timed_line=on_timed, timeout=60)
    after = time.monotonic()
    assert result.exit_code == 0 and plain == ["first", "second"]
    assert [line for line, _ in timed] == ["first", "made", "second"]
    stamps = [t for _, t in timed]
    assert before <= stamps[0] <= stamps[1] <= stamps[2] <= after


# -- proof on every host -------------------------------------------------------------------------

WRITE_BETWEEN = parse_script({"steps": [
    {"calls": [{"shell": "cat notes.txt"}]},
    {"calls": [{"shell": "python3 -c \"open('README.md','a').write('x')\""}]},
    {"calls": [{"shell": "ls"}]},
    {"say": "Done."},
]})


def _attributed_run(host: str, root: Path, hosts_dir: Path | None, confined: bool):  # type: ignore[no-untyped-def]
    repo = make_repo(root)
    binary = None if hosts_dir is None else find_binary(host, hosts_dir)
    assert hosts_dir is None or binary is not None, f"{host} not installed"
    conf = Confinement(Path.home()) if confined else None  # as a batch confines: the real home hidden
    wrap = None if conf is None else (lambda launch: conf.wrap(launch, host, root, repo))
    clock = CallClock()
    with RepoWatcher(repo, noise=adapter(host).repo_noise) as watcher:  # as runner/execute.py watches
        run = run_host(host, "Append to the readme.", repo, root, script=WRITE_BETWEEN, binary=binary,
                       timeout=120.0, on_timed_event=clock.see, before_stamp=watcher.sync, wrap=wrap)
    spans = reindex(clock.spans(), [c.call_id for c in run.parsed.calls])
    found = attribute_run(run.parsed.calls, watcher.stop(), clock.spans(), run.asked, adapter(host).live_stream)
    return run, spans, found, repo


def _assert_written_by_call_1(run, spans, found, repo: Path) -> None:  # type: ignore[no-untyped-def]
    commands = [c.command or "" for c in run.parsed.calls]
    assert len(commands) == 3 and commands[1].endswith("write('x')\""), (commands, run.stderr_path.read_text()[-2000:])
    assert (repo / "README.md").read_text().endswith("x")
    # the write's call, by the runner's own attribution (the turn clock where the server drives the host)
    assert [(a.call, a.effect.path, a.effect.kind, a.others) for a in found or []] == [
        (1, "README.md", "modified", ())], (spans, found)


@pytest.mark.parametrize("confined", [False, True], ids=["unconfined", "confined"])
@pytest.mark.parametrize("host", REAL_HOSTS)
def test_the_shell_write_is_attributed_to_its_call_on_every_real_host(host: str, confined: bool, tmp_path: Path,
                                                                       installed_hosts: Path) -> None:
    if confined and bwrap_path() is None:
        pytest.skip("never: .ci/run installs bubblewrap")
    run, spans, found, repo = _attributed_run(host, tmp_path, installed_hosts, confined)
    if host == "claude" and not confined:
        # acceptEdits without its sandbox asks before a shell write: nothing changed, nothing attributed
        assert run.parsed.calls[1].status == "denied"
        assert found == []
        return
    _assert_written_by_call_1(run, spans, found, repo)


@pytest.mark.parametrize("confined", [False, True], ids=["unconfined", "confined"])
def test_the_shell_write_is_attributed_to_its_call_on_sim(confined: bool, tmp_path: Path) -> None:
    if confined and bwrap_path() is None:
        pytest.skip("never: .ci/run installs bubblewrap")
    _assert_written_by_call_1(*_attributed_run("sim", tmp_path, None, confined))


def test_grok_prints_its_calls_only_at_exit_so_only_the_turn_clock_times_them(tmp_path: Path,
                                                                           installed_hosts: Path) -> None:
    """Grok CLI's -p mode prints the whole conversation when the run ends: every call line comes after
    every effect, so its lines cannot time a call (docs/hosts.md); without the scripted server's turn
    clock nothing is attributed. It also creates the repo's `.grok/settings.json` itself (noise)."""
    run, spans, found, repo = _attributed_run("grok", tmp_path, installed_hosts, False)
    assert found and all(span.started is not None and span.started > a.effect.t for span in spans for a in found)
    assert (repo / ".grok" / "settings.json").is_file()
    assert attribute_run(run.parsed.calls, [a.effect for a in found], spans, [], live_stream=False) is None


# -- the run's clocks: stdout lines and the scripted server's turn clock (pure) -----------------

def _call(index: int, turn: int, kind: str = "shell", command: str | None = None, path: str | None = None) -> Call:
    return Call(index=index, tool="Bash" if kind == "shell" else "Read", kind=kind, call_id=f"c{index}", turn=turn,
                command=command, path=path)


def test_the_turn_clock_names_the_turn_even_when_lines_are_late() -> None:
    # every line printed at exit (Grok CLI): only the server's request times can say which turn wrote
    calls = [_call(0, 0, "read", path="p/testing.md"), _call(1, 1, command="cp a b"), _call(2, 2, command="x")]
    asked = [(0, 1.0), (1, 2.0), (2, 3.0), (3, 4.0)]
    found = attribute_run(calls, [Effect(2.5, "b", "created")], [], asked, live_stream=False)
    assert [(a.call, a.basis) for a in found or []] == [(1, "in-flight")]
    assert attribute_run(calls, [Effect(4.5, "late", "created")], [], asked, live_stream=False) == []  # the host's
    assert attribute_run(calls, [Effect(2.5, "b", "created")], [], [], live_stream=False) is None  # no clock at all


def test_a_turn_window_runs_from_its_first_request_to_the_next_turns() -> None:
    # turn 1 retried (a 500, then again): its window opens at the first try; turn 3 has no call
    asked = [(0, 1.0), (1, 2.0), (1, 2.5), (2, 3.0), (3, 4.0)]
    assert turn_spans([0, 1, 1, None, 2], asked) == [
        CallSpan(0, 1.0, 2.0), CallSpan(1, 2.0, 3.0), CallSpan(2, 2.0, 3.0), CallSpan(4, 3.0, 4.0)]
    assert turn_spans([3, 7], asked) == [CallSpan(0, 4.0, None)]  # the last turn is open; turn 7 never asked


def test_the_turn_clock_overrules_line_slack_and_lines_split_a_turn() -> None:
    calls = [_call(0, 0, command="cp a b"), _call(1, 1, command="echo > c"), _call(2, 1, command="echo > d")]
    lines = [CallSpan(0, 1.1, 1.9, "c0"), CallSpan(1, 1.95, 2.4, "c1"), CallSpan(2, 2.5, 2.9, "c2")]
    asked = [(0, 1.0), (1, 1.92), (2, 3.0)]
    # 1.9: call 1's line came within LINE_SLACK, but its turn was asked for only at 1.92
    effects = [Effect(1.9, "b", "created"), Effect(2.3, "e", "created"), Effect(2.31, "d", "created")]
    found = attribute_run(calls, effects, lines, asked, True)
    # e: call 1 in flight, call 2 of the same turn started within LINE_SLACK; d: only call 2 names it
    assert [(a.call, a.basis, a.others) for a in found or []] == [
        (0, "in-flight", ()), (1, "ambiguous", (2,)), (2, "named", ())]


def test_a_turn_clock_that_contradicts_the_lines_is_not_used() -> None:
    calls = [_call(0, 0, command="cp a b"), _call(1, 1, command="cp a c")]
    lines = [CallSpan(0, 1.1, 1.5, "c0"), CallSpan(1, 1.6, 1.9, "c1")]
    asked = [(0, 1.0), (1, 5.0)]  # turn 1 asked for after its call's line arrived: not this host's numbering
    found = attribute_run(calls, [Effect(1.7, "c", "created")], lines, asked, True)
    assert [(a.call, a.basis) for a in found or []] == [(1, "in-flight")]


def test_readers_are_no_candidates_and_the_writer_naming_the_path_is_chosen() -> None:
    calls = [_call(0, 0, command="python3 -c \"import shutil; shutil.copyfile('README.md', 'README.copy')\""),
             _call(1, 1, "read", path="/p/testing.md"), _call(2, 2, command="echo done > notes.txt")]
    lines = [CallSpan(0, 1.0, 1.3, "c0"), CallSpan(1, 1.3, 1.3, "c1"), CallSpan(2, 1.31, 1.5, "c2")]
    found = attribute_run(calls, [Effect(1.29, "README.copy", "created")], lines, [], True)
    assert [(a.call, a.basis, a.others) for a in found or []] == [(0, "named", ())]
    unnamed = attribute_run(calls, [Effect(1.29, "other.txt", "created")], lines, [], True)
    assert [(a.call, a.basis, a.others) for a in unnamed or []] == [(0, "ambiguous", (2,))]
