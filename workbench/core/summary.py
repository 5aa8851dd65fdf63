"""Trigger tables computed from run records alone.

A cell is one (host, model, effort, arm, target, kind) with counts of runs by overall verdict. Arms are
told apart by `source` (the arm's sha) when present, else by arm name. Records whose calls were never
checked for failure (imported without `failed_calls`, flag `call_status_unknown`) are never pooled with
checked ones: they form their own cells, flagged `reads_verified: false`.
Discarded and superseded records are counted, not tabulated; invalid runs are counted apart.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from workbench.core import stats
from workbench.core.importer import overall_of
from workbench.core.models import RunRecord

POSITIVE_VERDICTS = ("fired", "read-noaction", "skip", "skip-noaction")
NEGATIVE_VERDICTS = ("opened", "clean")


def overall(record: RunRecord) -> str | None:
    """The run's overall verdict: as stored, else derived from the per-file verdicts."""
    return record.overall or overall_of(record.kind, dict(record.verdict))


def is_hit(kind: str, verdict: str | None) -> bool:
    """A hit: the procedure was read before the moment (fired) or read and no action taken
    (read-noaction) for positives; clean for negatives."""
    if kind == "negative":
        return verdict == "clean"
    return verdict in ("fired", "read-noaction")


def reads_verified(record: RunRecord) -> bool:
    """False when the record's calls were never checked for failure (scored before successful reads)."""
    return not record.status_unknown


def arm_key(record: RunRecord) -> str | None:
    """What tells arms apart: the source sha when known, else the arm name."""
    return record.source or record.arm


def case_key(record: RunRecord) -> str:
    """The case a run belongs to: its case id, else its target and kind."""
    return record.case_id or f"{record.target}:{record.kind}"


@dataclass(frozen=True, order=True)
class GroupKey:
    """Host, model and effort: one table."""

    host: str
    model: str
    effort: str
    verified: bool


@dataclass
class Cell:
    """Runs of one arm on one target within a group."""

    group: GroupKey
    arm: str | None
    target: str
    kind: str
    arm_names: list[str] = field(default_factory=list)
    records: list[RunRecord] = field(default_factory=list)
    excluded: int = 0

    @property
    def valid_records(self) -> list[RunRecord]:
        return [r for r in self.records if r.valid]

    def hits_by_case(self) -> dict[str, list[bool]]:
        out: dict[str, list[bool]] = defaultdict(list)
        for r in self.valid_records:
            out[case_key(r)].append(is_hit(r.kind, overall(r)))
        return dict(out)

    def counts(self) -> dict[str, int]:
        counts = {v: 0 for v in (*POSITIVE_VERDICTS, *NEGATIVE_VERDICTS)}
        for r in self.valid_records:
            v = overall(r)
            if v in counts:
                counts[v] += 1
        return counts

    def hits(self) -> int:
        return sum(is_hit(r.kind, overall(r)) for r in self.valid_records)

    def to_json(self) -> dict[str, Any]:
        """The cell as published in `summary --format json` under `runs`."""
        counts = self.counts()
        valid = len(self.valid_records)
        hits = self.hits()
        by_case = self.hits_by_case()
        tokens_in, known_in = stats.mean_known(r.usage.input_tokens for r in self.records)
        tokens_out, _ = stats.mean_known(r.usage.output_tokens for r in self.records)
        cost, known_cost = stats.mean_known(r.usage.cost_usd for r in self.records)
        ci = stats.wilson95(hits, valid)
        return {
            "host": self.group.host, "model": self.group.model or None, "effort": self.group.effort or None,
            "arm": "+".join(self.arm_names) or None,
            "source": self.arm if any(r.source for r in self.records) else None,
            "target": self.target, "kind": self.kind,
            "total": len(self.records), "valid": valid, "invalid": len(self.records) - valid,
            "fired": counts["fired"], "read_noaction": counts["read-noaction"], "skip": counts["skip"],
            "skip_noaction": counts["skip-noaction"], "opened": counts["opened"], "clean": counts["clean"],
            "hits": hits, "wilson95": list(ci) if ci else None,
            "majority_cases": sum(stats.majority(h) for h in by_case.values()), "cases": len(by_case),
            "flaky": sorted(c for c, h in by_case.items() if stats.flaky(h)),
            "entry_loaded": sum(r.entry_loaded_at is not None for r in self.valid_records),
            "mean_input_tokens": tokens_in, "mean_output_tokens": tokens_out, "usage_known": known_in,
            "mean_cost_usd": cost, "cost_known": known_cost,
            "excluded": self.excluded, "reads_verified": self.group.verified,
        }


@dataclass
class Summary:
    """Every cell of a set of records, in order of first appearance, plus what was left out."""

    cells: dict[tuple[GroupKey, str | None, str, str], Cell] = field(default_factory=dict)
    discarded: int = 0
    superseded: int = 0

    def add(self, record: RunRecord) -> None:
        group = GroupKey(record.host, record.model or "", record.effort or "", reads_verified(record))
        key = (group, arm_key(record), record.target, record.kind)
        cell = self.cells.get(key)
        if cell is None:
            cell = self.cells[key] = Cell(group, key[1], record.target, record.kind)
        if record.arm and record.arm not in cell.arm_names:
            cell.arm_names.append(record.arm)
        if record.discarded is not None or record.superseded is not None:
            cell.excluded += 1
            self.discarded += record.discarded is not None
            self.superseded += record.discarded is None
            return
        cell.records.append(record)

    @property
    def unverified(self) -> int:
        """Runs tabulated apart because their calls were never checked for failure."""
        return sum(len(c.records) for c in self.cells.values() if not c.group.verified)

    def files(self) -> list[dict[str, Any]]:
        """Per cell and required file: how each file's verdict came out."""
        out = []
        for cell in self.cells.values():
            per_file: dict[str, dict[str, int]] = {}
            for r in cell.valid_records:
                for key, verdict in r.verdict.items():
                    row = per_file.setdefault(key, {"runs": 0, "read": 0})
                    row["runs"] += 1
                    row[verdict] = row.get(verdict, 0) + 1
                    row["read"] += r.required_read_at.get(key) is not None
            for key, row in per_file.items():
                out.append({"host": cell.group.host, "model": cell.group.model or None,
                            "effort": cell.group.effort or None, "source": cell.arm, "target": cell.target,
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
    seen: dict[tuple[str, int], int] = defaultdict(int)
    out = {}
    for r in cell.valid_records:
        base = (case_key(r), r.run)
        out[(*base, seen[base])] = is_hit(r.kind, overall(r))
        seen[base] += 1
    return out


def paired(a: Cell, b: Cell, alpha: float = 0.05) -> dict[str, Any]:
    """One comparison row between two cells of the same target (pairs: same case and run index)."""
    sa, sb = slots(a), slots(b)
    common = sorted(set(sa) & set(sb))
    only_a = sum(sa[s] and not sb[s] for s in common)
    only_b = sum(sb[s] and not sa[s] for s in common)
    ha, na, hb, nb = a.hits(), len(a.valid_records), b.hits(), len(b.valid_records)
    return {
        "host": a.group.host, "model": a.group.model or None, "effort": a.group.effort or None,
        "target": a.target, "kind": a.kind, "a": a.arm, "b": b.arm,
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


def summarize(records: Iterable[RunRecord]) -> Summary:
    """Group records into cells."""
    summary = Summary()
    for record in records:
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
        "control": control_verdicts((r for c in summary.cells.values() for r in c.records), alpha=alpha),
        "excluded": {"discarded": summary.discarded, "superseded": summary.superseded},
        "unverified_runs": summary.unverified,
    }
