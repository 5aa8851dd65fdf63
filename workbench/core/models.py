"""The data every part of the workbench exchanges: calls, cases, scores and run records.

One pydantic model per file format, so each can export a JSON Schema (`workbench schema NAME`)
and every loader reports bad input with the field that is wrong.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema

SCHEMA_VERSION = 1
"""Version of the RunRecord layout; bump when a field changes meaning."""

CallKind = Literal["read", "edit", "shell", "skill", "agent", "other"]
CallStatus = Literal["ok", "error", "denied"]
ContentEvidence = Literal["shown", "absent"]
ReadBasis = Literal["content", "command", "tool-status"]
OrderBasis = Literal["turn", "index"]
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
    turn: int | None = Field(
        default=None,
        description="The model turn the call was issued in (0-based); None: unknown, the scorer falls back to index order.")
    evidence: dict[str, ContentEvidence] = Field(
        default_factory=dict,
        description="Procedure path (in the plugin copy) -> shown (a distinctive line of it is in the call's output) "
                    "or absent (the whole output is there and holds no line of it); missing: no evidence.",
    )
    output: SkipJsonSchema[str | None] = Field(
        default=None, exclude=True,
        description="The whole tool output as the model received it (live only, never stored; None: the host hides it).",
    )
    output_truncated: SkipJsonSchema[bool] = Field(
        default=False, exclude=True, description="The host says or shows that `output` was cut (live only).",
    )


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


class ScoreSpec(BaseModel):
    """What the scorer needs to know about a case."""

    kind: CaseKind
    required: list[str]
    moment: str = "edit"
    entry_skill: str | None = Field(default=None, description="Skill name whose Skill call means 'entry loaded'.")
    entry_file: str | None = Field(default=None, description="Path suffix whose read means 'entry loaded'.")


class EvidenceConflict(BaseModel):
    """A call where command analysis and content evidence disagree about reading a required file."""

    call: int = Field(description="Index of the call.")
    required: str = Field(description="The required file, as the case names it.")
    command: Literal["read", "no-read"] = Field(
        description="What command analysis (or the read tool's status) says the call did.")
    content: ContentEvidence = Field(description="What the call's output shows; this side decides.")


class Score(BaseModel):
    """The scorer's answer for one run."""

    reads: dict[str, int | None] = Field(
        description="Required file (exactly as the case names it) -> index of its first successful read.")
    verdicts: dict[str, Verdict] = Field(description="Required file (as the case names it) -> verdict.")
    overall: Verdict
    moment_at: int | None = Field(description="Index of the moment call; len(calls) for `end`; None: never.")
    entry_loaded_at: int | None = None
    order_basis: OrderBasis = Field(
        default="index",
        description="turn: a read is before the moment when issued in an earlier model turn; index: some call has "
                    "no turn (imported records), so call order decides.")
    read_basis: dict[str, ReadBasis] = Field(
        default_factory=dict,
        description="Required file -> what made its first read a read: content (the output showed it), command "
                    "(shell command analysis) or tool-status (a read tool returned ok).")
    conflicts: list[EvidenceConflict] = Field(
        default_factory=list, description="Calls where command analysis and content evidence disagree.")


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
