"""One self-contained HTML page from a `core.report.Report`: inline CSS, JS and SVG, nothing fetched.

Every value from a record is escaped (records hold agent output). Numbers a reader or a test may
check are also on the cells as `data-*` attributes, named as in `summary --format json` (fired runs
split into `fired-by-main` / `fired-by-subagent`; a run's `fired-by`, a call's `read-by`).
"""

from __future__ import annotations

import base64
import hashlib
import html
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from workbench.core.models import MAIN_READER
from workbench.core.report import FUNNEL_STAGES, Report
from workbench.report.assets import CSS, JS
from workbench.report.tables import arm_label, script_part, side_label

FUNNEL_LABELS = {"runs": "positive runs", "offered": "skill offered", "loaded": "entry loaded",
                 "opened": "procedure opened (any time)", "read_before": "read before the moment"}


def e(value: object) -> str:
    """Escaped text (None shows as `-`)."""
    return "-" if value is None else html.escape(str(value), quote=True)


def attrs(values: Mapping[str, object]) -> str:
    """` data-k="v"` attributes, escaped; None becomes an empty value."""
    return "".join(f' data-{k.replace("_", "-")}="{"" if v is None else html.escape(str(v), quote=True)}"'
                   for k, v in values.items())


def table(head: Sequence[str], rows: Iterable[str], cls: str = "") -> str:
    """A table from escaped header labels and already-rendered `<tr>` rows."""
    ths = "".join(f"<th>{e(h)}</th>" for h in head)
    return f'<table class="{cls}"><thead><tr>{ths}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


def wilson_bar(hits: int, valid: int, ci: Sequence[float] | None, width: int = 120) -> str:
    """The rate as a dot on its Wilson 95% interval, drawn on a 0–100% axis."""
    if not valid or ci is None:
        return ""
    lo, hi, rate = ci[0] * width, ci[1] * width, hits / valid * width
    return (f'<svg class="bar" width="{width + 4}" height="14" viewBox="-2 0 {width + 4} 14" role="img" '
            f'aria-label="Wilson 95% {ci[0]:.2f} to {ci[1]:.2f}">'
            f'<line x1="0" y1="7" x2="{width}" y2="7" stroke="#d0d7de" stroke-width="1"/>'
            f'<rect x="{lo:.1f}" y="3" width="{max(hi - lo, 1):.1f}" height="8" rx="2" fill="#0969da" opacity=".3"/>'
            f'<circle cx="{rate:.1f}" cy="7" r="3.2" fill="#0969da"/></svg>')


def group_title(cell: Mapping[str, Any]) -> str:
    parts = (*(cell.get(k) for k in ("host", "model", "effort")), script_part(cell))
    title = ", ".join(str(x) for x in parts if x)
    return title + ("" if cell.get("reads_verified", True) else " (no call status: reads not verified)")


