"""The data every part of the workbench exchanges: calls, cases, scores and run records.

One pydantic model per file format, so each can export a JSON Schema (`workbench schema NAME`)
and every loader reports bad input with the field that is wrong.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal, TypeVar, cast, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic.json_schema import SkipJsonSchema

SCHEMA_VERSION = 3
"""Version of the RunRecord layout; bump when a field changes meaning (older files: core/migrate.py)."""

CallKind = Literal["read", "edit", "shell", "skill", "agent", "other"]
CallStatus = Literal["ok", "error", "denied"]
ContentEvidence = Literal["shown", "absent"]
ReadBasis = Literal["content", "command", "tool-status"]
OrderBasis = Literal["turn", "index"]
MomentBasis = Literal["pattern", "effect", "end"]
EffectKindName = Literal["created", "modified", "deleted", "moved", "commit", "merge", "tag", "branch"]
AttributionBasis = Literal["in-flight", "late-start", "ambiguous", "named"]
FiredBy = Literal["main", "subagent"]
MAIN_READER = "main"
"""`Call.read_by` of a call the main agent issued; a delegated one is `subagent:<id or type>`."""
CaseKind = Literal["positive", "negative"]
Condition = Literal["confined", "unconfined", "live-install", "canary", "sessions", "tune"]

PositiveVerdict = Literal["fired", "skip", "read-noaction", "skip-noaction"]
NegativeVerdict = Literal["opened", "clean"]
Verdict = Literal["fired", "skip", "read-noaction", "skip-noaction", "opened", "clean", "no-output"]
VERDICTS: tuple[str, ...] = ("fired", "skip", "read-noaction", "skip-noaction", "opened", "clean", "no-output")
READ_BEFORE: tuple[str, ...] = ("fired", "read-noaction")
"""The positive verdicts that read the procedure before the moment: a positive run's hit (the rest miss)."""


class CallEffect(BaseModel):
    """A change the repo watcher saw during the run, given to the call in flight (core/effects.py).

    Only the first change of each file and the first effect of each git kind is stored, on the call
    it is attributed to: what the scorer needs for the effect moment, so rescore needs no watcher."""

    path: str = Field(description="Repo-relative file path, or the ref's name for git kinds.")
    kind: EffectKindName = Field(description="created, modified, deleted, moved (a file); commit, merge, tag, "
                                             "branch (new history).")
    sha: str | None = Field(default=None, description="The new commit a git effect points at.")
    basis: AttributionBasis = Field(
        default="in-flight",
        description="in-flight (the call was running), late-start (the first call to report after the change: "
                    "hosts that print a call late), named (of the calls that could have made it, the only one whose "
                    "input names the path) or ambiguous (the calls in `others` could have made it too).")
    others: list[int] = Field(default_factory=list, description="Other calls that could have made it (ambiguous).")


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
    read_by: str = Field(
        default=MAIN_READER,
        description="Who issued the call: main (the main agent) or subagent:<id or type> (a delegated agent).")
    turn: int | None = Field(
        default=None,
        description="The model turn the call was issued in (0-based); None: unknown, the scorer falls back to index order.")
    evidence: dict[str, ContentEvidence] = Field(
        default_factory=dict,
        description="Procedure path (in the plugin copy) -> shown (a distinctive line of it is in the call's output) "
                    "or absent (the whole output is there and holds no line of it); missing: no evidence.",
    )
    effects: list[CallEffect] = Field(
        default_factory=list,
        description="First changes in the repo attributed to this call by the watcher (empty: none, or not watched).")
    output: SkipJsonSchema[str | None] = Field(
        default=None, exclude=True,
        description="The whole tool output as the model received it (live only, never stored; None: the host hides it).",
    )
    output_truncated: SkipJsonSchema[bool] = Field(
        default=False, exclude=True, description="The host says or shows that `output` was cut (live only).",
    )


M = TypeVar("M", bound=BaseModel)
_FIELDS: dict[type[BaseModel], frozenset[str]] = {}


