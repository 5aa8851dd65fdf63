"""Trigger tables computed from run records alone.

A cell is one (host, model, effort, script, arm, target, kind) with counts of runs by overall verdict.
Scripted runs are told apart by the script's digest (two scripts are two measurements; a migrated
record whose script is unknown forms its own group). Arms are told apart by `source` (the arm's sha)
when present, else by arm name, and by the environment the arm gave the host. Records whose calls were never
checked for failure (imported without `failed_calls`, flag `call_status_unknown`) are never pooled with
checked ones: they form their own cells, flagged `reads_verified: false`.
Discarded and superseded records are counted, not tabulated; invalid runs are counted apart.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict

from workbench.core import records, stats
from workbench.core.identity import UNKNOWN
from workbench.core.importer import overall_of
from workbench.core.models import (
    READ_BEFORE,
    CaseKind,
    EntryGate,
    Marking,
    Provenance,
    RunRecord,
    ScriptRef,
    StopRule,
    Usage,
    Verdict,
)

POSITIVE_VERDICTS = ("fired", "read-noaction", "skip", "skip-noaction")
NEGATIVE_VERDICTS = ("opened", "clean")


class RecordView(BaseModel):
    """The fields of a RunRecord the tables read. Validated straight from a JSON line, it skips `calls`
    and everything else a summary never looks at, so summarizing costs about one `json.loads`."""

    model_config = ConfigDict(extra="ignore")

    schema_version: int | None = None
    host: str
    model: str | None = None
    effort: str | None = None
    script: ScriptRef | None = None
    arm: str | None = None
    source: str | None = None
    arm_env: str | None = None
    case_id: str | None = None
    target: str
    kind: CaseKind
    run: int = 0
    batch: str | None = None
    required: list[str] = []
    required_read_at: dict[str, int | None] = {}
    entry_loaded_at: int | None = None
    verdict: dict[str, Verdict] = {}
    overall: Verdict | None = None
    fired_by: str | None = None
    valid: bool = True
    usage: Usage = Usage()
    discarded: Marking | None = None
    superseded: Marking | None = None
    provenance: Provenance | None = None
    entry: EntryGate | None = None
    evidence_conflicts: list[Any] = []
    stop_rule: StopRule | None = None
    batch_planned: int | None = None

    @property
    def status_unknown(self) -> bool:
        """The calls were never checked for failure (imported without failed calls)."""
        return bool(self.provenance and self.provenance.status_unknown)

    @classmethod
    def of(cls, record: RunRecord | RecordView) -> RecordView:
        """The view of a record already in memory (every view field is a declared record field)."""
        if isinstance(record, RecordView):
            return record
        values = {name: getattr(record, name) for name in cls.model_fields}
        return cls.model_validate({k: v for k, v in values.items() if v is not None})


def parse_view(text: str, *, file: str, line: int) -> RecordView:
    """One records line as a RecordView (`records.parse_as`). AgentsMD calls are left out before
    converting: tables never read them, and converting them is most of an import's cost."""
    view = records.parse_as(RecordView, text, file=file, line=line, calls=False)
    return view if isinstance(view, RecordView) else RecordView.of(view)


def overall(record: RunRecord | RecordView) -> str | None:
    """The run's overall verdict: as stored, else derived from the per-file verdicts."""
    return record.overall or overall_of(record.kind, dict(record.verdict))


def is_hit(kind: str, verdict: str | None) -> bool:
    """A hit: the procedure was read before the moment (fired) or read and no action taken
    (read-noaction) for positives; clean for negatives."""
    if kind == "negative":
        return verdict == "clean"
    return verdict in READ_BEFORE


def reads_verified(record: RunRecord | RecordView) -> bool:
    """False when the record's calls were never checked for failure (scored before successful reads)."""
    return not record.status_unknown


def arm_key(record: RunRecord | RecordView) -> str | None:
    """What tells arms apart: the source sha when known, else the arm name; an arm that gave the host
    an environment (an env-only arm beside its base) is another arm (`<sha>+env-<digest>`)."""
    key = record.source or record.arm
    return f"{key}+env-{record.arm_env}" if key and record.arm_env else key


