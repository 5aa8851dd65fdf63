"""What the workbench knows about each host, in one place: its name, its tool vocabulary (tool ->
kind, used by its stream parser), how a portable script call becomes the host's own tool call
(used by the scripted model server and the sim), its npm pin, the instruction files it loads, what
a post-install run sees of its live home and where it keeps past sessions. Pure data and
functions: no I/O. This is the only module that spells host names out; everything else reads
`HOSTS` / `NAMES` (`tests/test_doors_imports.py`).

The adapters (how to launch a host) and the parser factory by name live in `workbench.hosts`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # annotations only: the sim imports this module, and core.models costs it a third of its start
    from workbench.core.models import CallKind


class _Edit(Protocol):
    @property
    def path(self) -> str: ...
    @property
    def old(self) -> str: ...
    @property
    def new(self) -> str: ...


class _Write(Protocol):
    @property
    def path(self) -> str: ...
    @property
    def content(self) -> str: ...


class _Agent(Protocol):
    @property
    def prompt(self) -> str: ...
    @property
    def type(self) -> str | None: ...
    @property
    def description(self) -> str: ...


class PortableCall(Protocol):
    """A host-neutral script call (`workbench.modelstub.script.ScriptCall`): exactly one field is set."""

    @property
    def read(self) -> str | None: ...
    @property
    def shell(self) -> str | None: ...
    @property
    def edit(self) -> _Edit | None: ...
    @property
    def write(self) -> _Write | None: ...
    @property
    def skill(self) -> str | None: ...
    @property
    def agent(self) -> _Agent | None: ...


ToolCall = tuple[str, dict[str, Any]]
"""A host tool's name and input."""

SHELL_DESCRIPTION = "Run a scripted command"
OPENCODE_SUBAGENT = "general"
"""OpenCode's general subagent: its `task` tool requires a type."""
GEMINI_AGENT_TOOL = "invoke_agent"
"""Gemini CLI 0.61.0's delegating tool (`agent_name`, `prompt`); allowed by its default policy."""
GEMINI_SUBAGENT = "generalist"
"""Gemini CLI's built-in subagent with every tool (for a delegation that names no type)."""


@dataclass(frozen=True)
class HostInfo:
    """One host: its name, tool vocabulary, the wire API its CLI talks, and whether it is verified."""

    name: str
    tools: Mapping[str, CallKind]
    wire: str | None
    """The model API the scripted server speaks to it (None: no server; sim runs its own loop)."""
    verified: bool
    """Checked offline against the real CLI through the scripted model server."""
    script_call: Callable[[PortableCall], ToolCall] | None = None
    """The host's own tool call for a portable one (None: composed per request, see Codex's wire)."""
    npm: tuple[str, str] | None = None
    """(npm package, exact version) the workbench is verified against (`workbench hosts install`)."""
    instructions: tuple[str, ...] = ()
    """The repo instruction files it loads, the first that exists (`core.session_load`)."""
    live_reads: tuple[str, ...] = ()
    """What a confined post-install run sees of the live home, READ-ONLY (the rest of the home is hidden)."""
    live_writes: tuple[str, ...] = ()
    """What the live host must write (bound WRITABLE inside): measured with scripted runs by
    `bench/live_writes.py` (docs/confinement.md); the rest are the state folders a real login adds.
    Folders are created when missing (the host would create them); a missing file stays unwritable."""
    session_store: str | None = None
    """Where its pinned version keeps past sessions under the home, that `workbench sessions` reads
    (docs/sessions.md); None: none read."""

    delegates: bool = False
    """A script's `agent` call becomes its delegation tool, checked against the real CLI (docs/hosts.md)."""
    efforts: tuple[str, ...] = ()
    """The reasoning-effort levels its CLI takes (its adapter's `efforts`; empty: none, and a run asking for
    one is refused): the run forms' effort choices."""
    follows_imports: bool = False
    """Its instruction file's `@file.md` lines load those files too (`core.session_load`)."""
    session_hooks: bool = False
    """It runs a Claude plugin's SessionStart hooks, whose output it injects (`core.session_load`)."""
    extension_manifest: str | None = None
    """Its extension manifest, whose `contextFileName` names the instruction file(s) it loads instead."""

    @property
    def keeps_sessions(self) -> bool:
        return self.session_store is not None

    def kind(self, tool: str) -> CallKind:
        return self.tools.get(tool, "other")


def _table(**kinds: tuple[str, ...]) -> Mapping[str, CallKind]:
    out: dict[str, CallKind] = {}
    for kind, names in kinds.items():
        out.update(dict.fromkeys(names, kind))  # type: ignore[arg-type]
    return MappingProxyType(out)


