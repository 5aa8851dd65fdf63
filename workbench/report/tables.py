"""Text renderings of the funnel, the confusion view and the CI formats of `workbench summary`.

`junit`: one testcase per arm × target × host cell (a suite per host/model/effort); a cell FAILS
unless a strict majority of its valid runs are hits (`core.stats.majority`: an even split fails) and
is SKIPPED when it has no valid run. `gh-summary`: Markdown for `$GITHUB_STEP_SUMMARY`.
"""

from __future__ import annotations

import csv
import io
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from typing import Any

from workbench.core import stats
from workbench.core.identity import UNKNOWN
from workbench.core.report import FUNNEL_STAGES
from workbench.core.summary import arm_label as label_of

FUNNEL_HEAD = ("positive runs", "skill offered", "entry loaded", "opened (any time)", "read before the moment")


def arm_label(row: Mapping[str, Any]) -> str:
    """The arm of a summary cell or table row as shown: `name (sha7)`, or whichever of the two is known."""
    return label_of(row.get("arm"), row.get("source"))


def side_label(row: Mapping[str, Any], side: str) -> str:
    """Arm A or B of a comparison row as shown: `name (sha7)` (`a`/`b` is the sha, or the name)."""
    name, key = row[f"name_{side}"], str(row[side])
    return arm_label({"arm": name or key, "source": key if name and name != key else None})


def script_part(row: Mapping[str, Any]) -> str | None:
    """The script of a scripted cell as a table title shows it: `script read-first.json (1a2b3c4)`,
    `script unknown (…)` for migrated records; None without a script. Two scripts never share a title."""
    digest = row.get("script_digest")
    if not digest:
        return None
    if digest == UNKNOWN:
        return "script unknown (recorded before scripts were)"
    return f"script {row['script']} ({digest[:7]})" if row.get("script") else f"script {digest[:7]}"


def group_label(row: Mapping[str, Any]) -> str:
    return "/".join(str(x) for x in (*(row.get(k) for k in ("host", "model", "effort")), script_part(row)) if x)


def cell_passes(cell: Mapping[str, Any]) -> bool:
    """The JUnit rule: a strict majority of the cell's valid runs are hits."""
    return stats.majority([True] * cell["hits"] + [False] * (cell["valid"] - cell["hits"]))