def updated(model: M, updates: Mapping[str, Any]) -> M:
    """`model.model_copy(update=updates)` without pydantic's generic copy (`copy.copy` of its three
    containers, a per-key extra-field check): parsed calls are copied at least twice and every rescored
    record once, so this is about half the price. The same object results (fields, fields set, extras);
    a model with private attributes, or an update naming anything but the model's own fields, takes
    `model_copy` itself."""
    cls = type(model)
    fields = _FIELDS.get(cls)
    if fields is None:
        fields = _FIELDS[cls] = frozenset(cls.model_fields)
    if model.__pydantic_private__ is not None or not fields.issuperset(updates):
        return model.model_copy(update=updates)
    new = cls.__new__(cls)
    state = model.__dict__.copy()
    state.update(updates)
    extra = model.__pydantic_extra__
    object.__setattr__(new, "__dict__", state)
    object.__setattr__(new, "__pydantic_extra__", None if extra is None else dict(extra))
    object.__setattr__(new, "__pydantic_fields_set__", model.__pydantic_fields_set__ | updates.keys())
    object.__setattr__(new, "__pydantic_private__", None)
    return new


def updated_call(call: Call, updates: Mapping[str, Any]) -> Call:
    """A copy of CALL with UPDATES applied (`updated`)."""
    return updated(call, updates)


_CALL_KINDS = frozenset(get_args(CallKind))
_CALL_STATUSES = frozenset(get_args(CallStatus))
_CALL_PLAIN: dict[str, tuple[type, bool]] = {
    "index": (int, False), "tool": (str, False), "read_by": (str, False), "path": (str, True),
    "command": (str, True), "skill": (str, True), "result": (str, True), "call_id": (str, True),
    "exit_code": (int, True), "turn": (int, True)}
"""Call fields a parser sets from checked values: field -> (exact type, None allowed)."""
_CALL_REQUIRED = frozenset(name for name, info in Call.model_fields.items() if info.is_required())
_CALL_DEFAULTS = {name: None if info.is_required() or info.default_factory else info.default
                  for name, info in Call.model_fields.items()}
"""Every field in order, with its default (placeholders for required and factory-made ones)."""
_CALL_FACTORIES = tuple((name, cast(Callable[[], Any], info.default_factory))
                        for name, info in Call.model_fields.items() if info.default_factory is not None)


def new_call(**fields: Any) -> Call:
    """`Call(**fields)`. When every field is one of `_CALL_PLAIN` (or kind/status) with a value of its
    exact type, the model is built without pydantic's validation, which would keep these values as
    they are (every parsed call starts here); anything else is validated, and fails, as
    `Call(**fields)` does."""
    for key, value in fields.items():
        plain = _CALL_PLAIN.get(key)
        if plain is not None:
            if type(value) is not plain[0] and not (plain[1] and value is None):
                return Call(**fields)
        elif not (type(value) is str and (value in _CALL_KINDS if key == "kind"
                                          else key == "status" and value in _CALL_STATUSES)):
            return Call(**fields)
    if not _CALL_REQUIRED.issubset(fields):
        return Call(**fields)
    state = dict(_CALL_DEFAULTS)
    for name, factory in _CALL_FACTORIES:
        state[name] = factory()
    state.update(fields)
    new = Call.__new__(Call)
    object.__setattr__(new, "__dict__", state)
    object.__setattr__(new, "__pydantic_extra__", {})
    object.__setattr__(new, "__pydantic_fields_set__", set(fields))
    object.__setattr__(new, "__pydantic_private__", None)
    return new


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