def script_key(record: RunRecord | RecordView) -> str:
    """What tells scripted runs apart: the script's digest ('' without a script, `unknown` when a
    migrated record cannot say)."""
    return "" if record.script is None else record.script.digest or UNKNOWN


def script_label(group: GroupKey, names: Sequence[str] = ()) -> str | None:
    """How a group's script is shown: `name (digest)`, `unknown script`, or None without a script."""
    if not group.script:
        return None
    if group.script == UNKNOWN:
        return "unknown script"
    return f"{'+'.join(names)} ({group.script[:7]})" if names else group.script[:7]


def arm_label(name: str | None, source: str | None) -> str:
    """How an arm is shown: its name with the short sha beside it (`weak (039bfee)`), or whichever of
    the two is known; the full sha stays in the data (`source`)."""
    if name and source and name != source:
        return f"{name} ({source[:7]})"
    return name or (source[:7] if source else "-")


def case_key(record: RunRecord | RecordView) -> str:
    """The case a run belongs to: its case id, else its target and kind."""
    return record.case_id or f"{record.target}:{record.kind}"


@dataclass(frozen=True, order=True)
class GroupKey:
    """Host, model, effort and script: one table."""

    host: str
    model: str
    effort: str
    verified: bool
    script: str = ""
    """The script's digest ('' for a real model or the sim's policy, `unknown` for a migrated record)."""


@dataclass
class Known:
    """A running mean over known values (None is unknown, never 0)."""

    total: float = 0.0
    known: int = 0

    def add(self, value: float | int | None) -> None:
        if value is not None:
            self.total += float(value)
            self.known += 1

    def mean(self) -> tuple[float | None, int]:
        return (round(self.total / self.known, 4) if self.known else None), self.known


