"""What the workbench knows about each host, in one place: its name, its tool vocabulary (tool ->
kind, used by its stream parser) and how a portable script call becomes the host's own tool call
(used by the scripted model server and the sim). Pure data and functions: no I/O.

The adapters (how to launch a host) and the parser factory by name live in `workbench.hosts`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Protocol

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


ToolCall = tuple[str, dict[str, Any]]
"""A host tool's name and input."""

SHELL_DESCRIPTION = "Run a scripted command"


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
    return "Skill", {"skill": call.skill or ""}


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


CLAUDE_TOOLS = _table(read=("Read", "NotebookRead"), edit=("Edit", "Write", "MultiEdit", "NotebookEdit"),
                      shell=("Bash",), skill=("Skill",), agent=("Task", "Agent"))
CODEX_SHELL_TOOLS = ("exec_command", "shell", "container.exec")
CODEX_PATCH_TOOL = "apply_patch"

HOSTS: dict[str, HostInfo] = {h.name: h for h in (
    HostInfo("claude", CLAUDE_TOOLS, "anthropic", True, claude_call),
    HostInfo("codex", _table(shell=CODEX_SHELL_TOOLS, edit=(CODEX_PATCH_TOOL,)), "openai-responses", True),
    HostInfo("opencode", _table(read=("read",), edit=("edit", "write", "patch", "multiedit", "apply_patch"),
                                shell=("bash",), skill=("skill",), agent=("task",)), "openai-chat", True,
             opencode_call),
    HostInfo("gemini", _table(read=("read_file", "read_many_files"), shell=("run_shell_command",),
                              edit=("replace", "edit", "write_file"), skill=("activate_skill",),
                              agent=("delegate_to_agent",)), "gemini", True, gemini_call),
    HostInfo("grok", _table(read=("view_file",), edit=("str_replace_editor", "create_file", "edit_file"),
                            shell=("bash",)), "openai-chat", True, grok_call),
    HostInfo("sim", CLAUDE_TOOLS, None, True, claude_call),  # the sim writes Claude Code's stream-json
)}
"""Every host by name, in the order the CLI lists them."""

NAMES = tuple(HOSTS)

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


EFFORTS = ("minimal", "low", "medium", "high", "xhigh", "max")
"""Every reasoning-effort level a host takes (each adapter's `efforts` is a subset), weakest first:
the forms' suggestions, and what the importer splits off a published `model` ("gpt-x low")."""
EFFORT_HELP = "reasoning effort, set on the host's command line and recorded (refused by a host that takes none)"
"""The `--effort` help of every run door (`HostAdapter.efforts`, `runner.request.check_effort`)."""
