"""Host adapters: how to launch each real agent CLI for one measured run (see docs/hosts.md, "Adapters")."""

from __future__ import annotations

from workbench.core.errors import InputError
from workbench.hosts.base import SCRIPTED, HostAdapter, Launch, RunSpec, clean_env
from workbench.hosts.claude import ClaudeAdapter
from workbench.hosts.codex import CodexAdapter
from workbench.hosts.gemini import GeminiAdapter
from workbench.hosts.grok import GrokAdapter
from workbench.hosts.opencode import OpenCodeAdapter
from workbench.hosts.sim import SimAdapter

ADAPTERS: dict[str, HostAdapter] = {a.name: a for a in (ClaudeAdapter(), CodexAdapter(), OpenCodeAdapter(),
                                                        GeminiAdapter(), GrokAdapter(), SimAdapter())}
"""Host name -> adapter; the four npm hosts are verified, grok is by command line only, sim is offline Python."""

REAL_HOSTS = ("claude", "codex", "opencode", "gemini")
"""The hosts installed from npm and verified offline against the scripted model server."""


def adapter(host: str) -> HostAdapter:
    """The adapter for HOST, or an InputError listing the known ones."""
    if host not in ADAPTERS:
        raise InputError(f"unknown host {host!r}; known: {', '.join(ADAPTERS)}", field="host")
    return ADAPTERS[host]


__all__ = ["ADAPTERS", "REAL_HOSTS", "SCRIPTED", "HostAdapter", "Launch", "RunSpec", "adapter", "clean_env"]