@dataclass
class Cell:
    """Runs of one arm on one target within a group, as running counts (no record is kept)."""

    group: GroupKey
    arm: str | None
    target: str
    kind: str
    arm_names: list[str] = field(default_factory=list)
    script_names: list[str] = field(default_factory=list)
    """The file names the cell's script was read from (one script may be loaded from two files)."""
    excluded: int = 0
    total: int = 0
    valid: int = 0
    hit_count: int = 0
    fired_by_subagent: int = 0
    """Fired runs whose first reads before the moment a delegated subagent made (the rest: the main agent)."""
    entry_loaded: int = 0
    offered: int = 0
    """Valid runs whose host offered the entry skill (funnel), and those whose record does not say."""
    offered_unknown: int = 0
    opened_all: int = 0
    conflicts: int = 0
    """Evidence conflicts in valid runs (command analysis vs content or effect evidence), and the runs with one."""
    conflicted_runs: int = 0
    """Valid runs that read every required file at some point (funnel)."""
    has_source: bool = False
    verdicts: dict[str, int] = field(default_factory=lambda: dict.fromkeys((*POSITIVE_VERDICTS, *NEGATIVE_VERDICTS), 0))
    cases: dict[str, list[int]] = field(default_factory=dict)
    """Case -> [hits, valid runs]."""
    invalid_cases: dict[str, int] = field(default_factory=dict)
    """Case -> invalid runs."""
    per_file: dict[str, dict[str, int]] = field(default_factory=dict)
    tokens_in: Known = field(default_factory=Known)
    tokens_out: Known = field(default_factory=Known)
    cost: Known = field(default_factory=Known)
    slot_hits: dict[tuple[str, int], bytearray] | None = None
    """(case, run) -> hit of each repeat, in order; kept only when comparisons are wanted."""

    def add(self, r: RecordView) -> None:
        """Count one tabulated (not excluded) run."""
        self.total += 1
        self.has_source = self.has_source or bool(r.source)
        self.tokens_in.add(r.usage.input_tokens)
        self.tokens_out.add(r.usage.output_tokens)
        self.cost.add(r.usage.cost_usd)
        if not r.valid:
            self.invalid_cases[case_key(r)] = self.invalid_cases.get(case_key(r), 0) + 1
            return
        self.valid += 1
        verdict = overall(r)
        hit = is_hit(r.kind, verdict)
        self.hit_count += hit
        if verdict in self.verdicts:
            self.verdicts[verdict] += 1
        self.fired_by_subagent += verdict == "fired" and r.fired_by == "subagent"
        case = self.cases.setdefault(case_key(r), [0, 0])
        case[0] += hit
        case[1] += 1
        self.entry_loaded += r.entry_loaded_at is not None
        self.conflicts += len(r.evidence_conflicts)
        self.conflicted_runs += bool(r.evidence_conflicts)
        offered = r.entry.offered if r.entry else None
        self.offered += offered is True
        self.offered_unknown += offered is None
        self.opened_all += bool(r.required_read_at) and all(at is not None for at in r.required_read_at.values())
        for key, file_verdict in r.verdict.items():
            row = self.per_file.setdefault(key, {"runs": 0, "read": 0})
            row["runs"] += 1
            row[file_verdict] = row.get(file_verdict, 0) + 1
            row["read"] += r.required_read_at.get(key) is not None
        if self.slot_hits is not None:
            self.slot_hits.setdefault((case_key(r), r.run), bytearray()).append(hit)

    def hits_by_case(self) -> dict[str, list[bool]]:
        """Case -> one hit flag per valid run (hits first; order is not kept)."""
        return {c: [True] * h + [False] * (n - h) for c, (h, n) in self.cases.items()}

    def counts(self) -> dict[str, int]:
        return dict(self.verdicts)

    def hits(self) -> int:
        return self.hit_count

    def to_json(self) -> dict[str, Any]:
        """The cell as published in `summary --format json` under `runs`."""
        counts = self.counts()
        valid, hits = self.valid, self.hit_count
        tokens_in, known_in = self.tokens_in.mean()
        tokens_out, _ = self.tokens_out.mean()
        cost, known_cost = self.cost.mean()
        ci = stats.wilson95(hits, valid)
        return {
            "host": self.group.host, "model": self.group.model or None, "effort": self.group.effort or None,
            "script": "+".join(self.script_names) or None, "script_digest": self.group.script or None,
            "arm": "+".join(self.arm_names) or None,
            "source": self.arm if self.has_source else None,
            "target": self.target, "kind": self.kind,
            "total": self.total, "valid": valid, "invalid": self.total - valid,
            "fired": counts["fired"], "fired_by_main": counts["fired"] - self.fired_by_subagent,
            "fired_by_subagent": self.fired_by_subagent, "read_noaction": counts["read-noaction"], "skip": counts["skip"],
            "skip_noaction": counts["skip-noaction"], "opened": counts["opened"], "clean": counts["clean"],
            "hits": hits, "wilson95": list(ci) if ci else None,
            "majority_cases": sum(h * 2 > n for h, n in self.cases.values()), "cases": len(self.cases),
            "flaky": sorted(c for c, (h, n) in self.cases.items() if 0 < h < n),
            "entry_loaded": self.entry_loaded,
            "mean_input_tokens": tokens_in, "mean_output_tokens": tokens_out, "usage_known": known_in,
            "mean_cost_usd": cost, "cost_known": known_cost,
            "excluded": self.excluded, "reads_verified": self.group.verified,
            "evidence_conflicts": self.conflicts, "conflicted_runs": self.conflicted_runs,
        }


