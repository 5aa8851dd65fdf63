"""Did the row earn the read? Every arm against the no-row control (`batch --control`), per case.

Runs pair up by host, model, case and run index. Per case the anytime-valid paired test
(`core.stats.sequential_decision`) on those pairs says "row earned it" (the arm beats the control)
or "control better"; undecided, equal hit counts say "tie: the model reads it without the row", and
otherwise the case is undecided with the pairs still needed at the observed rate.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

from workbench.core import stats

if TYPE_CHECKING:
    from workbench.core.summary import Summary

CONTROL = "control"


def control_verdicts(summary: Summary, control: str = CONTROL, alpha: float = 0.05) -> list[dict[str, Any]]:
    """One row per (host, model, case, arm) that has pairs with the CONTROL arm (by arm name), from the
    summary cells' per-run hits (a summary built with pairs)."""
    runs: dict[tuple[str, str, str, str], dict[int, bool]] = defaultdict(dict)
    targets: dict[str, str] = {}
    for cell in summary.cells.values():
        if cell.kind != "positive" or not cell.arm_names or cell.slot_hits is None:
            continue
        for name in cell.arm_names[:1]:
            for (case, run), flags in cell.slot_hits.items():
                runs[(cell.group.host, cell.group.model, case, name)].setdefault(run, bool(flags[0]))
                targets[case] = cell.target
    out = []
    for (host, model, case, arm), hits in runs.items():
        base = runs.get((host, model, case, control))
        if arm == control or base is None:
            continue
        common = sorted(set(hits) & set(base))
        only_arm = sum(hits[i] and not base[i] for i in common)
        only_control = sum(base[i] and not hits[i] for i in common)
        d = stats.sequential_decision(only_control, only_arm, len(common), alpha)
        arm_hits, control_hits = sum(hits[i] for i in common), sum(base[i] for i in common)
        if d.better == "B":
            verdict = "row earned it"
        elif d.better == "A":
            verdict = "control better"
        elif arm_hits == control_hits:
            verdict = "tie: the model reads it without the row"
        else:
            more = f"~{d.more_pairs} more pairs at the observed rate" if d.more_pairs else "no decision in sight"
            verdict = f"undecided: {more}"
        out.append({"host": host, "model": model or None, "case": case, "target": targets[case], "arm": arm,
                    "pairs": len(common), "arm_hits": arm_hits, "control_hits": control_hits,
                    "e_value": round(d.e_value, 4), "verdict": verdict})
    return out


def control_md(rows: list[dict[str, Any]]) -> list[str]:
    """The control table of `summary` (markdown lines; empty without a control arm)."""
    if not rows:
        return []
    out = ["## Control (the row removed)", "", "| Host | Case | Arm | arm read | control read | pairs | e | verdict |",
           "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        out.append(f"| {r['host']} | {r['case']} | {r['arm']} | {r['arm_hits']}/{r['pairs']} | "
                   f"{r['control_hits']}/{r['pairs']} | {r['pairs']} | {r['e_value']:.2f} | {r['verdict']} |")
    return [*out, ""]
