"""What a report shows, computed from run records alone: tables, funnel, confusion, invalid runs, call lists.

Pure: no I/O. Counting, intervals, FLAKY and the paired test come from `core.summary` and `core.stats`;
which call read which file and where the moment is come from `core.scoring` and the records. Nothing
here re-states a scoring rule. The HTML page (`workbench.report`) and `summary` render this data.

Terms (docs/reports.md):
- funnel (positive runs of one host and arm): entry skill offered → entry loaded → every required
  procedure opened at any time → read before the moment (a hit). Each stage is counted on its own: a
  run can open a procedure without loading the entry skill.
- confusion (per case): which procedures were opened before the moment, the target's and its
  siblings'. Siblings are the other procedures the records know: every file some record requires.
  For negative cases: which procedures were opened at all.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from workbench.core.models import READ_BEFORE, Call, RunRecord, ScoreSpec
from workbench.core.scoring import first_reads, read_evidence, score
from workbench.core.summary import Cell, Summary, case_key, is_hit, overall, summarize, to_json

FUNNEL_STAGES = ("runs", "offered", "loaded", "opened", "read_before")
"""Funnel columns, in order; `offered_unknown` counts runs whose records do not say."""


def entry_offered(record: RunRecord) -> bool | None:
    """Whether the host offered the entry skill (None: the record does not say)."""
    return record.entry.offered if record.entry else None


def cell_id(cell: Cell) -> dict[str, Any]:
    """The fields that name a summary cell, as in `summary --format json`."""
    data = cell.to_json()
    return {k: data[k] for k in ("host", "model", "effort", "arm", "source", "target", "kind")}


def group_id(cell: Cell) -> dict[str, Any]:
    """Host, model, effort and arm of a cell (what a funnel row is keyed by)."""
    data = cell_id(cell)
    return {k: data[k] for k in ("host", "model", "effort", "arm", "source")} | {
        "reads_verified": cell.group.verified}


def procedures(records: Iterable[RunRecord]) -> list[str]:
    """Every procedure the records know of: each file some record requires, in first-seen order."""
    return list(dict.fromkeys(f for r in records for f in r.required))


def funnel(summary: Summary) -> list[dict[str, Any]]:
    """One funnel row per host/model/effort and arm that has valid positive runs (the cells' counts)."""
    rows: dict[tuple[Any, ...], dict[str, Any]] = {}
    for cell in summary.cells.values():
        if cell.kind != "positive":
            continue
        row = rows.setdefault((cell.group, cell.arm), {
            **group_id(cell), **dict.fromkeys(FUNNEL_STAGES, 0), "offered_unknown": 0})
        row["runs"] += cell.valid
        row["offered"] += cell.offered
        row["offered_unknown"] += cell.offered_unknown
        row["loaded"] += cell.entry_loaded
        row["opened"] += cell.opened_all
        row["read_before"] += cell.hit_count
    return [row for row in rows.values() if row["runs"]]


def sibling_reads(record: RunRecord, siblings: Sequence[str]) -> dict[str, bool]:
    """Sibling procedure -> opened before the moment (positive) or at all (negative), judged by the
    scorer on the record's kept calls with the record's own moment."""
    if not siblings or not record.calls:
        return dict.fromkeys(siblings, False)
    spec = ScoreSpec(kind=record.kind, required=list(siblings), moment=record.moment or "end")
    result = score(spec, record.calls, moment_at=record.moment_at)
    hit = ("opened",) if record.kind == "negative" else READ_BEFORE
    return {f: result.verdicts[f] in hit for f in siblings}


def target_reads(record: RunRecord) -> dict[str, bool]:
    """Required file -> opened before the moment (positive) or at all (negative), from the record."""
    hit = ("opened",) if record.kind == "negative" else READ_BEFORE
    return {f: record.verdict.get(f) in hit for f in record.required}


def tabulated(record: RunRecord) -> bool:
    """Counted in tables (not discarded or superseded)."""
    return record.discarded is None and record.superseded is None


@dataclass
class Confusion:
    """Per cell and case: how many valid runs opened each procedure (target first, then siblings).
    Records are added one at a time (a stream); `summary` names the cells and `known` the procedures."""

    summary: Summary
    known: Sequence[str]
    _rows: dict[tuple[Any, ...], dict[str, Any]] = field(default_factory=dict)

    def add(self, r: RunRecord) -> None:
        if not (r.valid and tabulated(r)):
            return
        key = (Summary.key(r), case_key(r))
        row = self._rows.get(key)
        if row is None:
            cell = self.summary.cells[key[0]]
            row = self._rows[key] = {**cell_id(cell), "case": key[1], "runs": 0, "targets": [], "counts": {},
                                     "none": 0, "sibling_instead": 0,
                                     "when": "at all" if cell.kind == "negative" else "before the moment"}
        row["runs"] += 1
        for f in r.required:
            if f not in row["targets"]:
                row["targets"].append(f)
        mine = target_reads(r)
        other = sibling_reads(r, [f for f in self.known if f not in r.required])
        for f, yes in (*mine.items(), *other.items()):
            row["counts"][f] = row["counts"].get(f, 0) + yes
        row["none"] += not any(mine.values()) and not any(other.values())
        row["sibling_instead"] += r.kind == "positive" and not all(mine.values()) and any(other.values())

    def rows(self) -> list[dict[str, Any]]:
        out = []
        for row in self._rows.values():
            targets = row["targets"]
            order = [*targets, *(f for f in self.known if f not in targets)]
            opened = {f: row["counts"].get(f, 0) for f in order if f in targets or row["counts"].get(f, 0)}
            out.append({k: v for k, v in row.items() if k != "counts"} | {"opened": opened})
        return out


def confusion(summary: Summary, records: Iterable[RunRecord], known: Sequence[str]) -> list[dict[str, Any]]:
    """The confusion rows of RECORDS (see `Confusion`)."""
    tally = Confusion(summary, known)
    for r in records:
        tally.add(r)
    return tally.rows()


def invalid_runs(records: Iterable[RunRecord]) -> dict[str, list[dict[str, Any]]]:
    """Invalid runs grouped by their reason (`unknown` when the record gives none)."""
    out: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        if tabulated(r) and not r.valid:
            out[r.invalid_reason or "unknown"].append(run_id(r))
    return dict(out)


def run_id(record: RunRecord) -> dict[str, Any]:
    """What names one run for a reader."""
    return {"host": record.host, "arm": record.arm, "source": record.source, "case": case_key(record),
            "target": record.target, "kind": record.kind, "run": record.run, "batch": record.batch}


def reads_of(call: Call, known: Sequence[str]) -> list[str]:
    """The known procedures this one call successfully read (asked of the scorer's read matching)."""
    return [f for f, at in first_reads(list(known), [call]).items() if at is not None]


def call_marks(call: Call, position: int, record: RunRecord, read: Sequence[str],
               conflicted: frozenset[int] = frozenset()) -> list[str]:
    """READ (a required file), READ-OTHER (another procedure), REFUSED, FAILED, CONFLICT (command analysis
    and content evidence disagree; the evidence decided) and MOMENT marks of a call."""
    marks = []
    if any(f in record.required for f in read):
        marks.append("READ")
    elif read:
        marks.append("READ-OTHER")
    if call.status == "denied":
        marks.append("REFUSED")
    elif call.status == "error":
        marks.append("FAILED")
    if position in conflicted:
        marks.append("CONFLICT")
    if record.moment_at is not None and position == record.moment_at:
        marks.append("MOMENT")
    return marks


def call_view(call: Call, position: int, record: RunRecord, known: Sequence[str],
              conflicted: frozenset[int] = frozenset()) -> dict[str, Any]:
    """One call as the report lists it; `turn` and `evidence` when the record carries them."""
    read = reads_of(call, known)
    return {"index": call.index, "tool": call.tool, "kind": call.kind, "status": call.status,
            "target": call.path or call.command or call.skill, "exit_code": call.exit_code,
            "result": call.result, "reads": read, "marks": call_marks(call, position, record, read, conflicted),
            "turn": call.turn, "evidence": dict(call.evidence), "read_by": call.read_by}


def run_view(record: RunRecord, known: Sequence[str]) -> dict[str, Any]:
    """One run with its calls up to the moment (the record keeps no more) and the scorer's evidence
    conflicts over them."""
    known = list(dict.fromkeys([*record.required, *known]))
    conflicts = [c.model_dump(exclude_defaults=True) for c in read_evidence(record.required, record.calls)[2]]
    conflicted = frozenset(int(c["call"]) for c in conflicts)
    return {**run_id(record), "verdict": overall(record), "fired_by": record.fired_by, "verdicts": dict(record.verdict),
            "hit": is_hit(record.kind, overall(record)), "valid": record.valid,
            "invalid_reason": record.invalid_reason, "moment": record.moment, "moment_at": record.moment_at,
            "entry_loaded_at": record.entry_loaded_at, "entry_offered": entry_offered(record),
            "required_read_at": dict(record.required_read_at), "host_version": record.host_version,
            "served_model": record.served_model, "condition": record.condition,
            "conflicts": conflicts,
            "calls": [call_view(c, i, record, known, conflicted) for i, c in enumerate(record.calls)]}


def sequential(row: Mapping[str, Any]) -> dict[str, Any]:
    """The anytime-valid paired decision of one comparison row, as `core.summary.paired` made it."""
    return {k: row[k] for k in ("e_value", "alpha", "better", "more_pairs")}


def provenance(records: Sequence[RunRecord]) -> dict[str, list[str]]:
    """Distinct host versions, served models, conditions, batches and scorer rules of the records."""
    def distinct(values: Iterable[object]) -> list[str]:
        return sorted({str(v) for v in values if v is not None})
    return {
        "hosts": distinct(f"{r.host} {r.host_version or '?'}" for r in records),
        "served_models": distinct(r.served_model or r.model for r in records),
        "conditions": distinct(r.condition for r in records),
        "batches": distinct(r.batch for r in records),
        "scorer_rules": distinct(r.scorer_rules for r in records),
        "workbench_versions": distinct(r.workbench_version for r in records),
    }


@dataclass
class Report:
    """Everything a report page shows; `summary` is exactly `summary --format json`'s object and
    `comparisons` its comparison rows with the sequential decision added."""

    summary: dict[str, Any]
    comparisons: list[dict[str, Any]]
    funnel: list[dict[str, Any]]
    confusion: list[dict[str, Any]]
    invalid: dict[str, list[dict[str, Any]]]
    runs: list[dict[str, Any]]
    provenance: dict[str, list[str]]
    files: list[dict[str, str]] = field(default_factory=list)
    procedures: list[str] = field(default_factory=list)


def build(records: Sequence[RunRecord], comparisons: Sequence[tuple[str, str]] = (),
          files: Sequence[Mapping[str, str]] = ()) -> Report:
    """The report of RECORDS; FILES are `{path, sha256}` of the records files, as the caller read them."""
    summary = summarize(records)
    data = to_json(summary, comparisons)
    known = procedures(records)
    shown = [r for r in records if tabulated(r)]
    return Report(summary=data, comparisons=[{**row, "sequential": sequential(row)} for row in data["comparisons"]],
                  funnel=funnel(summary), confusion=confusion(summary, records, known),
                  invalid=invalid_runs(records), runs=[run_view(r, known) for r in shown],
                  provenance=provenance(records), files=[dict(f) for f in files], procedures=known)
