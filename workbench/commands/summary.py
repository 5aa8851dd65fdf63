"""`workbench summary FILE...`: trigger tables regenerated from run records alone (md, json or csv).

Data goes to stdout; load problems, excluded and unverified runs are reported on stderr. Records are
streamed: memory holds the cells, not the file.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from typing import Any

from workbench.core import records
from workbench.core.batches import BatchTracker
from workbench.core.control import control_md
from workbench.core.errors import InputError
from workbench.core.report import Confusion, funnel
from workbench.core.summary import Summary, parse_view, to_json
from workbench.exitcodes import ExitCode
from workbench.report import tables
from workbench.report.tables import arm_label, side_label


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `summary` subcommand."""
    p = sub.add_parser("summary", help="tables of trigger results from run records")
    p.add_argument("files", nargs="+", metavar="FILE", help="records files (JSONL; AgentsMD lines accepted)")
    p.add_argument("--format", choices=("md", "json", "csv", "junit", "gh-summary"), default="md",
                   help="output format (md); junit and gh-summary for CI (docs/reports.md)")
    p.add_argument("--table", choices=("runs", "funnel", "confusion"), default="runs",
                   help="which table --format csv prints (runs)")
    p.add_argument("--compare", action="append", default=[], metavar="A,B",
                   help="compare arm B against arm A (sha or arm name); repeatable")
    p.add_argument("--alpha", type=float, default=0.05, metavar="A",
                   help="error level of the anytime-valid paired decision in comparisons (0.05)")
    p.add_argument("--lenient", action="store_true", help="skip invalid lines (reported) instead of failing")
    p.add_argument("--confusion", action="store_true", help="add the confusion view (which procedures each "
                   "case opened): a second pass reading every record's calls, so it costs a full parse")
    p.set_defaults(handler=run)


def parse_compare(values: list[str]) -> list[tuple[str, str]]:
    """`A,B` pairs from --compare."""
    pairs = []
    for value in values:
        a, sep, b = value.partition(",")
        if not sep or not a or not b:
            raise InputError(f"expected A,B, got {value!r}", field="--compare")
        pairs.append((a.strip(), b.strip()))
    return pairs


MAX_LISTED_PROBLEMS = 100
"""Skipped lines listed in `--format json` (all are reported on stderr, and all are counted)."""


class Problems:
    """Skipped lines: each reported on stderr as it is met; the first few kept for the JSON output."""

    def __init__(self) -> None:
        self.listed: list[str] = []
        self.count = 0

    def __call__(self, problem: records.Problem) -> None:
        print(f"workbench: warning: {problem}", file=sys.stderr)
        self.count += 1
        if len(self.listed) < MAX_LISTED_PROBLEMS:
            self.listed.append(str(problem))


def warn(batches: BatchTracker, summary: Summary) -> None:
    """Everything the tables leave out or keep apart, on stderr."""
    for state in (s for s in batches.states() if s.partial):
        print(f"workbench: warning: batch {state.batch} is PARTIAL ({state.valid} of {state.planned} planned runs "
              "valid); its runs are included — finish it with `workbench batch ... --resume`", file=sys.stderr)
    if summary.discarded or summary.superseded:
        print(f"workbench: excluded {summary.discarded} discarded and {summary.superseded} superseded runs",
              file=sys.stderr)
    if summary.unverified:
        print(f"workbench: warning: {summary.unverified} runs have no call status (scored before failed "
              "reads were excluded); they are tabulated apart, never pooled", file=sys.stderr)


def cell_text(cell: dict[str, Any]) -> str:
    """`3/3 (1 read, no action)` for positives, `5/5 clean` for negatives, invalid runs noted."""
    text = f"{cell['hits']}/{cell['valid']}"
    if cell["kind"] == "negative":
        text += " clean"
    elif cell["read_noaction"]:
        text += f" ({cell['read_noaction']} read, no action)"
    if cell.get("fired_by_subagent"):
        text += f" ({cell['fired_by_subagent']} fired by subagent)"
    if cell["flaky"]:
        text += " FLAKY"
    if cell["invalid"]:
        text += f" +{cell['invalid']} invalid"
    return text