def claude_call(call: PortableCall) -> ToolCall:
    """Claude Code's tool and input, as the real CLI's model emits them (Edit carries `replace_all`)."""
    if call.read is not None:
        return "Read", {"file_path": call.read}
    if call.shell is not None:
        return "Bash", {"command": call.shell, "description": SHELL_DESCRIPTION}
    if call.edit is not None:
        return "Edit", {"file_path": call.edit.path, "old_string": call.edit.old, "new_string": call.edit.new,
                        "replace_all": False}
    if call.write is not None:
        return "Write", {"file_path": call.write.path, "content": call.write.content}
    if call.agent is not None:
        return "Agent", delegation(call.agent)
    return "Skill", {"skill": call.skill or ""}


def delegation(agent: _Agent) -> dict[str, Any]:
    """The input of Claude Code's Agent (Task) tool and OpenCode's `task`: description, prompt, type."""
    args: dict[str, Any] = {"description": agent.description, "prompt": agent.prompt}
    if agent.type is not None:
        args["subagent_type"] = agent.type
    return args


def opencode_call(call: PortableCall) -> ToolCall:
    """OpenCode's tool and arguments."""
    if call.read is not None:
        return "read", {"filePath": call.read}
    if call.shell is not None:
        return "bash", {"command": call.shell, "description": SHELL_DESCRIPTION}
    if call.edit is not None:
        return "edit", {"filePath": call.edit.path, "oldString": call.edit.old, "newString": call.edit.new}
    if call.write is not None:
        return "write", {"filePath": call.write.path, "content": call.write.content}
    if call.agent is not None:
        return "task", {**delegation(call.agent), "subagent_type": call.agent.type or OPENCODE_SUBAGENT}
    return "skill", {"name": call.skill}


def gemini_call(call: PortableCall) -> ToolCall:
    """Gemini CLI's tool and arguments."""
    if call.read is not None:
        return "read_file", {"file_path": call.read}
    if call.shell is not None:
        return "run_shell_command", {"command": call.shell, "description": SHELL_DESCRIPTION}
    if call.edit is not None:
        return "replace", {"file_path": call.edit.path, "old_string": call.edit.old,
                           "new_string": call.edit.new, "instruction": "Apply the scripted edit"}
    if call.write is not None:
        return "write_file", {"file_path": call.write.path, "content": call.write.content}
    if call.agent is not None:
        return GEMINI_AGENT_TOOL, {"agent_name": call.agent.type or GEMINI_SUBAGENT, "prompt": call.agent.prompt}
    return "activate_skill", {"name": call.skill}


def grok_call(call: PortableCall) -> ToolCall:
    """Grok CLI's (`@vibe-kit/grok-cli`) tool and arguments. It has no skill tool: a skill call is the
    unknown tool `skill`, which the client answers "Unknown tool: skill" (what a model gets for it)."""
    if call.read is not None:
        return "view_file", {"path": call.read}
    if call.shell is not None:
        return "bash", {"command": call.shell}
    if call.edit is not None:
        return "str_replace_editor", {"path": call.edit.path, "old_str": call.edit.old, "new_str": call.edit.new}
    if call.write is not None:
        return "create_file", {"path": call.write.path, "content": call.write.content}
    return "skill", {"name": call.skill}


EFFORTS = ("minimal", "low", "medium", "high", "xhigh", "max")
"""Every reasoning-effort level a host takes (each adapter's `efforts` is a subset), weakest first:
the forms' suggestions, and what the importer splits off a published `model` ("gpt-x low")."""
CLAUDE_TOOLS = _table(read=("Read", "NotebookRead"), edit=("Edit", "Write", "MultiEdit", "NotebookEdit"),
                      shell=("Bash",), skill=("Skill",), agent=("Task", "Agent"))
CODEX_SHELL_TOOLS = ("exec_command", "shell", "container.exec")
CODEX_PATCH_TOOL = "apply_patch"
CODEX_AGENT_TOOL = "spawn_agent"

