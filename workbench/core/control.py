"""Did the row earn the read? Every arm against the no-row control (`batch --control`), per case.

Runs pair up as in every comparison (`core.summary.pairs`): within one group (host, model, effort,
script), target and kind, by case, run index and repeat. Per case the anytime-valid paired test
(`core.stats.sequential_decision`) on those pairs says "row earned it" (the arm beats the control)
or "control better"; undecided, equal hit counts say "tie: the model reads it without the row", and
otherwise the case is undecided with the pairs still needed at the observed rate.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from workbench.core import stats

if TYPE_CHECKING:
    from workbench.core.summary import Cell, Summary

CONTROL = "control"


def control_verdicts(summary: Summary, control: str = CONTROL, alpha: float = 0.05) -> list[dict[str, Any]]:
    """One row per (group, case, arm) that has pairs with the CONTROL arm (by arm name), from the
    summary cells' per-run hits (a summary built with pairs)."""
    from workbench.core.summary import pairs, script_label

    def positive(cell: Cell) -> bool:
        return cell.kind == "positive" and bool(cell.arm_names) and cell.slot_hits is not None

    controls: dict[tuple[Any, str], list[Cell]] = {}
    for cell in summary.cells.values():
        if positive(cell) and cell.arm_names[0] == control:
            controls.setdefault((cell.group, cell.target), []).append(cell)
    out = []
    for cell in summary.cells.values():
        if not positive(cell) or cell.arm_names[0] == control:
            continue
        for base in controls.get((cell.group, cell.target), []):
            for case, case_pairs in pairs(base, cell).items():
                out.append(verdict_row(cell, case, case_pairs, alpha)
                           | {"script": script_label(cell.group, cell.script_names)})
    return out


def verdict_row(cell: Cell, case: str, case_pairs: list[tuple[bool, bool]], alpha: float) -> dict[str, Any]:
    """The control verdict of one case from its (control hit, arm hit) pairs."""
    only_control = sum(c and not a for c, a in case_pairs)
    only_arm = sum(a and not c for c, a in case_pairs)
    d = stats.sequential_decision(only_control, only_arm, len(case_pairs), alpha)
    arm_hits, control_hits = sum(a for _, a in case_pairs), sum(c for c, _ in case_pairs)
    if d.better == "B":
        verdict = "row earned it"
    elif d.better == "A":
        verdict = "control better"
    elif arm_hits == control_hits:
        verdict = "tie: the model reads it without the row"
    else:
        more = f"~{d.more_pairs} more pairs at the observed rate" if d.more_pairs else "no decision in sight"
        verdict = f"undecided: {more}"
    return {"host": cell.group.host, "model": cell.group.model or None, "effort": cell.group.effort or None,
            "script_digest": cell.group.script or None, "case": case, "target": cell.target,
            "arm": cell.arm_names[0], "pairs": len(case_pairs), "arm_hits": arm_hits,
            "control_hits": control_hits, "e_value": round(d.e_value, 4), "verdict": verdict}


def control_md(rows: list[dict[str, Any]]) -> list[str]:
    """The control table of `summary` (markdown lines; empty without a control arm)."""
    if not rows:
        return []
    out = ["## Control (the row removed)", "", "| Host | Case | Arm | arm read | control read | pairs | e | verdict |",
           "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        host = f"{r['host']} · script {r['script']}" if r.get("script") else r["host"]
        out.append(f"| {host} | {r['case']} | {r['arm']} | {r['arm_hits']}/{r['pairs']} | "
                   f"{r['control_hits']}/{r['pairs']} | {r['pairs']} | {r['e_value']:.2f} | {r['verdict']} |")
    return [*out, ""]