def results(data: Mapping[str, Any]) -> str:
    """Per host/model/effort: targets as rows, arms as columns, hits/n with a Wilson bar."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for cell in data["runs"]:
        groups.setdefault(group_title(cell), []).append(cell)
    out = []
    for title, cells in groups.items():
        arms = list(dict.fromkeys(arm_label(c) for c in cells))
        rows = list(dict.fromkeys((c["target"], c["kind"]) for c in cells))
        index = {(arm_label(c), c["target"], c["kind"]): c for c in cells}
        trs = []
        for target, kind in rows:
            tds = [f"<th>{e(target)}{' <span class=muted>(negative)</span>' if kind == 'negative' else ''}</th>"]
            for arm in arms:
                c = index.get((arm, target, kind))
                tds.append(result_cell(c) if c else '<td class="muted">not run</td>')
            trs.append(f"<tr>{''.join(tds)}</tr>")
        out.append(f"<h3>{e(title)}</h3>" + table(["row", *arms], trs, "results"))
    return "".join(out)


def result_cell(c: Mapping[str, Any]) -> str:
    ci = c["wilson95"]
    keys = ("host", "model", "effort", "arm", "source", "target", "kind", "hits", "valid", "invalid", "total",
            "majority_cases", "cases", "entry_loaded", "fired", "fired_by_main", "fired_by_subagent")
    data = {k: c[k] for k in keys} | {"script_digest": c.get("script_digest"), "lo": ci[0] if ci else None,
                                      "hi": ci[1] if ci else None,
                                      "flaky": ";".join(c["flaky"])}
    rate = "hit" if c["valid"] and c["hits"] * 2 > c["valid"] else "miss"
    text = f'<span class="{rate}">{c["hits"]}/{c["valid"]}</span>{" clean" if c["kind"] == "negative" else ""}'
    if c.get("fired_by_subagent"):
        text += f' <span class="by-subagent">({c["fired_by_subagent"]} fired by subagent)</span>'
    if ci:
        text += f' <span class="muted">[{ci[0]:.2f}–{ci[1]:.2f}]</span>'
    text += wilson_bar(c["hits"], c["valid"], ci)
    if c["flaky"]:
        text += f'<span class="badge flaky" title="{e(", ".join(c["flaky"]))}">FLAKY</span>'
    if c["invalid"]:
        text += f' <span class="muted">+{c["invalid"]} invalid</span>'
    return f'<td class="cell"{attrs(data)}>{text}</td>'


def comparisons(rows: Sequence[Mapping[str, Any]]) -> str:
    """B against A per target: rates, Δ, exact McNemar p and the anytime-valid sequential decision."""
    if not rows:
        return '<p class="note">No comparison asked for (<code>--compare A,B</code>).</p>'
    trs = []
    for r in rows:
        seq = r["sequential"]
        decision = f"{seq['better']} better" if seq["better"] else (
            f"undecided (~{seq['more_pairs']} more pairs)" if seq["more_pairs"] else "undecided")
        keys = ("host", "target", "kind", "a", "b", "hits_a", "valid_a", "hits_b", "valid_b", "delta_pp", "pairs",
                "only_a", "only_b", "mcnemar_p")
        data = {k: r[k] for k in keys} | {"e_value": seq["e_value"], "better": seq["better"]}
        delta = "-" if r["delta_pp"] is None else f"{r['delta_pp']:+.1f}"
        trs.append(f'<tr class="cmp"{attrs(data)}><td>{e(r["host"])}</td><td>{e(r["target"])} ({e(r["kind"])})</td>'
                   f'<td class="mono">{e(side_label(r, "a"))}</td><td class="mono">{e(side_label(r, "b"))}</td>'
                   f'<td class="num">{r["hits_a"]}/{r["valid_a"]}</td><td class="num">{r["hits_b"]}/{r["valid_b"]}</td>'
                   f'<td class="num">{delta}</td><td class="num">{r["pairs"]} ({r["only_a"]}/{r["only_b"]})</td>'
                   f'<td class="num">{r["mcnemar_p"]:.3g}</td><td class="num">{seq["e_value"]:.3g}</td>'
                   f"<td>{e(decision)}</td></tr>")
    head = ["host", "row", "A", "B", "A hits", "B hits", "Δ pp", "pairs (only A/only B)", "McNemar p", "e-value",
            "sequential (α 0.05)"]
    return table(head, trs, "comparisons")


def funnel(rows: Sequence[Mapping[str, Any]]) -> str:
    """Each stage's count of the host/arm's positive runs, with a bar."""
    if not rows:
        return '<p class="note">No valid positive runs.</p>'
    trs = []
    for r in rows:
        n = r["runs"] or 1
        tds = []
        for stage in FUNNEL_STAGES:
            width = round(80 * r[stage] / n)
            extra = f' <span class="muted">(+{r["offered_unknown"]} unknown)</span>' if (
                stage == "offered" and r["offered_unknown"]) else ""
            tds.append(f'<td class="num">{r[stage]}{extra}<svg class="bar" width="82" height="10">'
                       f'<rect x="0" y="1" width="{width}" height="8" fill="#1a7f37" opacity=".55"/></svg></td>')
        keys = ("host", "model", "effort", "arm", "source", "offered_unknown", *FUNNEL_STAGES)
        trs.append(f'<tr class="funnel"{attrs({k: r[k] for k in keys})}><td>{e(group_title(r))}</td>'
                   f"<td>{e(arm_label(r))}</td>{''.join(tds)}</tr>")
    return table(["host", "arm", *(FUNNEL_LABELS[s] for s in FUNNEL_STAGES)], trs, "funnel")


def confusion(rows: Sequence[Mapping[str, Any]]) -> str:
    """Per case and arm: the procedures its runs opened; the target's cells green, siblings' violet."""
    if not rows:
        return '<p class="note">No valid runs.</p>'
    trs = []
    width = max(len(r["opened"]) for r in rows)
    for r in sorted(rows, key=lambda r: (r["case"], arm_label(r))):
        pad = "<td></td>" * (width - len(r["opened"]))
        opened = "".join(
            f'<td class="{"target" if f in r["targets"] else "sibling"}" data-file="{e(f)}" data-opened="{n}">'
            f'<span class="mono">{e(f)}</span> {n}/{r["runs"]}</td>' for f, n in r["opened"].items())
        data = {k: r[k] for k in ("host", "arm", "source", "target", "kind", "case", "runs", "none",
                                  "sibling_instead")}
        trs.append(f'<tr class="confusion"{attrs(data)}><td>{e(r["case"])}</td><td>{e(arm_label(r))}</td>'
                   f'<td>{e(r["kind"])}, {e(r["when"])}</td><td class="num">{r["sibling_instead"]}</td>'
                   f'<td class="num">{r["none"]}</td>{opened}{pad}</tr>')
    return table(["case", "arm", "opened", "sibling instead", "none opened", "procedures (runs that opened it)",
                  *[""] * (width - 1)], trs, "confusion")


def invalid(groups: Mapping[str, Sequence[Mapping[str, Any]]]) -> str:
    if not groups:
        return '<p class="note">No invalid runs.</p>'
    trs = [f'<tr class="invalid" data-reason="{e(reason)}" data-count="{len(runs)}"><td>{e(reason)}</td>'
           f'<td class="num">{len(runs)}</td><td>'
           + ", ".join(f"{e(r['case'])} {e(r['arm'])} run {e(r['run'])}" for r in runs) + "</td></tr>"
           for reason, runs in groups.items()]
    return table(["reason", "runs", "which"], trs, "invalid")


def call_row(c: Mapping[str, Any], turns: bool) -> str:
    marks = "".join(f'<span class="badge mark-{e(m)}">{e(m)}</span>' for m in c["marks"])
    result = f"<details><summary>result</summary><pre>{e(c['result'])}</pre></details>" if c["result"] else ""
    evidence = "".join(f'<div class="muted">evidence: <span class="mono">{e(path)}</span> {e(seen)}</div>'
                       for path, seen in c["evidence"].items())
    moment = ' class="moment"' if "MOMENT" in c["marks"] else ""
    exit_code = f" exit {c['exit_code']}" if c["exit_code"] is not None else ""
    reader = c.get("read_by") or MAIN_READER
    by = "" if reader == MAIN_READER else f' <span class="badge by-subagent">{e(reader)}</span>'
    return (f'<tr{moment} data-index="{e(c["index"])}" data-marks="{e(" ".join(c["marks"]))}" '
            f'data-read-by="{e(reader)}"><td class="num">{e(c["index"])}</td>'
            + (f'<td class="num">{e(c["turn"])}</td>' if turns else "")
            + f'<td>{e(c["tool"])}{by}</td>'
            f'<td class="mono">{e(c["target"])}</td><td>{e(c["status"])}{e(exit_code)}</td>'
            f"<td>{marks}</td><td>{result}{evidence}</td></tr>")


def runs(views: Sequence[Mapping[str, Any]]) -> str:
    """Every run, collapsed: verdict in the summary line, its calls up to the moment inside."""
    out = ['<div class="controls"><button id="expand-all" type="button">expand all</button>'
           '<button id="collapse-all" type="button">collapse all</button>'
           '<input id="run-filter" type="search" placeholder="filter runs (case, arm, verdict, host)"></div>']
    for v in views:
        cls = "hit" if v["hit"] else "miss"
        verdict = v["verdict"] if v["valid"] else f"invalid: {v['invalid_reason'] or 'unknown'}"
        if v["valid"] and v.get("fired_by"):
            verdict += f" by {v['fired_by']}"
        search = " ".join(str(v.get(k) or "") for k in ("case", "arm", "host", "verdict", "fired_by", "target")).lower()
        turns = any(c["turn"] is not None for c in v["calls"])
        trs = [call_row(c, turns) for c in v["calls"]]
        moment = "never" if v["moment_at"] is None else f"call {v['moment_at']}"
        if v["moment_at"] is not None and v["moment_at"] >= len(v["calls"]):
            moment = "end of run"
        body = (f'<p class="muted">moment <code>{e(v["moment"])}</code>: {e(moment)} · entry loaded at '
                f'{e(v["entry_loaded_at"])} · offered {e(v["entry_offered"])} · reads '
                f'{e(", ".join(f"{k}@{at}" for k, at in v["required_read_at"].items()))} · '
                f'{e(v["host"])} {e(v["host_version"])} · {e(v["served_model"])} · {e(v["condition"])} · '
                f'batch {e(v["batch"])}</p>'
                + "".join(f'<p class="conflict">evidence conflict at call {e(c["call"])}: command analysis says '
                          f'{e(c["command"])} of <span class="mono">{e(c["required"])}</span>, the output shows it '
                          f'{e(c["content"])} (the evidence decides)</p>' for c in v["conflicts"])
                + (table(["#", *(["turn"] if turns else []), "tool", "path / command", "status", "marks", "result"],
                         trs, "calls")
                   if trs else '<p class="note">No calls kept.</p>'))
        data = {k: v.get(k) for k in ("host", "arm", "case", "run", "kind", "verdict", "fired_by", "valid")} | {
            "search": search}
        data["conflicts"] = len(v["conflicts"])
        note = f' · <span class="miss">{len(v["conflicts"])} evidence conflicts</span>' if v["conflicts"] else ""
        out.append(f'<details class="run"{attrs(data)}><summary><span class="{cls}">{e(verdict)}</span> · '
                   f'{e(v["case"])} · {e(v["arm"])} · run {e(v["run"])} · {e(v["host"])} · '
                   f'{len(v["calls"])} calls{note}</summary>{body}</details>')
    return "".join(out)


def meta(report: Report, command: str) -> str:
    p = report.provenance
    items = [("host versions", p["hosts"]), ("served models", p["served_models"]), ("conditions", p["conditions"]),
             ("batches", p["batches"]), ("scorer rules", p["scorer_rules"]),
             ("workbench versions", p["workbench_versions"])]
    dl = "".join(f"<dt>{e(k)}</dt><dd>{e(', '.join(v) or '-')}</dd>" for k, v in items)
    files = "".join(f'<tr class="file" data-sha256="{e(f["sha256"])}"><td class="mono">{e(f["path"])}</td>'
                    f'<td class="mono">{e(f["sha256"])}</td></tr>' for f in report.files)
    ex = report.summary["excluded"]
    return (f'<dl class="meta">{dl}<dt>excluded</dt><dd>{ex["discarded"]} discarded, {ex["superseded"]} superseded'
            f'</dd><dt>reproduce</dt><dd><code>{e(command)}</code></dd></dl>'
            + table(["records file", "sha256"], [files], "files"))


def script_hash() -> str:
    """CSP source of the page's own script: only it runs, even if a record smuggled markup in."""
    return "sha256-" + base64.b64encode(hashlib.sha256(JS.encode()).digest()).decode()


