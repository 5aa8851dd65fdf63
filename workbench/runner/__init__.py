"""Running host processes: the watchdog process runner and the end-to-end host run."""

from workbench.runner.hostrun import HostRun, run_host
from workbench.runner.process import ProcessResult, run_process

__all__ = ["HostRun", "ProcessResult", "run_host", "run_process"]
