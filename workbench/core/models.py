"""The data every part of the workbench exchanges: calls, cases, scores and run records.

One pydantic model per file format, so each can export a JSON Schema (`workbench schema NAME`)
and every loader reports bad input with the field that is wrong.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

SCHEMA_VERSION = 1
"""Version of the RunRecord layout; bump when a field changes meaning."""

CallKind = Literal["read", "edit", "shell", "skill", "agent", "other"]
CallStatus = Literal["ok", "error", "denied"]
CaseKind = Literal["positive", "negative"]
Condition = Literal["confined", "unconfined", "live-install", "canary"]

PositiveVerdict = Literal["fired", "skip", "read-noaction", "skip-noaction"]
NegativeVerdict = Literal["opened", "clean"]
Verdict = Literal["fired", "skip", "read-noaction", "skip-noaction", "opened", "clean", "no-output"]
VERDICTS: tuple[str, ...] = ("fired", "skip", "read-noaction", "skip-noaction", "opened", "clean", "no-output")


class Call(BaseModel):
    """One tool call of a run, normalized across hosts, with its final status."""

    model_config = ConfigDict(extra="allow")

    index: int = Field(description="Position of the call in the run, from 0.")
    tool: str = Field(description="The host's own tool name (Read, exec_command, read_file, ...).")
    kind: CallKind = Field(description="What the tool does, host-neutral.")
    path: str | None = Field(default=None, description="The file a read/edit tool targets.")
    command: str | None = Field(default=None, description="The shell command, unwrapped from host wrappers.")
    skill: str | None = Field(default=None, description="The skill a Skill tool loads.")
    status: CallStatus = Field(default="ok", description="ok, error (tool failed) or denied (refused).")
    exit_code: int | None = Field(default=None, description="Shell exit code when the host reports one.")
    unreadable: list[str] = Field(
        default_factory=list,
        description="Paths the call's output reports missing or unreadable (sandbox refusals in a shell).",
    )
    result: str | None = Field(default=None, description="Short excerpt of the tool result (canaries).")
    call_id: str | None = Field(default=None, description="The host's id for the call.")


class Usage(BaseModel):
    """Token and cost accounting; None means unknown, never zero."""

    model_config = ConfigDict(extra="allow")

    input_tokens: int | None = None
    output_tokens: int | None = None
    cached_input_tokens: int | None = None
    cost_usd: float | None = None


class Branch(BaseModel):
    """A branch of a case's fixture repo: files for exactly one commit on it."""

    name: str
    files: dict[str, str] = Field(default_factory=dict)
    message: str = "fixture commit"


class Case(BaseModel):
    """One prompt to run against a routing row (positive) or near it (negative)."""

    model_config = ConfigDict(extra="forbid")

    id: str
    target: str = Field(description="Id of the routing row under test (or a label for negatives).")
    kind: CaseKind
    prompt: str = Field(description="The naive prompt; `{repo}` is replaced by the fixture path.")
    required: list[str] = Field(default_factory=list, description="Files that must be read (path suffixes).")
    moment: str = Field(default="edit", description="Moment spec: edit, bash:RE, tool:RE, end, or a preset.")
    extra_files: dict[str, str] = Field(default_factory=dict, description="Files added to the base fixture.")
    branches: list[Branch] = Field(default_factory=list)
    exceptions: list[str] = Field(
        default_factory=list,
        description="Negatives: linked procedures NOT scored (default: every procedure the table links is).",
    )

    @field_validator("extra_files")
    @classmethod
    def _no_git_internals(cls, files: dict[str, str]) -> dict[str, str]:
        """A case may not write `.git/` (its config or hooks would run when git runs outside the sandbox)."""
        for rel in files:
            if any(part.lower() == ".git" for part in rel.replace("\\", "/").split("/")):
                raise ValueError(f"path {rel!r} is inside .git: a case may not write git's config or hooks")
        return files


class ScoreSpec(BaseModel):
    """What the scorer needs to know about a case."""

    kind: CaseKind
    required: list[str]
    moment: str = "edit"
    entry_skill: str | None = Field(default=None, description="Skill name whose Skill call means 'entry loaded'.")
    entry_file: str | None = Field(default=None, description="Path suffix whose read means 'entry loaded'.")


class Score(BaseModel):
    """The scorer's answer for one run."""

    reads: dict[str, int | None] = Field(description="Record key -> index of the first successful read.")
    verdicts: dict[str, Verdict]
    overall: Verdict
    moment_at: int | None = Field(description="Index of the moment call; len(calls) for `end`; None: never.")
    entry_loaded_at: int | None = None
    keys: dict[str, str] = Field(default_factory=dict, description="Record key -> required file as given.")


class Marking(BaseModel):
    """A later decision to leave a record out of tables, with the reason."""

    reason: str
    at: str | None = None


class RunRecord(BaseModel):
    """ONE schema for every run: canary, batch and live-install. Unknown fields are kept."""

    model_config = ConfigDict(extra="allow")

    schema_version: int = SCHEMA_VERSION
    condition: str = Field(description="confined, unconfined, live-install, canary (imported: as published).")
    host: str
    host_version: str | None = None
    model: str | None = Field(default=None, description="The requested model.")
    served_model: str | None = None
    effort: str | None = None
    arm: str | None = None
    source: str | None = Field(default=None, description="The arm's resolved git sha.")
    case_id: str | None = None
    target: str
    kind: CaseKind
    run: int = 0
    batch: str | None = None
    moment: str | None = Field(default=None, description="The moment spec the run was scored with.")
    required: list[str] = Field(default_factory=list, description="Required files as given.")
    calls: list[Call] = Field(default_factory=list, description="Calls up to and including the moment.")
    required_read_at: dict[str, int | None] = Field(default_factory=dict)
    moment_at: int | None = None
    entry_loaded_at: int | None = None
    verdict: dict[str, Verdict] = Field(default_factory=dict)
    overall: Verdict | None = None
    stored_verdict: dict[str, str] | None = Field(
        default=None, description="Verdicts as published by an imported source, kept for comparison."
    )
    valid: bool = True
    invalid_reason: str | None = None
    tool_calls: int | None = None
    failed_calls: list[int] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    login_files_changed: list[str] = Field(default_factory=list)
    started_at: str | None = None
    finished_at: str | None = None
    workbench_version: str | None = None
    scorer_rules: int | None = None
    discarded: Marking | None = None
    superseded: Marking | None = None
    imported_from: str | None = None
