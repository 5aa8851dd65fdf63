"""The host registry: every host's adapter (how to launch its CLI for one measured run, docs/hosts.md
"Adapters") and its stream parser by name. Names, tool vocabularies and script-call mappings are the
pure data of `workbench.core.hostinfo`, whose `NAMES` every `--host` choice and host list reads."""

from __future__ import annotations

from workbench.core.errors import InputError
from workbench.core.hostinfo import HOSTS, NAMES, HostInfo
from workbench.core.parsers import StreamParser, make_parser
from workbench.hosts.base import SCRIPTED, HostAdapter, Launch, RunSpec
from workbench.hosts.claude import ClaudeAdapter
from workbench.hosts.codex import CodexAdapter
from workbench.hosts.gemini import GeminiAdapter
from workbench.hosts.grok import GrokAdapter
from workbench.hosts.opencode import OpenCodeAdapter
from workbench.hosts.sim import SimAdapter

_ADAPTERS = (ClaudeAdapter(), CodexAdapter(), OpenCodeAdapter(), GeminiAdapter(), GrokAdapter(), SimAdapter())
ADAPTERS: dict[str, HostAdapter] = {name: next(a for a in _ADAPTERS if a.name == name) for name in NAMES}
"""Host name -> adapter; the four npm hosts are verified, grok is by command line only, sim is offline Python."""

REAL_HOSTS = tuple(name for name, info in HOSTS.items() if info.verified and info.wire is not None)
"""The hosts installed from npm and verified offline against the scripted model server."""


def info(host: str) -> HostInfo:
    """What the workbench knows about HOST (tool vocabulary, wire API), or an InputError."""
    adapter(host)
    return HOSTS[host]


def parser_for(host: str) -> StreamParser:
    """A fresh stream parser for HOST (Codex's rollout log: `workbench.core.parsers.make_parser`)."""
    return make_parser(host)


def adapter(host: str) -> HostAdapter:
    """The adapter for HOST, or an InputError listing the known ones."""
    if host not in ADAPTERS:
        raise InputError(f"unknown host {host!r}; known: {', '.join(ADAPTERS)}", field="host")
    return ADAPTERS[host]


__all__ = ["ADAPTERS", "REAL_HOSTS", "SCRIPTED", "HostAdapter", "Launch", "RunSpec", "adapter",
           "info", "parser_for"]
