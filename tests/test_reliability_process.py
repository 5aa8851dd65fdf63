"""Process faults, injected for real: kill -9 of the batch mid-run then --resume on Claude Code; the host
killed mid-stream; the host hanging; the model server answering 429/500/529 or cutting its stream; the
records disk full (a 64 KiB tmpfs). Every one must end in named, invalid runs or a clear stop, and the
records file must never hold a lost, duplicated or torn record. (kill -9 + resume on sim: test_batch.py.)"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from batch_support import WRITE_SCRIPT, World, batch_cli, config, make_world

from workbench.core.batches import batch_states
from workbench.core.events import CallFinished, Event
from workbench.core.records import load_file
from workbench.hosts.install import find_binary
from workbench.modelstub import Fault
from workbench.runner.batch import BatchConfig, RunKey, plan, run_batch
from workbench.runner.hostrun import HostRun, run_host


def claude(installed_hosts: Path) -> Path:
    binary = find_binary("claude", installed_hosts)
    assert binary is not None, "claude is not installed"
    return binary


def claude_config(w: World, binary: Path, **kw: Any) -> BatchConfig:
    cfg = config(w, hosts=("claude",), script=WRITE_SCRIPT, binaries={"claude": binary}, **kw)
    return cfg


def assert_clean_file(w: World) -> Counter[RunKey]:
    """Every line parses, the file ends on a newline, and the key count of each record."""
    text = w.record.read_text(encoding="utf-8")
    assert text.endswith("\n")
    for line in text.splitlines():
        json.loads(line)
    loaded = load_file(w.record)
    assert not loaded.problems
    return Counter(RunKey.of(r) for r in loaded.records)


def test_kill_9_then_resume_on_claude(tmp_path: Path, installed_hosts: Path) -> None:
    w = make_world(tmp_path)
    script = tmp_path / "script.json"
    script.write_text(json.dumps(WRITE_SCRIPT), encoding="utf-8")
    env = {"WORKBENCH_HOSTS_DIR": str(installed_hosts), "TMPDIR": str(tmp_path)}
    proc = batch_cli(w, "claude", "--script", str(script), env=env)
    while proc.poll() is None:  # no timing: kill -9 as soon as some runs are recorded
        if w.record.is_file() and w.record.read_bytes().count(b"\n") >= 3:
            os.kill(proc.pid, signal.SIGKILL)
            break
    _, err = proc.communicate()
    assert proc.returncode == -signal.SIGKILL, err.decode()
    first = w.record.read_bytes().count(b"\n")
    assert 3 <= first < 12
    assert [s.partial for s in batch_states(load_file(w.record).records)] == [True]
    resumed = batch_cli(w, "claude", "--script", str(script), "--resume", env=env)
    out, err = resumed.communicate()
    assert resumed.returncode == 0, err.decode()
    assert b"complete confined" in out and f"{first} already recorded".encode() in out
    keys = assert_clean_file(w)
    assert len(keys) == 12 and set(keys.values()) == {1}  # nothing lost, nothing twice
    records = load_file(w.record).records
    assert all(r.valid and r.host == "claude" and r.model == "scripted" for r in records)
    assert len({r.batch for r in records}) == 1 and batch_states(records)[0].valid == 12


def _host_pids(run_dir: Path, exe: Path) -> list[int]:
    """Pids of the host binary EXE whose HOME is RUN_DIR/home (only this run's, however it is wrapped)."""
    homes = {f"HOME={run_dir}/home".encode(), f"HOME={os.path.realpath(run_dir)}/home".encode()}
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = set((entry / "environ").read_bytes().split(b"\0"))
            binary = os.readlink(entry / "exe")
        except OSError:
            continue
        if homes & environ and binary == os.path.realpath(exe):
            pids.append(int(entry.name))
    return pids


def crashing(exe: Path) -> Callable[..., HostRun]:
    """A run_host that kills the host binary (kill -9) when its first tool call finishes."""
    def run(host: str, prompt: str, repo: Path, run_dir: Path, **kw: Any) -> HostRun:
        killed: list[int] = []

        def on_event(event: Event) -> None:
            if isinstance(event, CallFinished) and not killed:
                killed.extend(_host_pids(run_dir, exe))
                for pid in killed:
                    os.kill(pid, signal.SIGKILL)
        result = run_host(host, prompt, repo, run_dir, on_event=on_event, **kw)
        assert killed, "the host process was not found"
        return result
    return run


def test_host_killed_mid_stream_is_invalid_host_crashed(tmp_path: Path, installed_hosts: Path) -> None:
    w = make_world(tmp_path)
    result = run_batch(claude_config(w, claude(installed_hosts), cases=1), run_host_fn=crashing(claude(installed_hosts)))
    assert result.aborted is None and len(result.outcomes) == 2  # the batch goes on
    records = load_file(w.record).records
    assert [(r.valid, r.invalid_reason) for r in records] == [(False, "host-crashed")] * 2
    assert all(r.exit_code != 0 for r in records)
    assert set(assert_clean_file(w).values()) == {1}


def test_sim_killed_mid_stream_is_invalid_host_crashed(tmp_path: Path) -> None:
    w = make_world(tmp_path)
    script = {"steps": [{"calls": [{"shell": "echo one"}]}, {"calls": [{"shell": "echo two"}]}, {"say": "done"}]}

    def run(host: str, prompt: str, repo: Path, run_dir: Path, **kw: Any) -> HostRun:
        def on_event(event: Event) -> None:
            if isinstance(event, CallFinished) and event.call.index == 0:
                for pid in _sim_pids(run_dir):  # bwrap and the sim itself: the first kill may take both
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
        return run_host(host, prompt, repo, run_dir, on_event=on_event, **kw)

    result = run_batch(config(w, cases=1, script=script), run_host_fn=run)
    assert len(result.outcomes) == 2
    assert [r.invalid_reason for r in load_file(w.record).records] == ["host-crashed"] * 2


def _sim_pids(run_dir: Path) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmd = (entry / "cmdline").read_bytes().split(b"\0")
            environ = set((entry / "environ").read_bytes().split(b"\0"))
        except OSError:
            continue
        if b"workbench.sim" in cmd and any(e.startswith(b"HOME=") and str(run_dir).encode() in e for e in environ):
            out.append(int(entry.name))
    return out


def test_claude_hanging_model_is_stopped_by_the_silence_watchdog(tmp_path: Path, installed_hosts: Path) -> None:
    w = make_world(tmp_path)

    def hang(*args: Any, **kw: Any) -> HostRun:
        return run_host(*args, faults=[Fault("hang", step=1)], **kw)

    cfg = claude_config(w, claude(installed_hosts), cases=1, silence_timeout=3)
    cfg.arms = cfg.arms[:1]
    result = run_batch(cfg, run_host_fn=hang)
    record = load_file(w.record).records[0]
    assert len(result.outcomes) == 1 and (record.valid, record.invalid_reason) == (False, "timeout")


def test_sim_hanging_command_is_stopped_by_the_silence_watchdog(tmp_path: Path) -> None:
    w = make_world(tmp_path)
    script = {"steps": [{"calls": [{"shell": "sleep 600"}]}, {"say": "never"}]}
    cfg = config(w, cases=1, confined=False, script=script, silence_timeout=2)
    cfg.arms = cfg.arms[:1]
    result = run_batch(cfg)
    record = load_file(w.record).records[0]
    assert len(result.outcomes) == 1 and (record.valid, record.invalid_reason) == (False, "timeout")
    assert not [p for p in _sleepers()], "the hanging command outlived its run"


def _sleepers() -> Iterator[int]:
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and (entry / "cmdline").read_bytes() == b"sleep\x00600\x00":
                yield int(entry.name)
        except OSError:
            continue


FAULTS = {
    "429": (Fault("status", step=1, status=429), "quota"),
    "500": (Fault("status", step=1, status=500), "host-error"),
    "529": (Fault("status", step=1, status=529), "host-error"),
    "cut mid-stream": (Fault("cut", step=1), "host-error"),
}


@pytest.mark.parametrize("fault", list(FAULTS))
def test_model_server_fault_is_invalid_then_retry_invalid_reruns_it(tmp_path: Path, installed_hosts: Path,
                                                                     fault: str) -> None:
    w = make_world(tmp_path)
    binary = claude(installed_hosts)
    injected, reason = FAULTS[fault]

    def faulty(*args: Any, **kw: Any) -> HostRun:  # Claude retries ~70 s by default; once is enough here
        return run_host(*args, faults=[injected], extra_env={"CLAUDE_CODE_MAX_RETRIES": "1"}, **kw)

    result = run_batch(claude_config(w, binary, cases=1), run_host_fn=faulty)
    first = load_file(w.record).records
    assert first and all((r.valid, r.invalid_reason) == (False, reason) for r in first)
    if reason == "quota":
        assert result.quota is not None and len(first) == 1  # stopped launching: no retry loop
    else:
        assert result.quota is None and len(first) == 2
    again = run_batch(claude_config(w, binary, cases=1, resume=True, retry_invalid=True))
    assert again.complete and len(again.outcomes) == 2
    records = load_file(w.record).records
    valid = Counter(RunKey.of(r) for r in records if r.valid)
    assert set(valid) == {p.key for p in plan(claude_config(w, binary, cases=1))} and set(valid.values()) == {1}
    assert len(records) == len(first) + 2
    assert_clean_file(w)


@pytest.fixture
def tiny_disk(tmp_path: Path) -> Iterator[Path]:
    """A 64 KiB tmpfs, almost filled, for the records file; unmounted afterwards."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)], capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root / CAP_SYS_ADMIN): {done.stderr.strip()}")
    try:
        (mount / "filler").write_bytes(b"x" * 52 * 1024)
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=True)


def test_records_disk_full_stops_the_batch_with_a_clear_error_and_no_torn_line(tmp_path: Path,
                                                                               tiny_disk: Path) -> None:
    w = make_world(tmp_path)
    w.record = tiny_disk / "batch.jsonl"
    proc = batch_cli(w, "sim", runs=3, env={"TMPDIR": str(tmp_path)})
    out, err = proc.communicate()
    text = err.decode()
    assert proc.returncode == 3, text
    assert "Traceback" not in text and "No space left on device" in text and str(w.record) in text
    assert "PARTIAL" in out.decode()
    keys = assert_clean_file(w)
    assert 0 < len(keys) < 12 and set(keys.values()) == {1}
    assert not (tiny_disk / "batch.jsonl.torn").exists()
