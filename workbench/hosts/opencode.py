"""OpenCode: `opencode run --format json PROMPT` with an OPENCODE_CONFIG file.

Scripted runs use an `@ai-sdk/openai-compatible` provider (bundled) at the model server.
`OPENCODE_DISABLE_MODELS_FETCH=1` stops the model-catalogue download; its background install of
its plugin package is pointed at a dead 127.0.0.1 port (the failure is harmless).
`experimental.continue_loop_on_deny` keeps a denied external-directory access from ending the run.
The plugin copy's skills are linked into `~/.config/opencode/skills` (user skills).
"""

from __future__ import annotations

import json
from typing import Any

from workbench.hosts.base import FAKE_KEY, HostAdapter, Launch, RunSpec

PROVIDER_HOSTS = {"anthropic": ("api.anthropic.com:443",), "openai": ("api.openai.com:443",),
                  "opencode": ("opencode.ai:443",), "google": ("generativelanguage.googleapis.com:443",),
                  "openrouter": ("openrouter.ai:443",), "xai": ("api.x.ai:443",)}
"""Endpoints per provider prefix of a real model name (what the closed network lets through)."""
DEAD_REGISTRY = "http://127.0.0.1:9/"
"""The discard port: nothing listens, so npm fails at once without leaving the machine."""


def config(run: RunSpec) -> dict[str, Any]:
    """The OPENCODE_CONFIG JSON for the run."""
    data: dict[str, Any] = {"$schema": "https://opencode.ai/config.json", "autoupdate": False,
                            "share": "disabled", "experimental": {"continue_loop_on_deny": True}}
    if run.scripted:
        data["provider"] = {"workbench": {
            "npm": "@ai-sdk/openai-compatible", "name": "workbench scripted model",
            "options": {"baseURL": f"{run.url()}/v1", "apiKey": FAKE_KEY},
            "models": {"scripted": {"name": "scripted", "tool_call": True}}}}
        data["model"] = "workbench/scripted"
    else:
        data["model"] = run.model
    if run.add_dirs:
        data["permission"] = {"external_directory": {f"{d}/**": "allow" for d in run.add_dirs}}
    return data


class OpenCodeAdapter(HostAdapter):
    name = "opencode"
    package = "opencode-ai"
    pinned = "1.18.33"
    login_files = (".local/share/opencode/auth.json",)
    skills_dir = ".config/opencode/skills"
    refresh_failures = ("Failed to write auth data",)
    """Measured (tests/test_login_refresh.py): through a read-only login its built-in ChatGPT plugin asks
    for a new token, cannot save it (`AuthError: Failed to write auth data ... EACCES ... auth.json`, in
    its log only: hence `--print-logs --log-level ERROR`, errors to stderr) and goes on with the new token
    in memory. Its refresh endpoint (auth.openai.com) is not in `PROVIDER_HOSTS`."""
    # No `efforts`: `opencode run --variant high` ("provider-specific reasoning effort") changed nothing
    # in the requests the scripted server received, so a record could not say the effort was used.

    def reach(self, run: RunSpec) -> tuple[str, ...]:
        """A real model's provider is the part before the slash (`anthropic/claude-...`)."""
        if run.scripted:
            return super().reach(run)
        return PROVIDER_HOSTS.get(run.model.split("/", 1)[0], ())

    def build(self, run: RunSpec) -> Launch:
        config_path = run.run_dir / "opencode.json"
        argv = [str(run.binary), "run", "--print-logs", "--log-level", "ERROR", "--format", "json", run.prompt]
        env = self.base_env(run)
        env.update({"OPENCODE_CONFIG": str(config_path), "OPENCODE_DISABLE_MODELS_FETCH": "1",
                    "OPENCODE_DISABLE_AUTOUPDATE": "1", "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
                    "npm_config_registry": DEAD_REGISTRY})
        files = {config_path: json.dumps(config(run), indent=2) + "\n"}
        return self.launch(run, argv, env, files)
