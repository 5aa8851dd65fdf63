"""Re-judge kept records with the CURRENT scorer rules, and list the verdicts that changed.

Records with a moment spec go through `scoring.score()` in full, from the evidence the record keeps
per call (content evidence, attributed effects), so the read and moment bases and the evidence
conflicts come back too. A stored read past the kept calls (after the moment) is kept as stored.
Imported records have none (the publisher scored with its own moment rules), so their stored moment
index is passed to `score()` and only the reads are judged again.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

from workbench.core import records
from workbench.core.models import (
    Call,
    CaseKind,
    EntryGate,
    Provenance,
    RescoredFrom,
    RunRecord,
    Score,
    ScoreSpec,
    Verdict,
    updated,
)
from workbench.core.scoring import SCORER_RULES, score


@dataclass(frozen=True)
class Change:
    """One per-file verdict that differs from the stored one."""

    file: str
    line: int
    target: str
    kind: str
    run: int
    batch: str | None
    source: str | None
    key: str
    old: str | None
    new: str | None
    status_unknown: bool

    def text(self) -> str:
        where = f"{self.file}:{self.line} {self.target} ({self.kind}) run {self.run}"
        where += f", batch {self.batch}" if self.batch else ""
        note = "  [no call status: failed reads unknown]" if self.status_unknown else ""
        return f"{where}: {self.key}: {self.old} -> {self.new}{note}"


class JudgeView(BaseModel):
    """The fields of a RunRecord that `judge` and `changes` read, and nothing else: listing changes
    validates neither the other 40-odd fields nor an imported line's `published` copy (`--write`, which
    stores the whole record, reads full RunRecords)."""

    model_config = ConfigDict(extra="ignore")

    target: str
    kind: CaseKind
    run: int = 0
    batch: str | None = None
    source: str | None = None
    moment: str | None = None
    required: list[str] = []
    calls: list[Call] = []
    moment_at: int | None = None
    entry_loaded_at: int | None = None
    verdict: dict[str, Verdict] = {}
    valid: bool = True
    invalid_reason: str | None = None
    entry: EntryGate | None = None
    provenance: Provenance | None = None

    @property
    def status_unknown(self) -> bool:
        """True when the record's calls were never checked for failure."""
        return bool(self.provenance and self.provenance.status_unknown)


Judged = RunRecord | JudgeView
"""What `judge` and `changes` accept: a whole record, or its view."""


def parse_view(text: str, *, file: str, line: int) -> Judged:
    """One records line as what `judge` reads (`records.parse_as` with the calls)."""
    return records.parse_as(JudgeView, text, file=file, line=line)


def had_model_output(record: Judged) -> bool:
    """False for a record marked invalid because the model produced nothing."""
    return record.valid or record.invalid_reason != "no-output"


@functools.lru_cache(maxsize=512)
def spec_of(kind: str, required: tuple[str, ...], moment: str | None, entry_skill: str | None,
            entry_file: str | None) -> ScoreSpec:
    """The ScoreSpec of a record's case, remembered: a file of records repeats the same few cases.
    Shared between records, so read-only (the scorer never changes its spec). No moment: the imported
    shape, whose stored moment index is used instead."""
    if moment is None:
        return ScoreSpec(kind=kind, required=list(required))
    return ScoreSpec(kind=kind, required=list(required), moment=moment, entry_skill=entry_skill,
                     entry_file=entry_file)


def judge(record: Judged) -> Score:
    """The current rules' answer for a kept record. Keys are the record's `required` files as given
    (the producers' and the importer's convention); `entry_loaded_at` is the stored one unless the
    record names its entry skill or file."""
    required = record.required or list(record.verdict)
    entry = record.entry
    output = had_model_output(record)
    if record.moment is not None:
        spec = spec_of(record.kind, tuple(required), record.moment, entry.skill if entry else None,
                       entry.file if entry else None)
        result = score(spec, record.calls, model_output=output)
        if not (spec.entry_skill or spec.entry_file):
            result.entry_loaded_at = record.entry_loaded_at
        return result
    spec = spec_of(record.kind, tuple(required), None, None, None)
    result = score(spec, record.calls, moment_at=record.moment_at, model_output=output)
    result.entry_loaded_at = record.entry_loaded_at
    return result


def rescore(record: RunRecord, result: Score | None = None) -> RunRecord:
    """A copy of the record judged by the current rules (`judge`, unless its answer is given); the
    previous verdict is kept in `provenance.rescored_from`."""
    result = judge(record) if result is None else result
    output = had_model_output(record)
    before = RescoredFrom(verdict=dict(record.verdict), overall=record.overall, scorer_rules=record.scorer_rules)
    kept = len(record.calls)
    update = {"required_read_at": kept_reads(record, result), "verdict": dict(result.verdicts),
              "moment_at": result.moment_at, "entry_loaded_at": result.entry_loaded_at, "scorer_rules": SCORER_RULES,
              "order_basis": result.order_basis, "moment_basis": result.moment_basis,
              "fired_by": result.fired_by,
              "read_basis": {k: b for k, b in result.read_basis.items() if (result.reads.get(k) or 0) < kept},
              "evidence_conflicts": [c for c in result.conflicts if c.call < kept],
              "provenance": updated(record.provenance or Provenance(), {"rescored_from": before})}
    if record.valid or not output:
        update["overall"] = result.overall if result.verdicts else None
    return updated(record, update)


def kept_reads(record: RunRecord, result: Score) -> dict[str, int | None]:
    """The rescored first reads, plus the stored ones past the kept calls: a record keeps its calls up to
    the moment only, so a read after it (counted by the funnel's "opened") cannot be judged again."""
    kept = len(record.calls)
    reads = dict(result.reads)
    for key, at in record.required_read_at.items():
        if reads.get(key) is None and at is not None and at >= kept and key in reads:
            reads[key] = at
    return reads


def changes(record: Judged, new: RunRecord | Score, file: str, line: int) -> list[Change]:
    """Every per-file verdict of `new` (a rescored record or the scorer's answer) that differs from the
    record's stored one."""
    if record.verdict == (verdicts := new.verdict if isinstance(new, RunRecord) else new.verdicts):
        return []
    unknown = record.status_unknown
    out = []
    for key in dict.fromkeys([*record.verdict, *verdicts]):
        old, now = record.verdict.get(key), verdicts.get(key)
        if old != now and record.valid:
            out.append(Change(file, line, record.target, record.kind, record.run, record.batch, record.source,
                              key, old, now, unknown))
    return out