class EvidenceConflict(BaseModel):
    """A call where command analysis and evidence disagree; the evidence side decides.

    `evidence: content`: about reading REQUIRED (command read/no-read vs the output's shown/absent).
    `evidence: effect`: about the moment (no moment pattern matched the call, the repo watcher saw it act)."""

    call: int = Field(description="Index of the call.")
    evidence: Literal["content", "effect"] = Field(
        default="content", description="Which evidence disagrees: the call's output (content) or the repo (effect).")
    required: str | None = Field(default=None, description="The required file, as the case names it (content).")
    command: Literal["read", "no-read", "no-action"] = Field(
        description="What command analysis (or the read tool's status) says the call did: read / no-read "
                    "(content), no-action (effect: no moment pattern matched).")
    content: ContentEvidence | None = Field(default=None, description="What the call's output shows (content).")
    effect: str | None = Field(default=None, description="What changed (effect): `<kind> <path>`.")


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
    moment_basis: MomentBasis | None = Field(
        default=None,
        description="pattern (a moment pattern matched the call), effect (the repo watcher saw the call act first, "
                    "no pattern did), end (the `end` moment); None: no moment, or a moment given by the caller.")
    conflicts: list[EvidenceConflict] = Field(
        default_factory=list, description="Calls where command analysis and evidence (content, effect) disagree.")
    fired_by: FiredBy | None = Field(
        default=None, description="fired runs: who made the first successful reads before the moment (main, or "
                                  "subagent when a delegated agent made any of them); None: not fired.")


class Marking(BaseModel):
    """A later decision to leave a record out of tables, with the reason."""

    reason: str
    at: str | None = None


class EntryGate(BaseModel):
    """Whether the routing row's entry skill could be loaded at all: a validity gate of the run."""

    model_config = ConfigDict(extra="allow")

    skill: str | None = Field(default=None, description="The plugin skill whose SKILL.md links a required file.")
    file: str | None = Field(default=None, description="Path suffix whose read counts as loading the entry.")
    offered: bool | None = Field(default=None, description="The host offered the entry skill (None: not known).")
    skill_error: str | None = Field(default=None, description="Result of the first Skill call that failed.")
    offered_skills: list[str] = Field(default_factory=list, description="Skills the host offered the model.")


class GuardReport(BaseModel):
    """What the guard saw change outside the run (live config, checkouts, escaped processes)."""

    model_config = ConfigDict(extra="allow")

    changes: list[str] = Field(default_factory=list, description="Each change outside the run, one line.")


class RescoredFrom(BaseModel):
    """The verdicts a record carried before `workbench rescore` judged it again."""

    model_config = ConfigDict(extra="allow")

    verdict: dict[str, str] = Field(default_factory=dict, description="Per-file verdicts before the rescore.")
    overall: str | None = Field(default=None, description="Overall verdict before the rescore.")
    scorer_rules: int | None = Field(default=None, description="Scorer rules version before the rescore.")


class Provenance(BaseModel):
    """Where a record came from when the workbench did not run it itself, and what changed it since."""

    model_config = ConfigDict(extra="allow")

    imported_from: str | None = Field(default=None, description="The source format of an imported record.")
    status_unknown: bool = Field(
        default=False, description="Calls were never checked for failure (imported without failed calls).")
    rescored_from: RescoredFrom | None = Field(default=None, description="Verdicts before the last rescore.")


StopKind = Literal["fixed", "until-decided"]


class StopRule(BaseModel):
    """The rule a batch stopped by: a fixed number of runs, or until the paired comparison of two arms
    is decided (anytime-valid, core/stats.py `sequential_decision`) or at `max_runs`; budgets on top."""

    model_config = ConfigDict(extra="allow")

    rule: StopKind = Field(description="fixed (every planned run) or until-decided (stop each target/host when decided).")
    max_runs: int = Field(description="Runs per case, host and arm at most (fixed: exactly).")
    alpha: float | None = Field(default=None, description="until-decided: decide when e >= 1/alpha.")
    compare: list[str] = Field(default_factory=list, description="until-decided: the arms compared, A then B.")
    budget_usd: float | None = Field(default=None, description="Stop before the next run would pass this cost.")
    budget_tokens: int | None = Field(default=None, description="Stop before the next run would pass these tokens.")
    tier: str | None = Field(default=None, description="The workbench.toml tier the rule came from.")

    def text(self) -> str:
        """One line for logs and the TUI."""
        out = (f"until decided (alpha {self.alpha}, {' vs '.join(self.compare)}) or {self.max_runs} runs"
               if self.rule == "until-decided" else f"fixed {self.max_runs} run(s)")
        if self.budget_usd is not None:
            out += f", budget ${self.budget_usd:g}"
        if self.budget_tokens is not None:
            out += f", budget {self.budget_tokens:,} tokens"
        return out + (f" [tier {self.tier}]" if self.tier else "")


