"""The host-neutral model script: what the scripted model says and which tools it calls, step by step.

One script drives every host: the server maps each portable call (read, shell, edit, write, skill,
agent) to the host's own tool, so a case's ground truth is written once. An `agent` call delegates to
a subagent that follows its own steps; the server tells the subagent's requests apart by the
delegated prompt that opens their history. Paths and commands may use the
placeholders `{repo}`, `{plugin}`, `{home}` and `{outside}`, filled in per run.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, model_validator

from workbench.core.errors import InputError
from workbench.core.filesize import MAX_SCRIPT_BYTES, check_size
from workbench.core.locate import field_name, key_line, parse_toml

CallKind = Literal["read", "shell", "edit", "write", "skill", "agent"]
_KINDS: tuple[CallKind, ...] = ("read", "shell", "edit", "write", "skill", "agent")
PLACEHOLDERS: tuple[str, ...] = ("repo", "plugin", "home", "outside")
"""The placeholder names a script may use; a mapping given to the server may add more."""


class EditSpec(BaseModel):
    """Replace the text `old` by `new` in the file `path` (a substring, as the hosts' edit tools do)."""

    model_config = ConfigDict(extra="forbid")

    path: str
    old: str
    new: str


class WriteSpec(BaseModel):
    """Write `content` as the whole file `path`."""

    model_config = ConfigDict(extra="forbid")

    path: str
    content: str


class AgentSpec(BaseModel):
    """Delegate to a subagent: the host starts one with `prompt`; it follows `steps` (its own model turns)
    and its last text is what the delegating call returns."""

    model_config = ConfigDict(extra="forbid")

    prompt: str = Field(min_length=1, description="The task given to the subagent (it opens its history).")
    type: str | None = Field(default=None, description="The host's subagent type (Claude Code: general-purpose, "
                                                        "Explore, ...); None: the host's default.")
    description: str = Field(default="Scripted delegation", description="The short task label hosts ask for.")
    steps: list[Step] = Field(min_length=1)

    @model_validator(mode="after")
    def _flat(self) -> AgentSpec:
        if any(call.agent is not None for step in self.steps for call in step.calls):
            raise ValueError("a subagent's steps cannot delegate again (agent inside agent)")
        _check_end(self.steps)
        return self


class ScriptCall(BaseModel):
    """One portable tool call: exactly one of read, shell, edit, write, skill, agent."""

    model_config = ConfigDict(extra="forbid")

    read: str | None = Field(default=None, description="Read this file.")
    shell: str | None = Field(default=None, description="Run this shell command.")
    edit: EditSpec | None = Field(default=None, description="Replace text in a file.")
    write: WriteSpec | None = Field(default=None, description="Write a whole file.")
    skill: str | None = Field(default=None, description="Load this skill by name.")
    agent: AgentSpec | None = Field(default=None, description="Delegate to a subagent with its own steps.")

    @model_validator(mode="after")
    def _exactly_one(self) -> ScriptCall:
        given = [name for name in _KINDS if getattr(self, name) is not None]
        if len(given) != 1:
            raise ValueError(f"a call needs exactly one of {', '.join(_KINDS)} (got {given or 'none'})")
        return self

    @property
    def kind(self) -> CallKind:
        """Which of the six portable calls this is."""
        return next(name for name in _KINDS if getattr(self, name) is not None)

    @property
    def path(self) -> str | None:
        """The file a read, edit or write targets."""
        if self.edit is not None:
            return self.edit.path
        if self.write is not None:
            return self.write.path
        return self.read


class Step(BaseModel):
    """One model turn: optional text, then the calls made together. No calls: the run ends here."""

    model_config = ConfigDict(extra="forbid")

    say: str | None = Field(default=None, description="Text the model says before its calls.")
    calls: list[ScriptCall] = Field(default_factory=list)


class Script(BaseModel):
    """A whole scripted run: `{"steps": [{"say": ..., "calls": [...]}, ...]}`."""

    model_config = ConfigDict(extra="forbid")

    steps: list[Step] = Field(min_length=1)
    _name: str | None = PrivateAttr(default=None)

    @property
    def name(self) -> str | None:
        """The file the script was read from (its name only; None: built in memory)."""
        return self._name

    def __eq__(self, other: object) -> bool:
        """Two scripts are equal when their steps are: the file a script came from is not what it says."""
        return isinstance(other, Script) and self.steps == other.steps

    __hash__ = None  # type: ignore[assignment]

    def named(self, name: str | None) -> Script:
        """This script, known by NAME (records name the script a run was given)."""
        self._name = name
        return self

    def digest(self) -> str:
        """What the script says, hashed: the same steps in TOML or JSON give the same digest."""
        from workbench.core.identity import digest

        return digest(self.model_dump(mode="json", exclude_none=True))

    @model_validator(mode="after")
    def _end_is_last(self) -> Script:
        _check_end(self.steps)
        prompts = [agent.prompt for agent in self.agents()]
        for i, prompt in enumerate(prompts):
            if any(prompt in other for j, other in enumerate(prompts) if j != i):
                raise ValueError(f"agent prompt {prompt!r} is part of another agent's prompt: the server could "
                                 "not tell their requests apart")
        return self

    def agents(self) -> list[AgentSpec]:
        """Every delegation of the script, in order (each is served by its prompt)."""
        return [call.agent for step in self.steps for call in step.calls if call.agent is not None]

    def resolved(self, placeholders: Mapping[str, str]) -> Script:
        """A copy with every `{name}` of the mapping replaced in all texts, paths and commands."""
        return Script.model_validate(_substitute(self.model_dump(exclude_none=True), placeholders))


def _check_end(steps: list[Step]) -> None:
    for i, step in enumerate(steps[:-1]):
        if not step.calls:
            raise ValueError(f"step {i} has no calls, so it ends the run; the {len(steps) - 1 - i} "
                             "step(s) after it would never run")


AgentSpec.model_rebuild()
ScriptCall.model_rebuild()


def substitute(text: str, placeholders: Mapping[str, str]) -> str:
    """Replace `{name}` for each name in the mapping; other braces (shell, code) stay as they are."""
    if not placeholders:
        return text
    pattern = re.compile("|".join(re.escape("{" + name + "}") for name in placeholders))
    return pattern.sub(lambda m: placeholders[m.group(0)[1:-1]], text)


def _substitute(value: Any, placeholders: Mapping[str, str]) -> Any:
    if isinstance(value, str):
        return substitute(value, placeholders)
    if isinstance(value, list):
        return [_substitute(v, placeholders) for v in value]
    if isinstance(value, dict):
        return {k: _substitute(v, placeholders) for k, v in value.items()}
    return value


def parse_script(data: Any, *, file: str | None = None, toml_text: str | None = None) -> Script:
    """Validate already-decoded data as a Script; the first problem becomes an InputError (with its
    line when the TOML text is given)."""
    try:
        return Script.model_validate(data).named(Path(file).name if file else None)
    except ValidationError as exc:
        err = exc.errors()[0]
        line = key_line(toml_text, err["loc"]) if toml_text is not None else None
        raise InputError(err["msg"], file=file, line=line, field=field_name(err["loc"]) or None) from None


def load_script(path: str | Path) -> Script:
    """Load a script from a .json or .toml file (other names are read as JSON)."""
    path = Path(path)
    check_size(path, MAX_SCRIPT_BYTES, "the script", "--script")  # by stat, before a byte is read
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read script: {exc}", file=str(path)) from None
    if path.suffix.lower() == ".toml":
        data: Any = parse_toml(text, file=str(path))
    else:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"invalid JSON: {exc.msg}", file=str(path), line=exc.lineno) from None
    return parse_script(data, file=str(path), toml_text=text if path.suffix.lower() == ".toml" else None)
