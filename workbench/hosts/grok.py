"""Grok, by command line only — NOT verified against a live client (none runs offline here).

The command is the one the AgentsMD harness used. No scripted model server mode: how to point
the client at another base URL is unknown, so a scripted Grok run is refused with a clear error.
"""

from __future__ import annotations

from workbench.core.errors import InputError
from workbench.hosts.base import HostAdapter, Launch, RunSpec

KEY_VARS = ("XAI_API_KEY", "GROK_API_KEY")


class GrokAdapter(HostAdapter):
    name = "grok"
    package = ""
    pinned = ""
    login_files = (".grok/user-settings.json",)
    verified = False
    auth_env = KEY_VARS
    api_hosts = ("api.x.ai:443",)

    def build(self, run: RunSpec) -> Launch:
        if run.scripted:
            raise InputError("grok cannot run against the scripted model server (unverified host): give a real model",
                             field="model")
        argv = [str(run.binary), "-p", run.prompt, "-m", run.model, "--always-approve", "--sandbox", "workspace",
                "--output-format", "streaming-messages-json", "--max-turns", "40", "--cwd", str(run.repo)]
        env = self.base_env(run)
        return self.launch(run, argv, env)