@dataclass
class Summary:
    """Every cell of a set of records, in order of first appearance, plus what was left out.

    Records are counted as they are added and not kept, so a summary of a stream needs memory for
    its cells only. `pairs=False` skips the per-(case, run) hits that only `compare` needs."""

    cells: dict[tuple[GroupKey, str | None, str, str], Cell] = field(default_factory=dict)
    discarded: int = 0
    superseded: int = 0
    pairs: bool = True

    @staticmethod
    def key(r: RunRecord | RecordView) -> tuple[GroupKey, str | None, str, str]:
        """The cell a record is counted in."""
        return (GroupKey(r.host, r.model or "", r.effort or "", reads_verified(r), script_key(r)), arm_key(r),
                r.target, r.kind)

    def add(self, record: RunRecord | RecordView) -> None:
        r = RecordView.of(record)
        key = self.key(r)
        cell = self.cells.get(key)
        if cell is None:
            cell = self.cells[key] = Cell(key[0], key[1], r.target, r.kind,
                                          slot_hits={} if self.pairs else None)
        if r.arm and r.arm not in cell.arm_names:
            cell.arm_names.append(r.arm)
        if r.script is not None and r.script.name and r.script.name not in cell.script_names:
            cell.script_names.append(r.script.name)
        if r.discarded is not None or r.superseded is not None:
            cell.excluded += 1
            self.discarded += r.discarded is not None
            self.superseded += r.discarded is None
            return
        cell.add(r)

    @property
    def unverified(self) -> int:
        """Runs tabulated apart because their calls were never checked for failure."""
        return sum(c.total for c in self.cells.values() if not c.group.verified)

    def files(self) -> list[dict[str, Any]]:
        """Per cell and required file: how each file's verdict came out."""
        out = []
        for cell in self.cells.values():
            for key, row in cell.per_file.items():
                out.append({"host": cell.group.host, "model": cell.group.model or None,
                            "effort": cell.group.effort or None, "script_digest": cell.group.script or None,
                            "source": cell.arm, "target": cell.target,
                            "kind": cell.kind, "file": key, **row})
        return out

    def arm_of(self, label: str) -> str:
        """The arm key (sha, or name when no sha) that LABEL names: the key itself, an arm name, or a
        sha prefix of at least 7 characters. Unknown labels are returned as given (they match nothing)."""
        keys = {c.arm for c in self.cells.values() if c.arm}
        if label in keys:
            return label
        named = {c.arm for c in self.cells.values() if c.arm and label in c.arm_names}
        prefixed = {k for k in keys if len(label) >= 7 and k.startswith(label)}
        found = named or prefixed
        return found.pop() if len(found) == 1 else label

    def compare(self, arm_a: str, arm_b: str, alpha: float = 0.05) -> list[dict[str, Any]]:
        """Arm B against arm A on every target both ran: rates, delta in points, exact paired test and
        the anytime-valid sequential decision at ALPHA. Arms may be named by sha, sha prefix or arm name."""
        arm_a, arm_b = self.arm_of(arm_a), self.arm_of(arm_b)
        out = []
        for (group, arm, target, kind), cell_a in self.cells.items():
            if arm != arm_a:
                continue
            cell_b = self.cells.get((group, arm_b, target, kind))
            if cell_b is None:
                continue
            out.append(paired(cell_a, cell_b, alpha))
        return out


def slots(cell: Cell) -> dict[tuple[str, int, int], bool]:
    """(case, run, repeat) -> hit for the cell's valid runs; repeats number duplicate run ids in order."""
    if cell.slot_hits is None:
        raise ValueError("this summary was built with pairs=False: comparisons need the per-run hits")
    return {(case, run, i): bool(hit) for (case, run), hits in cell.slot_hits.items() for i, hit in enumerate(hits)}


def pairs(a: Cell, b: Cell) -> dict[str, list[tuple[bool, bool]]]:
    """Case -> (hit in A, hit in B) for each pair of runs of two cells: the same case, run index and
    repeat. The cells must be of one group (host, model, effort, reads verified and script: two
    scripts are never one measurement), target and kind; every comparison pairs runs here."""
    if (a.group, a.target, a.kind) != (b.group, b.target, b.kind):
        raise ValueError(f"cells of different groups or targets do not pair: {a.group} {a.target} vs "
                         f"{b.group} {b.target}")
    sa, sb = slots(a), slots(b)
    out: dict[str, list[tuple[bool, bool]]] = {}
    for slot in sorted(set(sa) & set(sb)):
        out.setdefault(slot[0], []).append((sa[slot], sb[slot]))
    return out


