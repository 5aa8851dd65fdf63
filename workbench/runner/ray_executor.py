"""The Ray executor: each run request is one Ray task; imported only with `--executor ray`.

Ray's own retries are off (`max_retries=0`, `retry_exceptions=False`): a task Ray re-ran silently
would buy the run twice. A worker or node that dies comes back as an infrastructure failure and the
driver decides. Per-login concurrency is the custom resource `login:HOST` (each run of HOST takes
one), so a cluster never runs more of a login at once than its nodes declare. Before its first run,
each worker proves the confinement where it is (`proof.prove_cached`); the record names the node.
Without `--address` a local Ray starts on 127.0.0.1 (no dashboard) and stops with the batch. Ray's
usage statistics are switched off before it is imported: nothing leaves the machine.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

import ray  # noqa: E402
from ray.exceptions import GetTimeoutError, RayError, RayTaskError, TaskCancelledError  # noqa: E402

from workbench.core.errors import InputError
from workbench.core.models import ExecutorInfo
from workbench.hosts.base import clean_env
from workbench.runner.executors import ExecutorChoice, ExecutorKind, Finished, Job, run_unit
from workbench.runner.process import sweep
from workbench.runner.proof import ProofFailed, prove_cached
from workbench.runner.request import RunRequest

CANCEL_GRACE = 5.0
"""Seconds a cancelled task gets to stop its host's process group before its worker is killed."""


def _run_task(request: RunRequest, keep_stream: bool) -> tuple[Any, ...]:
    """On the worker: prove the confinement on this node (once per worker process), then run."""
    node = ray.get_runtime_context().get_node_id()
    workdir = request.workdir if request.workdir is not None and request.workdir.is_dir() else None
    if workdir is None:  # the driver's scratch folder is not on this node
        workdir = Path(tempfile.mkdtemp(prefix="wb-ray-node-"))
    proof = "unconfined"
    if request.confinement is not None:
        prove_cached(request.confinement, workdir, clean_env(os.environ))
        proof = "passed"
    record, seconds, leftovers, stream = run_unit(replace(request, workdir=workdir), keep_stream)
    return record, seconds, leftovers, stream, node, proof


RUN_TASK = ray.remote(max_retries=0, retry_exceptions=False, num_cpus=1)(_run_task)
"""The one remote function: retries off, one CPU per run."""


class RayExecutor:
    """Runs as Ray tasks on a local Ray (started here) or a cluster (`address`)."""

    kind: ExecutorKind = "ray"

    def __init__(self, choice: ExecutorChoice, jobs: int, hosts: list[str], workdir: Path | None = None) -> None:
        self._started = False
        if not ray.is_initialized():
            if choice.address:
                ray.init(address=choice.address, log_to_driver=False)
            else:
                resources = {f"login:{h}": float(n) for h, n in choice.login_slots.items()}
                ray.init(num_cpus=max(1, jobs), include_dashboard=False, _node_ip_address="127.0.0.1",
                         resources=resources, log_to_driver=False)
                self._started = True
        have = ray.cluster_resources()
        for host in choice.login_slots:
            if have.get(f"login:{host}", 0) < 1:
                self.close()
                raise InputError(f"the Ray cluster declares no login:{host} resource; start its nodes with "
                                 f"--resources '{{\"login:{host}\": N}}'", field="--login-slots")
        self._slots = dict(choice.login_slots)
        self._keep_stream = choice.keep_stream
        self._workdir = workdir
        self._running: dict[ray.ObjectRef, Job] = {}

    def options_for(self, host: str) -> dict[str, Any]:
        """The task options of a run of HOST: one unit of its login resource when it has slots."""
        return {"resources": {f"login:{host}": 1}} if host in self._slots else {}

    def submit(self, job: Job) -> None:
        """Send the run to Ray without its cancel event (a thread lock cannot travel; `cancel` stops it)."""
        request = replace(job.request, cancel=None)
        ref = RUN_TASK.options(**self.options_for(job.request.host)).remote(request, self._keep_stream)
        self._running[ref] = job

    def running(self) -> list[Job]:
        return list(self._running.values())

    def wait(self, timeout: float | None = None) -> list[Finished]:
        if not self._running:
            return []
        ready, _ = ray.wait(list(self._running), num_returns=1, timeout=timeout)
        return [self._finished(ref, self._running.pop(ref)) for ref in ready]

    def _finished(self, ref: ray.ObjectRef, job: Job) -> Finished:
        try:
            record, seconds, leftovers, stream, node, proof = ray.get(ref)
        except RayTaskError as err:
            cause = err.cause
            if isinstance(cause, ProofFailed):
                return Finished(job, failure=f"on a Ray node: {cause}", fatal=True)
            if isinstance(cause, Exception):
                raise cause from None
            raise
        except (TaskCancelledError, GetTimeoutError) as err:
            return Finished(job, failure=f"cancelled: {type(err).__name__}")
        except RayError as err:  # a worker or node died: the run may have been spent
            return Finished(job, failure=f"{type(err).__name__}: {str(err).splitlines()[0][:200] if str(err) else ''}")
        return Finished(job, record, seconds, leftovers, ExecutorInfo(kind="ray", node=node, proof=proof), stream)

    def cancel(self) -> None:
        """Ask every task to stop, give them CANCEL_GRACE, then kill their workers (`force=True`) and
        the host processes a killed worker left under this machine's scratch folder."""
        refs = list(self._running)
        for ref in refs:
            ray.cancel(ref, force=False)
        if refs:
            ray.wait(refs, num_returns=len(refs), timeout=CANCEL_GRACE)
        for ref in refs:
            ray.cancel(ref, force=True)
        self._running.clear()
        if self._workdir is not None:
            for home in self._workdir.glob("wb-batch-*/home"):
                sweep(home)

    def close(self) -> None:
        if self._started and ray.is_initialized():
            ray.shutdown()
        self._started = False