def md_escape(text: object) -> str:
    """Text safe inside a Markdown table cell."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def funnel_md(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """The funnel as Markdown lines (one row per host and arm)."""
    if not rows:
        return []
    out = ["## Activation funnel (valid positive runs)", "", "| Host | Arm | " + " | ".join(FUNNEL_HEAD) + " |",
           "| --- | --- |" + " --- |" * len(FUNNEL_STAGES)]
    for r in rows:
        offered = f"{r['offered']}" + (f" (+{r['offered_unknown']} unknown)" if r["offered_unknown"] else "")
        stages = [str(r["runs"]), offered, *(str(r[s]) for s in FUNNEL_STAGES[2:])]
        out.append(f"| {md_escape(group_label(r))} | {md_escape(arm_label(r))} | " + " | ".join(stages) + " |")
    return [*out, ""]


def opened_text(row: Mapping[str, Any]) -> str:
    """`docs.md 4/5; diagnosis.md (sibling) 1/5`."""
    parts = [f"{f}{'' if f in row['targets'] else ' (sibling)'} {n}/{row['runs']}" for f, n in row["opened"].items()]
    return "; ".join(parts) or "-"


def confusion_md(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """Which procedures each case's runs opened, as Markdown lines."""
    if not rows:
        return []
    out = ["## Which procedure opened", "",
           "| Case | Arm | Host | Counted | Procedures (runs that opened it) | Sibling instead | None opened |",
           "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in sorted(rows, key=lambda r: (r["case"], arm_label(r), r["host"])):
        out.append(f"| {md_escape(r['case'])} | {md_escape(arm_label(r))} | {md_escape(r['host'])} | "
                   f"{r['kind']}, {r['when']} | {md_escape(opened_text(r))} | {r['sibling_instead']} | {r['none']} |")
    return [*out, ""]


def csv_text(rows: Sequence[Mapping[str, Any]]) -> str:
    buf = io.StringIO()
    if rows:
        writer = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return buf.getvalue()


def funnel_csv(rows: Sequence[Mapping[str, Any]]) -> str:
    return csv_text([dict(r) for r in rows])


def confusion_csv(rows: Sequence[Mapping[str, Any]]) -> str:
    """One line per case, arm and procedure."""
    keys = ("host", "model", "effort", "arm", "source", "target", "kind", "case", "runs")
    flat = [{**{k: r[k] for k in keys}, "procedure": f, "role": "target" if f in r["targets"] else "sibling",
             "opened": n, "counted": r["when"]} for r in rows for f, n in r["opened"].items()]
    return csv_text(flat)


def junit(data: Mapping[str, Any]) -> str:
    """JUnit XML of the summary's cells (rule in the module docstring)."""
    suites: dict[str, list[Mapping[str, Any]]] = {}
    for cell in data["runs"]:
        name = group_label(cell) + ("" if cell["reads_verified"] else " (reads not verified)")
        suites.setdefault(name, []).append(cell)
    root = ET.Element("testsuites", name="workbench")
    totals = {"tests": 0, "failures": 0, "skipped": 0}
    for name, cells in suites.items():
        suite = ET.SubElement(root, "testsuite", name=name)
        counts = {"tests": 0, "failures": 0, "skipped": 0}
        for c in cells:
            case = ET.SubElement(suite, "testcase", classname=f"{c['host']}.{arm_label(c)}",
                                 name=f"{c['target']} ({c['kind']})")
            counts["tests"] += 1
            ci = c["wilson95"]
            text = (f"{c['hits']}/{c['valid']} hits, {c['invalid']} invalid, Wilson 95% "
                    f"{'-' if ci is None else f'{ci[0]:.2f}-{ci[1]:.2f}'}, majority cases {c['majority_cases']}/"
                    f"{c['cases']}" + (f", FLAKY: {', '.join(c['flaky'])}" if c["flaky"] else ""))
            if not c["valid"]:
                ET.SubElement(case, "skipped", message="no valid runs")
                counts["skipped"] += 1
            elif not cell_passes(c):
                failure = ET.SubElement(case, "failure", type="below-majority",
                                        message=f"{c['hits']}/{c['valid']} hits: not a strict majority")
                failure.text = text
                counts["failures"] += 1
            ET.SubElement(case, "system-out").text = text
        suite.set("tests", str(counts["tests"]))
        suite.set("failures", str(counts["failures"]))
        suite.set("errors", "0")
        suite.set("skipped", str(counts["skipped"]))
        for k in totals:
            totals[k] += counts[k]
    root.set("tests", str(totals["tests"]))
    root.set("failures", str(totals["failures"]))
    root.set("errors", "0")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def gh_summary(data: Mapping[str, Any]) -> str:
    """Markdown for a CI step summary: pass/fail per cell, comparisons, funnel and confusion."""
    cells = data["runs"]
    passed = sum(cell_passes(c) for c in cells if c["valid"])
    out = ["# Trigger results", "",
           f"**{passed} of {sum(1 for c in cells if c['valid'])} cells** have a strict majority of hits "
           f"(a hit: read before the moment, or a clean negative).", "",
           "| | Host | Arm | Row | Hits | Wilson 95% | Notes |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for c in cells:
        mark = "⚪" if not c["valid"] else ("✅" if cell_passes(c) else "❌")
        ci = "-" if c["wilson95"] is None else f"{c['wilson95'][0]:.2f}–{c['wilson95'][1]:.2f}"
        notes = ", ".join(filter(None, ["FLAKY" if c["flaky"] else "", f"{c['invalid']} invalid" if c["invalid"] else "",
                                        "" if c["reads_verified"] else "reads not verified"]))
        out.append(f"| {mark} | {md_escape(group_label(c))} | {md_escape(arm_label(c))} | "
                   f"{md_escape(c['target'])} ({c['kind']}) | {c['hits']}/{c['valid']} | {ci} | {notes} |")
    out.append("")
    if data.get("comparisons"):
        out += ["## Comparisons", "", "| Host | Row | A | B | Δ pp | McNemar p |", "| --- | --- | --- | --- | --- | --- |"]
        for r in data["comparisons"]:
            delta = "-" if r["delta_pp"] is None else f"{r['delta_pp']:+.1f}"
            out.append(f"| {md_escape(r['host'])} | {md_escape(r['target'])} ({r['kind']}) | "
                       f"{r['hits_a']}/{r['valid_a']} | {r['hits_b']}/{r['valid_b']} | {delta} | {r['mcnemar_p']:.3g} |")
        out.append("")
    out += funnel_md(data.get("funnel", []))
    siblings = [r for r in data.get("confusion", []) if r["sibling_instead"]]
    if siblings:
        out += ["## A sibling procedure opened instead of the target", ""] + confusion_md(siblings)[2:]
    return "\n".join(out)