def paired(a: Cell, b: Cell, alpha: float = 0.05) -> dict[str, Any]:
    """One comparison row between two cells of the same target (pairs: same case and run index)."""
    common = [pair for case_pairs in pairs(a, b).values() for pair in case_pairs]
    only_a = sum(ha and not hb for ha, hb in common)
    only_b = sum(hb and not ha for ha, hb in common)
    ha, na, hb, nb = a.hits(), a.valid, b.hits(), b.valid
    return {
        "host": a.group.host, "model": a.group.model or None, "effort": a.group.effort or None,
        "script_digest": a.group.script or None, "target": a.target, "kind": a.kind, "a": a.arm, "b": b.arm,
        "name_a": "+".join(a.arm_names) or None, "name_b": "+".join(b.arm_names) or None,
        "hits_a": ha, "valid_a": na, "hits_b": hb, "valid_b": nb,
        "delta_pp": stats.delta_pp(ha, na, hb, nb),
        "pairs": len(common), "only_a": only_a, "only_b": only_b,
        "mcnemar_p": stats.mcnemar_exact(only_a, only_b),
        **sequential(only_a, only_b, len(common), alpha),
    }


def sequential(only_a: int, only_b: int, pairs: int, alpha: float) -> dict[str, Any]:
    """The anytime-valid decision of a comparison row: e-value, the better arm ("A"/"B", None while
    undecided) and about how many more pairs would decide at the observed rates (0 once decided,
    None when the observed rates never decide)."""
    d = stats.sequential_decision(only_a, only_b, pairs, alpha)
    return {"alpha": alpha, "e_value": round(d.e_value, 4), "better": d.better, "more_pairs": d.more_pairs}


def decision_text(row: dict[str, Any]) -> str:
    """`decided: B better (e = 24.1, after 9 pairs)` / `undecided: ~4 more pairs at the observed rate`."""
    if row["better"]:
        name = row.get(f"name_{row['better'].lower()}") or row["better"]
        return f"decided: {name} better (e = {row['e_value']:.1f}, after {row['pairs']} pairs)"
    if row["more_pairs"] is None:
        return f"undecided: no difference seen in {row['pairs']} pairs (e = {row['e_value']:.2f})"
    return f"undecided: ~{row['more_pairs']} more pairs at the observed rate (e = {row['e_value']:.2f})"


@dataclass(frozen=True)
class CaseRow:
    """One case of one arm on one host and model: a row of a per-case results table."""

    host: str
    model: str
    arm: str
    case: str
    hits: int
    valid: int
    invalid: int


def case_rows(summary: Summary) -> list[CaseRow]:
    """Every (host, model, arm, case) of SUMMARY with its hits, valid and invalid runs, sorted by case,
    host, model and arm: a front end's per-case table never counts records itself."""
    rows: dict[tuple[str, str, str, str], list[int]] = {}
    for cell in summary.cells.values():
        arm = "+".join(cell.arm_names) or arm_label(None, cell.arm)
        for case in {*cell.cases, *cell.invalid_cases}:
            hits, valid = cell.cases.get(case, [0, 0])
            row = rows.setdefault((case, cell.group.host, cell.group.model, arm), [0, 0, 0])
            row[0] += hits
            row[1] += valid
            row[2] += cell.invalid_cases.get(case, 0)
    return [CaseRow(host, model, arm, case, *counts) for (case, host, model, arm), counts in sorted(rows.items())]


def summarize(records_: Iterable[RunRecord | RecordView], *, pairs: bool = True) -> Summary:
    """Count records into cells as they come (an iterator is consumed once, nothing is kept)."""
    summary = Summary(pairs=pairs)
    for record in records_:
        summary.add(record)
    return summary


def to_json(summary: Summary, comparisons: Sequence[tuple[str, str]] = (), alpha: float = 0.05) -> dict[str, Any]:
    """The whole summary as one JSON-ready object (comparisons decided at ALPHA; every arm against a
    no-row control arm, when there is one, under `control`)."""
    from workbench.core.control import control_verdicts  # control pairs by case, on this module's verdicts

    return {
        "runs": [c.to_json() for c in summary.cells.values()],
        "files": summary.files(),
        "comparisons": [{**row, "decision": decision_text(row)} for a, b in comparisons
                        for row in summary.compare(a, b, alpha)],
        "control": control_verdicts(summary, alpha=alpha),
        "excluded": {"discarded": summary.discarded, "superseded": summary.superseded},
        "unverified_runs": summary.unverified,
    }