HOSTS: dict[str, HostInfo] = {h.name: h for h in (
    HostInfo("claude", CLAUDE_TOOLS, "anthropic", True, claude_call,
             npm=("@anthropic-ai/claude-code", "2.1.197"), instructions=("CLAUDE.md",),
             live_reads=(".claude", ".claude.json"),
             live_writes=(".claude/backups", ".claude/projects", ".claude/todos", ".claude/statsig",
                          ".claude/shell-snapshots", ".claude/session-env"),
             session_store=".claude/projects", delegates=True, follows_imports=True, session_hooks=True,
             efforts=("low", "medium", "high", "xhigh", "max")),  # `claude --help`: `--effort <level>`
    HostInfo("codex", _table(shell=CODEX_SHELL_TOOLS, edit=(CODEX_PATCH_TOOL,), agent=(CODEX_AGENT_TOOL,)),
             "openai-responses", True,
             npm=("@openai/codex", "0.171.0"), instructions=("AGENTS.md",), live_reads=(".codex",),
             live_writes=(".codex/sessions", ".codex/log", ".codex/history.jsonl"), session_store=".codex/sessions",
             delegates=True, efforts=("minimal", "low", "medium", "high", "xhigh")),  # model_reasoning_effort
    HostInfo("opencode", _table(read=("read",), edit=("edit", "write", "patch", "multiedit", "apply_patch"),
                                shell=("bash",), skill=("skill",), agent=("task",)), "openai-chat", True,
             opencode_call, npm=("opencode-ai", "1.18.33"), instructions=("AGENTS.md", "CLAUDE.md"),
             live_reads=(".config/opencode", ".local/share/opencode", ".local/state/opencode"),
             live_writes=(".config/opencode", ".local/share/opencode", ".local/state/opencode", ".cache/opencode"),
             session_store=".local/share/opencode", delegates=True),
    HostInfo("gemini", _table(read=("read_file", "read_many_files"), shell=("run_shell_command",),
                              edit=("replace", "edit", "write_file"), skill=("activate_skill",),
                              agent=(GEMINI_AGENT_TOOL,)), "gemini", True, gemini_call,
             npm=("@google/gemini-cli", "0.61.0"), instructions=("GEMINI.md",), live_reads=(".gemini",),
             live_writes=(".gemini/tmp", ".gemini/history", ".gemini/projects.json"), session_store=".gemini/tmp",
             delegates=True, follows_imports=True, extension_manifest="gemini-extension.json"),
    HostInfo("grok", _table(read=("view_file",), edit=("str_replace_editor", "create_file", "edit_file"),
                            shell=("bash",)), "openai-chat", True, grok_call,
             npm=("@vibe-kit/grok-cli", "0.0.34"), instructions=("AGENTS.md",), live_reads=(".grok",)),
    HostInfo("sim", CLAUDE_TOOLS, None, True, claude_call, delegates=True,  # the sim writes Claude Code's stream-json
             instructions=("CLAUDE.md",), live_reads=(".claude",), efforts=EFFORTS, follows_imports=True,
             session_hooks=True),
)}
"""Every host by name, in the order the CLI lists them."""

NAMES = tuple(HOSTS)
SESSION_HOSTS = tuple(h.name for h in HOSTS.values() if h.keeps_sessions)
"""Hosts whose past sessions `workbench sessions` reads."""
NPM_HOSTS = tuple(h.name for h in HOSTS.values() if h.npm is not None)
"""Hosts installed from npm at a pinned version (`workbench hosts`)."""

IMPORT_TOOLS = _table(read=("Read", "read", "read_file", "view"),
                      shell=("Bash", "bash", "exec_command", "shell", "run_shell_command"),
                      edit=("Edit", "Write", "MultiEdit", "apply_patch", "edit", "write", "replace", "write_file",
                            "str_replace_editor"),
                      skill=("Skill", "skill"), agent=("Task", "Agent", "task", "agent"))
"""Tool names seen in other tools' published records, whose host is not always known (the importer)."""


def infer_kind(tool: str) -> CallKind:
    """The host-neutral kind of a tool known only by name (imported published records)."""
    return IMPORT_TOOLS.get(tool, "other")


def wire_host(wire: str, offered: Iterable[str]) -> str | None:
    """Which host sent a request on WIRE, told by the tools it offered (OpenCode and Grok share the Chat
    Completions wire): the host of that wire whose vocabulary covers most of them (None: no host of it)."""
    names = set(offered)
    candidates = [h for h in HOSTS.values() if h.wire == wire]
    if not candidates:
        return None
    return max(candidates, key=lambda h: len(names & set(h.tools))).name


def script_call(host: str, call: PortableCall) -> ToolCall:
    """HOST's own tool call for a portable script call (hosts whose mapping does not depend on the request)."""
    make = HOSTS[host].script_call
    if make is None:
        raise ValueError(f"{host}: its tool calls are composed per request by its wire API")
    return make(call)


EFFORT_HELP = "reasoning effort, set on the host's command line and recorded (refused by a host that takes none)"
"""The `--effort` help of every run door (`HostAdapter.efforts`, `runner.request.check_effort`)."""


def efforts_of(hosts: Iterable[str]) -> tuple[str, ...]:
    """The effort levels every one of HOSTS takes (unknown names left out), weakest first: what a form
    offers for them (none: the hosts' own default only)."""
    known = [HOSTS[h] for h in hosts if h in HOSTS]
    return tuple(e for e in EFFORTS if known and all(e in h.efforts for h in known))
