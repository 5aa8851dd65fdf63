"""Gemini CLI: `gemini -p PROMPT -o stream-json --skip-trust --approval-mode auto_edit ...`.

`-m gemini-2.5-pro` skips the router request; `auto_edit` offers replace/write_file and
`--allowed-tools run_shell_command` the shell. ~/.gemini/settings.json selects API-key auth (for
the scripted server; OAuth with a real model) and turns usage statistics, telemetry and
auto-update off.

Skills: the plugin copy's skills are linked into `~/.gemini/skills` (user skills). Skills are on by
default (`skills.enabled`, set explicitly anyway), but headless runs (`-p`) DENY `activate_skill`
(bundled policy `write.toml`: `interactive = false` -> deny, like the shell), so the tool was never
offered ("Tool \"activate_skill\" not found"). `--allowed-tools` lifts that deny for it too.
"""

from __future__ import annotations

import json
from typing import Any

from workbench.hosts.base import FAKE_KEY, HostAdapter, Launch, RunSpec

SCRIPTED_MODEL = "gemini-2.5-pro"
ALLOWED_TOOLS = "run_shell_command,activate_skill"
"""Tools a headless run would otherwise deny (the shell, and loading a skill)."""


def settings(run: RunSpec) -> dict[str, Any]:
    """~/.gemini/settings.json for the run."""
    auth = "gemini-api-key" if run.scripted else "oauth-personal"
    return {"security": {"auth": {"selectedType": auth}}, "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False}, "general": {"disableAutoUpdate": True}, "skills": {"enabled": True}}


class GeminiAdapter(HostAdapter):
    name = "gemini"
    package = "@google/gemini-cli"
    pinned = "0.61.0"
    login_files = (".gemini/oauth_creds.json", ".gemini/google_accounts.json")
    skills_dir = ".gemini/skills"
    api_hosts = ("cloudcode-pa.googleapis.com:443", "generativelanguage.googleapis.com:443",
                 "oauth2.googleapis.com:443")
    """OAuth-personal talks to Code Assist (cloudcode-pa); access tokens are refreshed at oauth2."""

    def build(self, run: RunSpec) -> Launch:
        model = SCRIPTED_MODEL if run.scripted else run.model
        argv = [str(run.binary), "-p", run.prompt, "-o", "stream-json", "--skip-trust", "--approval-mode",
                "auto_edit", "--allowed-tools", ALLOWED_TOOLS, "-m", model]
        for extra in run.add_dirs:
            argv += ["--include-directories", str(extra)]
        env = self.base_env(run)
        if run.scripted:
            env["GOOGLE_GEMINI_BASE_URL"] = run.url()
            env["GEMINI_API_KEY"] = FAKE_KEY
        files = {run.home / ".gemini" / "settings.json": json.dumps(settings(run), indent=2) + "\n"}
        return self.launch(run, argv, env, files)