def render(report: Report, command: str = "workbench summary --format json") -> str:
    """The whole page. COMMAND is the `workbench summary` line that reproduces its tables."""
    n = len(report.runs)
    body = (f"<h1>Trigger Workbench report</h1><p class=\"muted\">{n} tabulated runs. Tables are regenerated "
            "from the records alone; a hit is a read before the moment (positive) or a clean run (negative). "
            "Bars: the rate as a dot on its Wilson 95% interval (0–100%).</p>"
            + meta(report, command)
            + "<h2>Results</h2>" + results(report.summary)
            + "<h2>Comparisons</h2>" + comparisons(report.comparisons)
            + "<h2>Activation funnel</h2><p class=\"note\">Valid positive runs per host and arm; each stage is "
            "counted on its own.</p>" + funnel(report.funnel)
            + "<h2>Which procedure opened</h2><p class=\"note\">Per case: runs that opened each procedure (before "
            "the moment for positives, at all for negatives). Target procedures green, siblings violet.</p>"
            + confusion(report.confusion)
            + "<h2>Invalid runs</h2>" + invalid(report.invalid)
            + f"<h2>Runs ({n})</h2>" + runs(report.runs))
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
            f"script-src '{script_hash()}'; img-src data:\">"
            f"<title>Trigger Workbench report</title><style>{CSS}</style></head><body>{body}"
            f"<script>{JS}</script></body></html>\n")