def render_md(data: dict[str, Any]) -> str:
    """One table per host/model/effort: targets as rows, arms as columns; then details."""
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for cell in data["runs"]:
        key = (cell["host"], cell["model"], cell["effort"], cell["reads_verified"], cell["script_digest"])
        groups.setdefault(key, []).append(cell)
    out: list[str] = []
    for (host, model, effort, verified, _script), cells in groups.items():
        title = ", ".join(str(x) for x in (host, model, effort, tables.script_part(cells[0])) if x)
        out.append(f"## {title}" + ("" if verified else " (NO CALL STATUS: reads not verified, kept apart)"))
        arms = list(dict.fromkeys((c["source"] or c["arm"] or "-", arm_label(c)) for c in cells))
        rows = list(dict.fromkeys((c["target"], c["kind"]) for c in cells))
        index = {(c["source"] or c["arm"] or "-", c["target"], c["kind"]): c for c in cells}
        head = [label for _, label in arms]
        out += ["", "| Row | " + " | ".join(head) + " |", "| --- |" + " --- |" * len(arms)]
        for target, kind in rows:
            label = target if kind == "positive" else f"{target} (negative)"
            texts = [cell_text(index[(k, target, kind)]) if (k, target, kind) in index else "not run"
                     for k, _ in arms]
            out.append(f"| {label} | " + " | ".join(texts) + " |")
        out += ["", "| Arm | Row | Wilson 95% | Entry loaded | Evidence conflicts | Mean tokens in/out | "
                "Mean cost USD |", "| --- | --- | --- | --- | --- | --- | --- |"]
        for c in cells:
            ci = "-" if c["wilson95"] is None else f"{c['wilson95'][0]:.2f}–{c['wilson95'][1]:.2f}"
            tokens = f"{fmt(c['mean_input_tokens'])}/{fmt(c['mean_output_tokens'])}"
            out.append(f"| {arm_label(c)} | {c['target']} ({c['kind']}) | {ci} | "
                       f"{c['entry_loaded']}/{c['valid']} | {conflicts_text(c)} | {tokens} | "
                       f"{fmt(c['mean_cost_usd'])} |")
        out.append("")
    if data["comparisons"]:
        alpha = data["comparisons"][0]["alpha"]
        out += ["## Comparisons", "", "| Host | Row | A | B | A rate | B rate | Δ pp | pairs | McNemar p | "
                f"anytime-valid (α {alpha:g}) |", "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
        for r in data["comparisons"]:
            out.append(f"| {r['host']} | {r['target']} ({r['kind']}) | {side_label(r, 'a')} | {side_label(r, 'b')} | "
                       f"{r['hits_a']}/{r['valid_a']} | {r['hits_b']}/{r['valid_b']} | "
                       f"{fmt(r['delta_pp'])} | "
                       f"{r['pairs']} | {r['mcnemar_p']:.3g} | {r['decision']} |")
        out.append("")
    return "\n".join(out)


def conflicts_text(cell: dict[str, Any]) -> str:
    """`2 in 1/3 runs`: where command analysis and evidence disagreed (read the call lists); `0`: nowhere."""
    if not cell["evidence_conflicts"]:
        return "0"
    return f"{cell['evidence_conflicts']} in {cell['conflicted_runs']}/{cell['valid']} runs"


def fmt(value: float | None) -> str:
    """A number for a table; unknown stays visibly unknown."""
    if value is None:
        return "?"
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def render_csv(data: dict[str, Any]) -> str:
    """One row per cell; the interval split into two columns, flaky cases joined by `;`."""
    buf = io.StringIO()
    rows = []
    for cell in data["runs"]:
        row = {"arm_label": arm_label(cell)} | {k: v for k, v in cell.items() if k not in ("wilson95", "flaky")}
        ci = cell["wilson95"] or (None, None)
        row.update(wilson_lo=ci[0], wilson_hi=ci[1], flaky=";".join(cell["flaky"]))
        rows.append(row)
    if rows:
        writer = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return buf.getvalue()


def run(args: argparse.Namespace) -> int:
    """Stream the records into cells (one line in memory at a time), then print."""
    pairs = parse_compare(args.compare)
    problems = Problems()
    summary, batches = Summary(), BatchTracker()  # per-run hits kept: comparisons and the control pair them
    known: dict[str, None] = {}
    for view, _file, _line in records.stream(args.files, parse_view, lenient=args.lenient, on_problem=problems):
        summary.add(view)
        batches.add(view)
        known.update(dict.fromkeys(view.required))
    if not 0 < args.alpha < 1:
        raise InputError(f"--alpha must be between 0 and 1, got {args.alpha}", field="--alpha")
    data = to_json(summary, pairs, args.alpha)
    data["funnel"] = funnel(summary)
    if args.confusion or args.table == "confusion":
        confusion = Confusion(summary, list(known))
        for record, _file, _line in records.stream_records(args.files, lenient=True):
            confusion.add(record)
        data["confusion"] = confusion.rows()
    data["problems"] = problems.listed
    data["problems_total"] = problems.count
    warn(batches, summary)
    if args.format == "json":
        print(json.dumps(data, indent=2))
    elif args.format == "csv":
        csv_of = {"runs": render_csv, "funnel": lambda d: tables.funnel_csv(d["funnel"]),
                  "confusion": lambda d: tables.confusion_csv(d["confusion"])}[args.table]
        sys.stdout.write(csv_of(data))
    elif args.format == "junit":
        sys.stdout.write(tables.junit(data))
    elif args.format == "gh-summary":
        print(tables.gh_summary(data))
    else:
        print(render_md(data) + "\n".join(control_md(data["control"]) + tables.funnel_md(data["funnel"])
                                           + tables.confusion_md(data.get("confusion", []))))
    return int(ExitCode.OK)
