"""Grok Build `--output-format streaming-messages-json` — UNVERIFIED against a live client.

No Grok client runs on this machine, so this parser follows the format as public sources describe
it (xAI's Grok Build CLI >= 0.2.117 / 1.0.x; third-party integrations that captured real runs):
NDJSON in the Anthropic messages wire shape, like Claude Code's stream-json — `system/init`
(model, tools, skills), optional `stream_event` partials, `assistant` messages with `tool_use`
blocks, `user` messages with `tool_result` blocks (`content` a string or a list of
`{"type":"content","content":{"type":"text","text":...}}`, `is_error`), and a final `result`
(`subtype` success / error_during_execution, `is_error`, `usage`, `total_cost_usd`, `errors`).
Tool names are Grok's own (`read_file`, `run_terminal_command`, `search_replace`, `write`,
`list_dir`, `grep`, `spawn_subagent`), with the older grok-cli names mapped too. Denials read as
"User cancelled the execution for tool ..." or "... was not executed: Denied by permission policy".
The version field of its init event is not known; `version`/`cli_version` are tried.
"""

from __future__ import annotations

import re
from typing import ClassVar

from workbench.core.hostinfo import HOSTS
from workbench.core.models import CallKind
from workbench.core.parsers.claude import MessagesStreamParser


class GrokParser(MessagesStreamParser):
    """Best-effort Grok streaming-messages-json parser (UNVERIFIED: see the module docstring)."""

    host = "grok"
    KINDS: ClassVar[dict[str, CallKind]] = dict(HOSTS["grok"].tools)
    PATH_KEYS: ClassVar[tuple[str, ...]] = ("target_file", "file_path", "path", "filePath", "file")
    COMMAND_KEYS: ClassVar[tuple[str, ...]] = ("command", "cmd")
    DENIAL: ClassVar[re.Pattern[str]] = re.compile(
        r"User cancelled the execution|Denied by permission policy|was not executed"
        r"|permission (?:was )?denied by|rejected by (?:the )?user",
        re.IGNORECASE,
    )
    VERSION_KEYS: ClassVar[tuple[str, ...]] = ("version", "cli_version", "grok_version")
