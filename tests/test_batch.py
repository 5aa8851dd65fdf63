"""Batches end to end with real bubblewrap, real git, the sim host and Claude Code on the scripted model
server: plan order, records, escapes refused or caught, the proof gate, quota stop, kill -9 and resume."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import git
import pytest
from batch_support import SECRET, World, batch_cli, config, make_world

from workbench.core.batches import batch_states
from workbench.core.records import Loaded, load_file
from workbench.hosts.install import find_binary
from workbench.modelstub import Fault
from workbench.runner.batch import Planned, RunKey, plan, repair_tail, run_batch, todo
from workbench.runner.confine import Confinement
from workbench.runner.hostrun import HostRun, run_host
from workbench.runner.proof import ProofFailed

ROOT = Path(__file__).resolve().parent.parent


def records(w: World) -> Loaded:
    return load_file(w.record)


def test_plan_alternates_arms_within_slots(tmp_path: Path) -> None:
    cfg = config(make_world(tmp_path), runs=2)
    items = plan(cfg)
    assert len(items) == 2 * 2 * 2
    order = [p.arm.name for p in items]
    assert order == ["A", "B", "B", "A", "A", "B", "B", "A"]
    assert len({p.key for p in items}) == len(items)


def test_confined_sim_batch_records_every_run_once(tmp_path: Path) -> None:
    w = make_world(tmp_path)
    cfg = config(w, runs=2, jobs=2)
    result = run_batch(cfg)
    loaded = records(w)
    assert result.complete and not loaded.problems
    keys = Counter(RunKey.of(r) for r in loaded.records)
    assert set(keys) == {p.key for p in plan(cfg)} and set(keys.values()) == {1}
    shas = {a.sha for a in cfg.arms}
    for r in loaded.records:
        assert r.condition == "confined" and r.valid and r.source in shas and r.batch == result.batch
        assert r.batch_planned == 8 and r.model == "sim-policy"
    assert {r.arm for r in loaded.records} == {"A", "B"}


ESCAPES = {
    "write outside the repo": "echo escaped > {home}/escaped.txt",
    "read the real home": "cat {home}/secret.txt",
    "edit a guarded checkout": "echo escaped >> {ws}/tracked.txt",
}


def escape_script(w: World, command: str) -> dict[str, Any]:
    shell = command.format(home=w.home, ws=w.ws)
    return {"steps": [{"calls": [{"shell": shell}]}, {"say": "done"}]}


def assert_nothing_escaped(w: World) -> None:
    assert not (w.home / "escaped.txt").exists()
    assert (w.ws / "tracked.txt").read_text() == "tracked\n"
    assert SECRET not in w.record.read_text()


@pytest.mark.parametrize("escape", list(ESCAPES))
def test_sim_escape_is_refused_by_the_sandbox(tmp_path: Path, escape: str) -> None:
    w = make_world(tmp_path)
    result = run_batch(config(w, cases=1, script=escape_script(w, ESCAPES[escape])))
    assert result.aborted is None and len(result.outcomes) == 2
    assert_nothing_escaped(w)
    for r in records(w).records:
        shell = [c for c in r.calls if c.kind == "shell"]
        assert shell and shell[0].result and ("Read-only" in shell[0].result or "No such file" in shell[0].result)


@pytest.mark.parametrize("escape", ["write outside the repo", "edit a guarded checkout"])
def test_unconfined_escape_stops_the_batch_by_the_guard(tmp_path: Path, escape: str) -> None:
    w = make_world(tmp_path)
    (w.home / ".claude" / "settings.json").unlink() if escape.startswith("write") else None
    command = ESCAPES[escape].replace("{home}/escaped.txt", "{home}/.claude/settings.json")
    result = run_batch(config(w, confined=False, runs=2, script=escape_script(w, command)))
    assert result.aborted is not None and "after run sim" in result.aborted
    loaded = records(w).records
    assert len(loaded) == 1 < len(plan(config(w, runs=2)))  # stopped after the first run
    assert not loaded[0].valid and loaded[0].invalid_reason == "guard" and loaded[0].condition == "unconfined"
    assert loaded[0].guard and loaded[0].guard.changes


@pytest.mark.parametrize("escape", list(ESCAPES))
def test_claude_escape_is_refused(tmp_path: Path, escape: str, installed_hosts: Path) -> None:
    w = make_world(tmp_path)
    binary = find_binary("claude", installed_hosts)
    assert binary is not None
    cfg = config(w, cases=1, hosts=("claude",), script=escape_script(w, ESCAPES[escape]), binaries={"claude": binary})
    cfg.arms = cfg.arms[:1]
    result = run_batch(cfg)
    assert result.aborted is None and len(result.outcomes) == 1
    assert_nothing_escaped(w)
    record = records(w).records[0]
    assert record.condition == "confined" and record.host == "claude"
    shell = [c for c in record.calls if c.kind == "shell"]
    assert shell, record.calls
    # refused: the sandbox made the command fail (error) or Claude's permission layer stopped it (denied)
    assert shell[0].status in ("error", "denied"), (shell[0].status, shell[0].result)
    assert any(s in (shell[0].result or "") for s in ("Read-only", "No such file", "requires approval", "denied"))


class _Leaky(Confinement):
    def masks(self, extra: Any = ()) -> list[Path]:
        return [m for m in super().masks(extra) if m != self.real_home]

    def argv(self, *args: Any, **kwargs: Any) -> list[str]:
        argv = super().argv(*args, **kwargs)
        at = argv.index("/tmp", argv.index("--tmpfs")) + 1
        return [*argv[:at], "--ro-bind", str(self.real_home), str(self.real_home), *argv[at:]]


def test_failed_proof_refuses_to_start(tmp_path: Path) -> None:
    w = make_world(tmp_path)
    cfg = config(w)
    cfg.confinement = _Leaky(w.home, (w.ws,), run_as=None)  # leaks the home to the caller's own uid
    with pytest.raises(ProofFailed, match="read real home"):
        run_batch(cfg)
    assert not w.record.exists() or w.record.read_text() == ""


def test_quota_error_stops_launching_and_is_named(tmp_path: Path) -> None:
    w = make_world(tmp_path)

    def quota_host(*args: Any, **kwargs: Any) -> HostRun:
        run = run_host(*args, faults=[Fault("status", status=429)], **kwargs)
        with run.stderr_path.open("a") as fh:
            fh.write("API Error: 429 rate_limit_error\n")
        return run

    result = run_batch(config(w, runs=2), run_host_fn=quota_host)
    assert result.quota is not None and len(result.outcomes) == 1
    assert records(w).records[0].invalid_reason == "quota"


def test_todo_resume_and_retry_invalid(tmp_path: Path) -> None:
    w = make_world(tmp_path)
    cfg = config(w, runs=1)
    run_batch(cfg)
    items = plan(cfg)
    loaded = records(w)
    loaded.records[0] = loaded.records[0].model_copy(update={"valid": False, "invalid_reason": "timeout"})
    from workbench.core.errors import InputError

    with pytest.raises(InputError, match="--resume"):
        todo(items, loaded, resume=False, retry_invalid=False)
    assert todo(items, loaded, resume=True, retry_invalid=False) == []
    again: list[Planned] = todo(items, loaded, resume=True, retry_invalid=True)
    assert [p.key for p in again] == [RunKey.of(loaded.records[0])]


def test_repair_tail_cuts_a_torn_last_line(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_bytes(b'{"a": 1}\n{"b": 2')
    assert repair_tail(path) == b'{"b": 2'
    assert path.read_bytes() == b'{"a": 1}\n' and (tmp_path / "r.jsonl.torn").read_bytes() == b'{"b": 2\n'
    assert repair_tail(path) == b""


def _cli(w: World, *extra: str) -> subprocess.Popen[bytes]:
    argv = [sys.executable, "-m", "workbench", "batch", "--cases", "all", "--hosts", "sim", "--arms",
            "A=HEAD~1,B=HEAD", "--runs", "3", "--jobs", "2", "--record", str(w.record), "--home", str(w.home), *extra]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(argv, cwd=w.ws, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_kill_9_then_resume_gives_one_valid_record_per_run(tmp_path: Path) -> None:
    w = make_world(tmp_path)
    proc = _cli(w)
    while proc.poll() is None:  # wait (no timing) until some runs are recorded, then kill -9 mid-batch
        if w.record.is_file() and w.record.read_bytes().count(b"\n") >= 3:
            os.kill(proc.pid, signal.SIGKILL)
            break
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, proc.stderr.read().decode() if proc.stderr else ""
    first = w.record.read_bytes().count(b"\n")
    assert 3 <= first < 12
    assert [s.partial for s in batch_states(records(w).records)] == [True]
    summary = subprocess.run([sys.executable, "-m", "workbench", "summary", str(w.record)], capture_output=True,
                             text=True, check=False, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert "PARTIAL" in summary.stderr  # never mixed into a summary silently
    resumed = _cli(w, "--resume")
    out, err = resumed.communicate()
    assert resumed.returncode == 0, err.decode()
    assert b"complete confined" in out and f"{first} already recorded".encode() in out
    text = w.record.read_text()
    assert text.endswith("\n")
    lines = [json.loads(line) for line in text.splitlines()]  # no torn line
    loaded = records(w)
    assert not loaded.problems
    keys = Counter(RunKey.of(r) for r in loaded.records)
    assert len(lines) == 12 and len(keys) == 12 and set(keys.values()) == {1}
    assert all(r.valid for r in loaded.records) and len({r.batch for r in loaded.records}) == 1
    assert not batch_states(loaded.records)[0].partial and batch_states(loaded.records)[0].valid == 12


def test_cli_refuses_without_bwrap_unless_unconfined(tmp_path: Path) -> None:
    w = make_world(tmp_path)
    argv = [sys.executable, "-m", "workbench", "batch", "--cases", "docs-*", "--hosts", "sim", "--arms", "A=HEAD",
            "--record", str(w.record), "--home", str(w.home)]
    tools = tmp_path / "bin"  # git but no bwrap on PATH
    tools.mkdir()
    (tools / "git").symlink_to(shutil.which("git") or "/usr/bin/git")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PATH": f"{Path(sys.executable).parent}:{tools}"}
    done = subprocess.run(argv, cwd=w.ws, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 2 and "bubblewrap" in done.stderr and not w.record.exists()
    done = subprocess.run([*argv, "--unconfined"], cwd=w.ws, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert [r.condition for r in records(w).records] == ["unconfined"]


def test_a_workspace_arm_by_bare_name_brings_its_ref_and_env(tmp_path: Path) -> None:
    """`--arms baseline,off`: `off` is `[arms.off]` of workbench.toml (a ref and a hook's off-switch)."""
    from dataclasses import replace

    from workbench.core.workspace import load_workspace
    from workbench.runner.arms import resolve

    w = make_world(tmp_path)
    toml = w.ws / "workbench.toml"
    toml.write_text(toml.read_text() + '\n[arms.off]\nref = "HEAD~1"\nenv = { EVAL_INJECTION_OFF = "1" }\n')
    ws = load_workspace(w.ws)
    base, off = resolve(ws, "baseline"), resolve(ws, "off")
    head = git.Repo(w.ws)
    assert base.sha == head.head.commit.hexsha and base.env == {}
    assert off.sha == head.commit("HEAD~1").hexsha and off.env == {"EVAL_INJECTION_OFF": "1"}
    assert resolve(ws, "off", "HEAD").env == {"EVAL_INJECTION_OFF": "1"}  # NAME=REF keeps the env

    seen: list[tuple[tuple[str, str], ...]] = []

    def spying_host(*args: Any, **kwargs: Any) -> HostRun:
        seen.append(tuple(sorted((kwargs.get("extra_env") or {}).items())))
        return run_host(*args, **kwargs)

    cfg = replace(config(w), arms=[base, off])
    result = run_batch(cfg, run_host_fn=spying_host)
    assert result.complete
    assert Counter(seen) == {(): 2, (("EVAL_INJECTION_OFF", "1"),): 2}  # 2 cases x 1 run per arm
    assert {r.arm: r.source for r in records(w).records} == {"baseline": base.sha, "off": off.sha}


def test_cli_refuses_a_case_whose_moment_is_impossible(tmp_path: Path) -> None:
    w = make_world(tmp_path)
    (w.ws / "cases" / "merge-nothing.toml").write_text(
        'target = "commit"\nkind = "positive"\nprompt = "Merge fix/divide into main."\n'
        'required = ["commit.md"]\nmoment = "merge"\n')
    proc = batch_cli(w, "sim", "--unconfined", runs=1)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 2, err
    assert b"merge-nothing" in err and b"fix/divide" in err and len(err.strip().splitlines()) == 1
    assert not w.record.exists()
