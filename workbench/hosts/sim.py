"""The offline `sim` host as an adapter: `python -m workbench.sim`, launched and watched like the real hosts.

The sim needs no model server and no npm binary: it executes the run's resolved script (written by
the runner) or, without one, its seeded wording policy, and prints Claude Code's stream-json. So
`uses_server` is False, its binary is this Python, and the plugin copy is passed as `--plugin`.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from workbench.core.hostinfo import HOSTS
from workbench.hosts.base import SCRIPTED, HostAdapter, Launch, RunSpec

NO_OUTPUT = "no-output"
"""The provider fault the sim simulates itself (Claude Code's synthetic 529 message, no model output)."""


class SimAdapter(HostAdapter):
    name = "sim"
    package = ""
    pinned = ""
    uses_server = False
    efforts = HOSTS["sim"].efforts
    """Every level, so a pipeline can be tried offline with an effort; the simulation has none to set."""

    def default_binary(self) -> Path:
        return Path(sys.executable)

    def build(self, run: RunSpec) -> Launch:
        argv = [str(run.binary), "-m", "workbench.sim", "--prompt", run.prompt, "--repo", str(run.repo),
                "--home", str(run.home), "--seed", str(run.seed)]
        if run.plugin is not None:
            argv += ["--plugin", str(run.plugin)]
        if run.script_file is not None:
            argv += ["--script", str(run.script_file)]
        if run.model and run.model != SCRIPTED:
            argv += ["--model", run.model]
        if run.fault == NO_OUTPUT:
            argv += ["--fault", NO_OUTPUT]
        env = self.base_env(run)
        root = str(Path(__file__).resolve().parent.parent.parent)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
        return self.launch(run, argv, env)
