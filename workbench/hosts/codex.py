"""Codex CLI: `codex exec --json -s workspace-write --skip-git-repo-check PROMPT` with its own CODEX_HOME.

The config names a Responses-API provider at the model server (`wire_api = "responses"`; retries 0
so a failing model ends the run fast) and `model = "gpt-5.5"`, a name from the CLI's bundled list
(another name errors and loses the freeform `apply_patch` tool). Analytics and the remote
plugin/app features are off to stop outside traffic. Its Linux sandbox re-executes itself as
`codex-linux-sandbox`, so that alias of the native binary is linked into the run's bin dir.
The plugin copy's skills are linked into `$CODEX_HOME/skills` (user skills).
"""

from __future__ import annotations

from pathlib import Path

import tomlkit

from workbench.core.hostinfo import HOSTS
from workbench.hosts.base import FAKE_KEY, HostAdapter, Launch, RunSpec

SCRIPTED_MODEL = "gpt-5.5"
KEY_VAR = "WORKBENCH_SCRIPTED_KEY"


def config_toml(run: RunSpec) -> str:
    """$CODEX_HOME/config.toml for the run."""
    config: dict[str, object] = {"model": SCRIPTED_MODEL if run.scripted else run.model, "approval_policy": "never"}
    if run.scripted:
        config["model_provider"] = "workbench"
        config["model_providers"] = {"workbench": {
            "name": "workbench scripted model", "base_url": f"{run.url()}/v1", "wire_api": "responses",
            "env_key": KEY_VAR, "request_max_retries": 0, "stream_max_retries": 0}}
    config["analytics"] = {"enabled": False}
    config["features"] = {"plugins": False, "remote_plugin": False, "apps": False}
    return tomlkit.dumps(config)


def native_binary(binary: Path) -> Path:
    """The native codex binary behind the npm shim (the shim is `node_modules/.bin/codex`)."""
    real = binary.resolve()
    if real.suffix != ".js":
        return real
    found = sorted(real.parents[2].glob("codex-*/vendor/*/bin/codex"))
    return found[0] if found else real


class CodexAdapter(HostAdapter):
    name = "codex"
    package = "@openai/codex"
    pinned = "0.171.0"
    login_files = (".codex/auth.json",)
    skills_dir = ".codex/skills"
    api_hosts = ("api.openai.com:443", "chatgpt.com:443")
    refresh_failures = ("Failed to refresh token:",)
    """Measured (tests/test_login_refresh.py): `credential file is read-only` as the sandbox uid, `Read-only
    file system (os error 30)` otherwise; retried on every request, then exit 1. Its refresh endpoint
    (auth.openai.com) is not in `api_hosts`: confined, a refresh never reaches it, so the user's refresh
    token is never spent on a token that could not be saved."""
    efforts = HOSTS["codex"].efforts
    """The `model_reasoning_effort` config values, set with `-c` for this run only."""

    def effort_argv(self, effort: str) -> list[str]:
        return ["-c", f'model_reasoning_effort="{effort}"']
    """API-key login talks to api.openai.com, a ChatGPT login to chatgpt.com/backend-api/codex."""

    def build(self, run: RunSpec) -> Launch:
        codex_home = run.home / ".codex"
        # No --add-dir for run.add_dirs: they are extra READABLE folders, and Codex reads anywhere under
        # workspace-write. A writable root makes its sandbox bind `<dir>/.git`, which fails on the read-only
        # plugin copy inside the confinement ("bwrap: Can't mkdir <plugin>/.git") and breaks every command.
        argv = [str(run.binary), "exec", "--json", "-s", "workspace-write", "--skip-git-repo-check", run.prompt]
        env = self.base_env(run)
        env["CODEX_HOME"] = str(codex_home)
        if run.scripted:
            env[KEY_VAR] = FAKE_KEY
        files = {codex_home / "config.toml": config_toml(run)}
        links = {run.bin_dir / "codex-linux-sandbox": native_binary(run.binary)}
        return self.launch(run, argv, env, files, links)
