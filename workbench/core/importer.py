"""Convert AgentsMD's published trigger-benchmark records into RunRecords.

Their lines carry no `schema_version` and list-shaped calls (`[tool, path-or-command]`). Every original
field is kept: untouched ones as extra fields under their own names, transformed ones (host, model,
calls, usage, verdict, discarded) verbatim under `published`. Older shapes (first study, canaries)
lack many fields; nothing here requires them.
"""

from __future__ import annotations

import functools
from typing import Any, TypeVar, cast

from pydantic import BaseModel, ValidationError

from workbench.core.errors import InputError
from workbench.core.hostinfo import EFFORTS
from workbench.core.models import Call, CaseKind, Provenance, RunRecord, Verdict
from workbench.core.scoring import infer_kind, overall_verdict

M = TypeVar("M", bound=BaseModel)

SOURCE = "agentsmd"
HOSTS = {"claude-code": "claude"}
VERDICT_NAMES = {"read-noedit": "read-noaction", "skip-noedit": "skip-noaction",
                 "skip-nomoment": "skip-noaction"}

# Fields whose meaning differs from the RunRecord field of the same name; kept under `published`.
TRANSFORMED = ("host", "model", "calls", "usage", "verdict", "discarded", "first_edit")
# Fields copied as they are.
DIRECT = ("condition", "effort", "arm", "source", "batch", "target", "kind", "run", "required_read_at",
          "moment_at", "entry_loaded_at", "tool_calls", "failed_calls", "login_files_changed")
_NOT_AS_EXTRA = frozenset(TRANSFORMED + DIRECT)
_LEAN_SKIPS = frozenset(("host", "model", "effort", "condition", "overall", "stored_verdict", "usage", "discarded",
                         "published"))
"""Converted fields a lean view (`convert_fields(only=...)`) that names none of them is spared."""
_DIRECT = frozenset(DIRECT)
_VIEW_PROVENANCE = {unknown: Provenance(imported_from=SOURCE, status_unknown=unknown) for unknown in (False, True)}


@functools.lru_cache(maxsize=64)
def view_fields(view: type[BaseModel]) -> frozenset[str]:
    """The field names of a lean view, for `convert_fields(only=...)`."""
    return frozenset(view.model_fields)


@functools.lru_cache(maxsize=64)
def _direct_in(only: frozenset[str]) -> frozenset[str]:
    return _DIRECT & only


def is_agentsmd(obj: dict[str, Any]) -> bool:
    """True for a line in AgentsMD's shape: no schema_version and calls as lists (or no calls)."""
    if "schema_version" in obj:
        return False
    calls = obj.get("calls", [])
    return isinstance(calls, list) and all(isinstance(c, list) for c in calls)


def call_fields(index: int, tool: str, arg: str | None, failed: bool) -> dict[str, Any]:
    """One `[tool, arg]` pair as the fields of a Call; the argument lands where its kind says."""
    kind = infer_kind(tool)
    fields: dict[str, Any] = {"index": index, "tool": tool, "kind": kind, "status": "error" if failed else "ok"}
    if kind in ("read", "edit"):
        fields["path"] = arg or None
    elif kind == "shell":
        fields["command"] = arg
    elif kind == "skill":
        fields["skill"] = arg or None
    elif arg:
        fields["arg"] = arg  # extra field: the target of a grep/glob/list tool
    return fields


@functools.lru_cache(maxsize=4096)
def imported_call(index: int, tool: str, arg: str | None, failed: bool) -> Call:
    """The Call of one published call, remembered: a file's runs repeat the same calls (a case's first
    reads, its edits), so each is validated once. Shared between records, so read-only."""
    return Call.model_validate(call_fields(index, tool, arg, failed))


def convert_call(index: int, raw: list[Any], failed: set[int]) -> Call:
    """One `[tool, path-or-command]` list as a Call; `failed` holds the indexes of failed calls."""
    arg = raw[1] if len(raw) > 1 else None
    return imported_call(index, str(raw[0]) if raw else "", str(arg) if arg is not None else None, index in failed)


def convert_usage(raw: Any) -> dict[str, Any]:
    """`{input, output, cost_usd}` as the fields of a Usage (validated with the record, once); anything
    missing stays unknown."""
    if not isinstance(raw, dict):
        return {}
    return {"input_tokens": raw.get("input"), "output_tokens": raw.get("output"), "cost_usd": raw.get("cost_usd")}


