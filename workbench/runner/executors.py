"""Where a batch's runs execute: the local thread pool (default) or Ray tasks (`--executor ray`).

A unit of work is one `RunRequest` (built on the driver by the one request builder) and comes back as
the run's record. Executors only run: the driver alone guards, appends records and decides retries.
`wait` returns the finished runs; a run whose worker or node died comes back with `failure` set (an
infrastructure failure: the run may have been spent and is never recorded by the executor itself).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

from workbench.core.errors import InputError
from workbench.core.models import ExecutorInfo, RunRecord
from workbench.runner.execute import execute
from workbench.runner.hostrun import HostRun, run_host
from workbench.runner.request import RunRequest

if TYPE_CHECKING:
    from workbench.runner.batch import Planned

ExecutorKind = Literal["threads", "ray"]


@dataclass(frozen=True)
class Job:
    """One run to execute: the planned run (driver side) and its request (what the worker gets)."""

    planned: Planned
    request: RunRequest
    attempt: int = 0
    """How many times the driver has already submitted this run (an infrastructure retry is 1, 2 ...)."""


@dataclass
class Finished:
    """One run the executor is done with: its record, or the infrastructure failure that lost it."""

    job: Job
    record: RunRecord | None = None
    seconds: dict[str, float] = field(default_factory=dict)
    leftovers: list[str] = field(default_factory=list)
    executor: ExecutorInfo | None = None
    stream: bytes | None = None
    """The host's raw stdout, when the executor was asked for it."""
    failure: str | None = None
    fatal: bool = False
    """The failure must stop the batch (the confinement proof failed on a node)."""


class Executor(Protocol):
    """What the batch loop needs: submit runs, wait for some to finish, cancel the ones in flight."""

    kind: ExecutorKind

    def submit(self, job: Job) -> None: ...

    def running(self) -> list[Job]: ...

    def wait(self, timeout: float | None = None) -> list[Finished]:
        """The runs finished since the last call; blocks until one is or TIMEOUT passes ([] then)."""
        ...

    def cancel(self) -> None:
        """Stop every run in flight (their processes killed); they come back from no later `wait`."""
        ...

    def close(self) -> None: ...


def run_unit(request: RunRequest, keep_stream: bool = False,
             run_host_fn: Callable[..., HostRun] = run_host) -> tuple[RunRecord, dict[str, float], list[str], bytes | None]:
    """Execute one request where the worker is: its record, timings, leftovers and (asked) the raw stream."""
    if not keep_stream:
        result = execute(request, run_host_fn=run_host_fn)
        return result.record, result.seconds, result.leftovers, None
    result = execute(replace(request, keep=True), run_host_fn=run_host_fn)
    try:
        stream = result.run.stdout_path.read_bytes()
    finally:
        shutil.rmtree(result.run_dir, ignore_errors=True)
    return result.record, result.seconds, result.leftovers, stream


class ThreadExecutor:
    """J runs at once in this process's threads; an exception of a run (the TUI's abort) propagates."""

    kind: ExecutorKind = "threads"

    def __init__(self, jobs: int, run_host_fn: Callable[..., HostRun] = run_host, keep_stream: bool = False) -> None:
        self._pool = ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="batch-run")
        self._running: dict[Future[tuple[RunRecord, dict[str, float], list[str], bytes | None]], Job] = {}
        self._run_host_fn = run_host_fn
        self._keep_stream = keep_stream

    def submit(self, job: Job) -> None:
        fut = self._pool.submit(run_unit, job.request, self._keep_stream, self._run_host_fn)
        self._running[fut] = job

    def running(self) -> list[Job]:
        return list(self._running.values())

    def wait(self, timeout: float | None = None) -> list[Finished]:
        if not self._running:
            return []
        done, _ = wait(self._running, timeout=timeout, return_when=FIRST_COMPLETED)
        out = []
        for fut in done:
            job = self._running.pop(fut)
            record, seconds, leftovers, stream = fut.result()
            out.append(Finished(job, record, seconds, leftovers, ExecutorInfo(kind="threads"), stream))
        return out

    def cancel(self) -> None:
        for fut in self._running:
            fut.cancel()

    def close(self) -> None:
        self._pool.shutdown(wait=True)


@dataclass(frozen=True)
class ExecutorChoice:
    """The executor a batch asked for and its Ray settings."""

    kind: ExecutorKind = "threads"
    address: str | None = None
    """A running Ray cluster (`ray://HOST:PORT` or `auto`); None starts a local Ray on 127.0.0.1."""
    login_slots: dict[str, int] = field(default_factory=dict)
    """Host -> runs at once across the cluster (the Ray custom resource `login:HOST`)."""
    keep_stream: bool = False


def parse_login_slots(values: list[str]) -> dict[str, int]:
    """`HOST=N` options as a mapping; a bad one is bad input naming the option."""
    out: dict[str, int] = {}
    for value in values:
        host, sep, n = value.partition("=")
        if not sep or not host.strip() or not n.strip().isdigit() or int(n) < 1:
            raise InputError(f"--login-slots wants HOST=N with N at least 1, got {value!r}", field="--login-slots")
        out[host.strip()] = int(n)
    return out


def make_executor(choice: ExecutorChoice, jobs: int, hosts: list[str],
                  run_host_fn: Callable[..., HostRun] = run_host, workdir: Path | None = None) -> Executor:
    """The executor CHOICE names; Ray is imported only here, and a missing extra is bad input naming it."""
    if choice.kind == "threads":
        return ThreadExecutor(jobs, run_host_fn, choice.keep_stream)
    import importlib.util

    if importlib.util.find_spec("ray") is None:
        raise InputError("--executor ray needs the ray extra: pip install 'trigger-workbench[ray]'", field="--executor")
    from workbench.runner.ray_executor import RayExecutor

    return RayExecutor(choice, jobs, hosts, workdir)