class ExecutorInfo(BaseModel):
    """Where a batch run ran: the executor kind and (Ray) the node, and that node's confinement proof."""

    kind: Literal["threads", "ray"] = Field(description="threads (this machine's pool) or ray (a Ray task).")
    node: str | None = Field(default=None, description="The Ray node id the run ran on (None: the driver's machine).")
    proof: Literal["passed", "unconfined"] | None = Field(
        default=None, description="The confinement proof on that node before its first run (unconfined: none needed).")


class ScriptRef(BaseModel):
    """The scripted model a run was given: two scripts are two measurements, never one cell."""

    name: str | None = Field(default=None, description="The script's file name (None: built in memory, or unknown).")
    digest: str | None = Field(
        default=None, description="16 hex digits of the SHA-256 of the script's steps as canonical JSON; None: "
                                  "unknown (a record written before scripts were recorded, migrated).")


class RunRecord(BaseModel):
    """ONE schema for every run: canary, batch and live-install. Unknown fields (other tools') are kept."""

    model_config = ConfigDict(extra="allow")

    schema_version: int = Field(default=SCHEMA_VERSION, description="Layout version of this record.")
    condition: str = Field(description="confined, unconfined, live-install, canary (imported: as published).")
    unconfined_reason: str | None = Field(default=None, description="Why the run was not confined (`--unconfined` "
                                          "on which door); None when confined or imported.")
    host: str = Field(description="The host CLI that ran (sim, claude, codex, opencode, gemini, grok).")
    host_version: str | None = Field(default=None, description="The host's version (its stream, else --version).")
    model: str | None = Field(default=None, description="The requested model (`scripted`, `sim-policy`).")
    served_model: str | None = Field(default=None, description="The model the host or model server reported.")
    effort: str | None = Field(default=None, description="Reasoning effort asked for.")
    script: ScriptRef | None = Field(default=None, description="The scripted model (None: a real model or the "
                                     "sim's policy); `model` is then `scripted`.")
    faults: list[str] = Field(default_factory=list, description="Failures injected into the run (the model "
                              "server's or the sim's), one line each.")
    case_digest: str | None = Field(default=None, description="Digest of the case as run (prompt, required, moment, "
                                    "files); None: unknown (older records).")
    arm_env: str | None = Field(default=None, description="Digest of the environment the arm gave the host "
                                "(names and values); None: none.")
    arm: str | None = Field(default=None, description="The arm's name.")
    source: str | None = Field(default=None, description="The arm's resolved git sha.")
    case_id: str | None = Field(default=None, description="The case's id.")
    target: str = Field(description="The routing row under test (or a label for negatives).")
    kind: CaseKind = Field(description="positive or negative.")
    run: int = Field(default=0, description="Run index within its (case, host, arm) cell.")
    batch: str | None = Field(default=None, description="The batch id (a hash of the plan); None outside batches.")
    batch_planned: int | None = Field(default=None, description="Runs the batch planned (partial batches show).")
    stop_rule: StopRule | None = Field(default=None, description="The batch's stop rule in force (None outside batches).")
    moment: str | None = Field(default=None, description="The moment spec the run was scored with.")
    required: list[str] = Field(default_factory=list, description="Required files as given.")
    calls: list[Call] = Field(default_factory=list, description="Calls up to and including the moment.")
    required_read_at: dict[str, int | None] = Field(
        default_factory=dict, description="Required file -> index of its first successful read.")
    moment_at: int | None = Field(default=None, description="Index of the moment call; len(calls) for end.")
    entry_loaded_at: int | None = Field(default=None, description="Index of the call that loaded the entry.")
    verdict: dict[str, Verdict] = Field(default_factory=dict, description="Required file -> verdict.")
    overall: Verdict | None = Field(default=None, description="The run's verdict.")
    order_basis: OrderBasis | None = Field(
        default=None, description="turn (reads before the moment by model turn) or index (some call has no turn); "
                                  "None: scored before turns existed.")
    read_basis: dict[str, ReadBasis] = Field(
        default_factory=dict,
        description="Required file -> what made its first read (within `calls`) a read: content, command, tool-status.")
    moment_basis: MomentBasis | None = Field(
        default=None, description="What made `moment_at` the moment: pattern, effect (the repo changed, no pattern "
                                  "matched) or end; None: no moment, or a published one.")
    evidence_conflicts: list[EvidenceConflict] = Field(
        default_factory=list,
        description="Calls (within `calls`) where command analysis and evidence (content, effect) disagree.")
    fired_by: FiredBy | None = Field(
        default=None, description="fired runs: main (the main agent made every first read before the moment) or "
                                  "subagent (a delegated agent made one); None: not fired, or older records.")
    effects_watched: Literal["watched", "incomplete"] | None = Field(
        default=None, description="The repo watcher ran (incomplete: it overflowed or missed a folder, so some "
                                  "effects may be missing); None: not watched (imported or older records, or a "
                                  "host that prints its calls only at exit).")
    stored_verdict: dict[str, str] | None = Field(
        default=None, description="Verdicts as published by an imported source, kept for comparison."
    )
    offered: dict[str, bool | None] = Field(
        default_factory=dict,
        description="Row id -> whether the row's entry skill reached the model: on scripted runs from the model "
                    "server's log of what each request listed; None: not known (a real model, a row without an entry "
                    "skill); empty: older records.")
    valid: bool = Field(default=True, description="False: the run measured nothing (see invalid_reason).")
    invalid_reason: str | None = Field(
        default=None, description="timeout, no-output, host-error, host-crashed, quota, guard, cancelled, "
                                  "login-refresh (the host could not write its refreshed login), "
                                  "not-offered (the row never reached the model: never a skip).")
    tool_calls: int | None = Field(default=None, description="Calls the run made in all (calls keeps fewer).")
    failed_calls: list[int] = Field(default_factory=list, description="Indexes of calls that failed or were refused.")
    usage: Usage = Field(default_factory=Usage, description="Tokens and cost; None is unknown.")
    login_files_changed: list[str] = Field(default_factory=list, description="Login files the run changed.")
    env_names: list[str] = Field(default_factory=list, description="Names (never values) of the environment "
                                 "variables the host process was given (an allow-list per adapter).")
    started_at: str | None = Field(default=None, description="When the host started (UTC, ISO 8601).")
    finished_at: str | None = Field(default=None, description="When the run ended (UTC, ISO 8601).")
    workbench_version: str | None = Field(default=None, description="The workbench that wrote the record.")
    scorer_rules: int | None = Field(default=None, description="Version of the scoring rules applied.")
    exit_code: int | None = Field(default=None, description="The host process's exit status (<0: a signal).")
    run_error: str | None = Field(default=None, description="The error the host's stream ended on.")
    entry: EntryGate | None = Field(default=None, description="The entry-skill gate.")
    guard: GuardReport | None = Field(default=None, description="Changes the guard saw outside the run.")
    provenance: Provenance | None = Field(default=None, description="Import and rescore history.")
    published: dict[str, Any] | None = Field(
        default=None, description="Imported: the source's fields whose meaning differs here, verbatim.")
    executor: ExecutorInfo | None = Field(default=None, description="Batch runs: which executor (and node) ran it.")
    discarded: Marking | None = Field(default=None, description="Left out of tables, with the reason.")
    superseded: Marking | None = Field(default=None, description="Replaced by a later run, with the reason.")

    @property
    def imported_from(self) -> str | None:
        """The source format of an imported record (None: the workbench ran it)."""
        return self.provenance.imported_from if self.provenance else None

    @property
    def status_unknown(self) -> bool:
        """True when the record's calls were never checked for failure."""
        return bool(self.provenance and self.provenance.status_unknown)
