"""Red team, kill -9 of the batch: no host process outlives it, judged from this (second) process by
/proc; and `--resume` sweeps what a dead unconfined batch left (an escaped background process)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from batch_support import batch_cli, make_world


def _pids(pred: object) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if pred(entry):  # type: ignore[operator]
                out.append(int(entry.name))
        except OSError:
            continue
    return out


def sleeping(seconds: int) -> list[int]:
    want = f"sleep\0{seconds}\0".encode()
    return _pids(lambda e: (e / "cmdline").read_bytes() == want)


def under(root: Path) -> list[int]:
    """Processes whose HOME is inside ROOT (a run's temp HOME in a batch's scratch folder)."""
    mark = b"HOME=" + str(root).encode() + b"/"
    return _pids(lambda e: any(v.startswith(mark) for v in (e / "environ").read_bytes().split(b"\0")))


def await_true(check: object, limit: float = 120.0) -> bool:
    """Poll CHECK until true (an event, not a timing): False only if it never happened within LIMIT."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if check():  # type: ignore[operator]
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def short_tmp() -> Iterator[Path]:
    """A short scratch path: Claude Code's own sandbox puts unix sockets in $TMPDIR (108-byte limit)."""
    import shutil
    import tempfile

    path = Path(tempfile.mkdtemp(prefix="wbk-", dir="/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def killer() -> Iterator[list[int]]:
    """Pids the test must not leave behind whatever happens."""
    pids: list[int] = []
    yield pids
    for pid in pids + sleeping(352) + sleeping(353) + sleeping(354):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def _script(tmp: Path, *commands: str) -> Path:
    path = tmp / "hostile.json"
    steps = [{"calls": [{"shell": c}]} for c in commands] + [{"say": "done"}]
    path.write_text(json.dumps({"steps": steps}), encoding="utf-8")
    return path


@pytest.mark.slow
@pytest.mark.parametrize("host", ["sim", "claude"])
def test_kill_9_of_a_confined_batch_leaves_no_host_process(short_tmp: Path, host: str, killer: list[int],
                                                         request: pytest.FixtureRequest) -> None:
    tmp_path = short_tmp
    w = make_world(tmp_path)
    env = {"TMPDIR": str(tmp_path)}
    if host != "sim":
        env["WORKBENCH_HOSTS_DIR"] = str(request.getfixturevalue("installed_hosts"))
    proc = batch_cli(w, host, "--script", str(_script(tmp_path, "sleep 352")), env=env, runs=1)
    killer.append(proc.pid)
    assert await_true(lambda: sleeping(352)), "the run never started its command"
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate()
    assert await_true(lambda: not under(tmp_path) and not sleeping(352), 60), \
        f"left alive after kill -9: {under(tmp_path)} {sleeping(352)}"


@pytest.mark.slow
def test_resume_sweeps_the_leftovers_of_a_dead_unconfined_batch(tmp_path: Path, killer: list[int]) -> None:
    w = make_world(tmp_path)
    env = {"TMPDIR": str(tmp_path)}
    script = _script(tmp_path, "setsid nohup sleep 353 >/dev/null 2>&1 </dev/null & sleep 354")
    proc = batch_cli(w, "sim", "--script", str(script), "--unconfined", env=env, runs=1)
    killer.append(proc.pid)
    assert await_true(lambda: sleeping(353) and sleeping(354)), "the run never started its commands"
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate()
    escaped = sleeping(353)
    assert escaped, "the control: unconfined, the escaped process survives the batch's kill -9"
    scratch = list(tmp_path.glob("wb-batch-*"))
    assert scratch and under(scratch[0])
    resumed = batch_cli(w, "sim", "--script", str(_script(tmp_path, "echo ok")), "--unconfined", "--resume",
                        env=env, runs=1)
    out, err = resumed.communicate()
    assert resumed.returncode == 0, err.decode()
    assert not sleeping(353) and not sleeping(354) and not under(tmp_path)
    assert not list(tmp_path.glob("wb-batch-*")), "the dead batch's scratch folder is still there"
    assert b"leftover process(es) of a dead batch" in err
