"""Grok CLI (`@vibe-kit/grok-cli`): `grok -p PROMPT -d REPO -m MODEL`, headless, verified offline.

Headless `-p` auto-approves every tool and prints the conversation as JSON lines when the run ends
(`workbench.core.parsers.grok`). The scripted server is given by `GROK_BASE_URL` and the key by
`GROK_API_KEY`, never by `-u`/`-k`: those print "✅ … saved to ~/.grok/user-settings.json" on
stdout and write the settings file, so with the environment alone the stream is pure JSON and the
temp HOME stays empty. The process starts in the run's tmp dir, not the repo: the client loads a
`.env` from its start directory (dotenv), which would let a repo set its key, base URL or
`MORPH_API_KEY` (an extra editing tool calling a remote service); `-d` then moves it into the repo.
It has no skills mechanism, so the plugin's skills are not linked anywhere.

Every run creates `<repo>/.grok/settings.json` (its project settings, `{"model": ...}`) when the repo
has none: a write by the client itself, not the model (`repo_noise`, for the repo watcher).
"""

from __future__ import annotations

import os

from workbench.hosts.base import FAKE_KEY, HostAdapter, Launch, RunSpec

KEY_VARS = ("GROK_API_KEY", "XAI_API_KEY")
"""A real model's key, passed on from the outer environment (scripted runs get FAKE_KEY)."""
SCRIPTED_MODEL = "grok-code-fast-1"
"""The client's default model name, sent to the scripted server (which answers any name)."""
MAX_TOOL_ROUNDS = "40"


class GrokAdapter(HostAdapter):
    name = "grok"
    package = "@vibe-kit/grok-cli"
    pinned = "0.0.34"
    login_files = (".grok/user-settings.json",)
    repo_noise = (".grok/settings.json",)
    live_stream = False  # it prints the whole conversation at exit: only the scripted server's turn clock times calls
    auth_env = KEY_VARS
    api_hosts = ("api.x.ai:443",)

    def build(self, run: RunSpec) -> Launch:
        model = SCRIPTED_MODEL if run.scripted else run.model
        argv = [str(run.binary), "-p", run.prompt, "-d", str(run.repo), "-m", model,
                "--max-tool-rounds", MAX_TOOL_ROUNDS]
        env = self.base_env(run)
        env["MORPH_API_KEY"] = ""  # set empty so no .env can enable the remote Morph editor
        if run.scripted:
            env.update({"GROK_BASE_URL": f"{run.url()}/v1", "GROK_API_KEY": FAKE_KEY})
        else:
            env.update({name: os.environ[name] for name in KEY_VARS if name in os.environ})
            if "GROK_API_KEY" not in env and "XAI_API_KEY" in env:
                env["GROK_API_KEY"] = env["XAI_API_KEY"]
        launch = self.launch(run, argv, env)
        launch.cwd = run.tmp
        return launch