def convert_marking(raw: Any) -> dict[str, Any] | None:
    """Their `discarded` (a reason string, a flag or an object) as the fields of a Marking."""
    if raw is None or raw is False:
        return None
    if isinstance(raw, dict):
        return {"reason": str(raw.get("reason", "discarded")), "at": raw.get("at")}
    return {"reason": "discarded" if raw is True else str(raw)}


def split_model(obj: dict[str, Any]) -> tuple[str | None, str | None]:
    """Model and effort; canaries write both in `model` ("gpt-6-astra low")."""
    model = obj.get("model")
    effort = obj.get("effort")
    if isinstance(model, str) and effort is None:
        head, _, tail = model.rpartition(" ")
        if head and tail in EFFORTS:
            return head, tail
    return model, effort


def overall_of(kind: str, verdicts: dict[str, str]) -> str | None:
    """The run's overall verdict from per-file verdicts by the scorer's rule; None if there are none."""
    if not verdicts:
        return None
    return overall_verdict(cast(CaseKind, kind), cast(dict[str, Verdict], verdicts))


def convert(obj: dict[str, Any], *, file: str | None = None, line: int | None = None) -> RunRecord:
    """One AgentsMD line as a RunRecord; raises InputError naming the field that cannot be read."""
    return validated(RunRecord, convert_fields(obj, file=file, line=line), file=file, line=line)


def validated(model: type[M], data: dict[str, Any], *, file: str | None = None, line: int | None = None) -> M:
    """DATA as MODEL (a RunRecord, or a lean view of one); InputError naming the first bad field."""
    try:
        return model.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0] if err.errors() else None
        where = ".".join(str(p) for p in first["loc"]) if first else None
        raise InputError(first["msg"] if first else str(err), file=file, line=line, field=where) from None


def convert_fields(obj: dict[str, Any], *, file: str | None = None, line: int | None = None,
                   only: frozenset[str] | None = None) -> dict[str, Any]:
    """One AgentsMD line as the fields of a RunRecord, not yet validated; InputError for a field whose
    shape cannot be converted. ONLY (a lean view's field names, as `view_fields` gives them) limits the
    result to those fields, each converted as for the whole record (a view's provenance is shared
    between lines: a view is read-only); the shape checks run whatever it names."""
    raw_calls = obj.get("calls") or []
    failed_raw = obj.get("failed_calls")
    indexes_ok = isinstance(failed_raw, list) and all(isinstance(i, int) for i in failed_raw)
    if failed_raw is not None and not indexes_ok:
        raise InputError("must be a list of call indexes", file=file, line=line, field="failed_calls")
    failed = set(failed_raw or [])
    calls = [convert_call(i, c, failed) for i, c in enumerate(raw_calls)]
    stored = obj.get("verdict")
    if stored is not None and not isinstance(stored, dict):
        raise InputError("must be an object of file -> verdict", file=file, line=line, field="verdict")
    stored = {str(k): str(v) for k, v in (stored or {}).items()}
    verdict = {k: VERDICT_NAMES.get(v, v) for k, v in stored.items()}
    direct = _DIRECT if only is None else _direct_in(only)
    data: dict[str, Any] = {}
    for k, v in obj.items():  # untouched fields as extras, then the direct ones where given
        if k not in _NOT_AS_EXTRA:
            if only is None or k in only:
                data[k] = v
        elif v is not None and k in direct:
            data[k] = v
    data.update(
        required=list(obj.get("required_read_at") or stored),
        calls=calls,
        moment=None,
        moment_at=obj.get("moment_at", obj.get("first_edit")),
        verdict=verdict,
        provenance=({"imported_from": SOURCE, "status_unknown": failed_raw is None} if only is None
                    else _VIEW_PROVENANCE[failed_raw is None]),
    )
    if only is None or not _LEAN_SKIPS.isdisjoint(only):
        model, effort = split_model(obj)
        data.update(
            host=HOSTS.get(str(obj.get("host")), obj.get("host")),
            model=model,
            effort=effort,
            condition=obj.get("condition", "unknown"),
            overall=overall_of(str(obj.get("kind", "")), verdict),
            stored_verdict=stored,
            usage=convert_usage(obj.get("usage")),
            discarded=convert_marking(obj.get("discarded")),
            published={k: obj[k] for k in TRANSFORMED if k in obj},
        )
    if "no-output" in verdict.values():  # the overall verdict by the scorer's rule
        data.update(valid=False, invalid_reason="no-output")
    return data
