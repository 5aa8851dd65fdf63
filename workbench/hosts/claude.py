"""Claude Code: `claude PROMPT -p --output-format stream-json --verbose --permission-mode acceptEdits --add-dir ...`.

The prompt goes BEFORE `--add-dir` (which takes several values and would swallow it).
`CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1` is needed and sufficient to stop its direct
connections for metrics and flags, which ignore the base URL.
"""

from __future__ import annotations

from workbench.hosts.base import FAKE_KEY, HostAdapter, Launch, RunSpec


class ClaudeAdapter(HostAdapter):
    name = "claude"
    package = "@anthropic-ai/claude-code"
    pinned = "2.1.197"
    login_files = (".claude/.credentials.json", ".claude.json")

    def build(self, run: RunSpec) -> Launch:
        argv = [str(run.binary), run.prompt, "-p", "--output-format", "stream-json", "--verbose",
                "--permission-mode", "acceptEdits", "--add-dir", str(run.repo), *map(str, run.add_dirs)]
        env = self.base_env(run)
        env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] = "1"
        if run.scripted:
            env["ANTHROPIC_BASE_URL"] = run.url()
            env["ANTHROPIC_API_KEY"] = FAKE_KEY
        else:
            argv += ["--model", run.model]
        return self.launch(run, argv, env)
