"""Claude Code: `claude PROMPT -p --output-format stream-json --verbose --permission-mode acceptEdits --add-dir ...`.

The prompt goes BEFORE `--add-dir` (which takes several values and would swallow it).
`CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1` is needed and sufficient to stop its direct
connections for metrics and flags, which ignore the base URL.
A plugin copy with `.claude-plugin/plugin.json` is loaded with `--plugin-dir` (its skills are then
`<plugin>:<skill>`); a bare skills folder is linked into the temp HOME's `~/.claude/skills`.
"""

from __future__ import annotations

from pathlib import Path

from workbench.core.hostinfo import HOSTS
from workbench.hosts.base import FAKE_KEY, HostAdapter, Launch, RunSpec

API_BODIES = Path("tmp") / "api-bodies"
"""Where, in the run folder, a real-model run writes each request body (what reached the model)."""


def is_plugin(folder: Path | None) -> bool:
    """Whether FOLDER is a Claude Code plugin (has `.claude-plugin/plugin.json`)."""
    return folder is not None and (folder / ".claude-plugin" / "plugin.json").is_file()


class ClaudeAdapter(HostAdapter):
    name = "claude"
    package = "@anthropic-ai/claude-code"
    pinned = "2.1.197"
    login_files = (".claude/.credentials.json", ".claude.json")
    skills_dir = ".claude/skills"
    api_hosts = ("api.anthropic.com:443",)
    refresh_failures = ("OAuth token has expired",)
    """Measured (tests/test_login_refresh.py): through a read-only login Claude Code asks for a new token,
    cannot save it, prints nothing, goes on with the expired one and ends `Failed to authenticate. API
    Error: 401 OAuth token has expired`. Its token endpoint (platform.claude.com) is not in `api_hosts`:
    confined, a refresh never reaches it, so the user's refresh token is never spent."""
    efforts = HOSTS["claude"].efforts
    """`claude --help`: `--effort <level>`, "Effort level for the current session"."""

    def effort_argv(self, effort: str) -> list[str]:
        return ["--effort", effort]

    def skill_links(self, run: RunSpec, skills_dir: str | None = None) -> dict[Path, Path]:
        """User-skill links only when the plugin copy is not a Claude plugin (that one is `--plugin-dir`)."""
        return {} if is_plugin(run.plugin) else super().skill_links(run, skills_dir)

    def build(self, run: RunSpec) -> Launch:
        argv = [str(run.binary), run.prompt, "-p", "--output-format", "stream-json", "--verbose",
                "--permission-mode", "acceptEdits", "--add-dir", str(run.repo), *map(str, run.add_dirs)]
        if run.plugin is not None and is_plugin(run.plugin):
            argv += ["--plugin-dir", str(run.plugin)]
        env = self.base_env(run)
        env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] = "1"
        if run.scripted:
            env["ANTHROPIC_BASE_URL"] = run.url()
            env["ANTHROPIC_API_KEY"] = FAKE_KEY
        else:
            argv += ["--model", run.model]
            env["OTEL_LOG_RAW_API_BODIES"] = f"file:{run.run_dir / API_BODIES}"  # read by runner/api_bodies.py
        return self.launch(run, argv, env)
