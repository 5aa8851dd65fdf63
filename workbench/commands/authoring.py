"""`workbench init|rows|lint|audit`: the workspace file, its routing rows, row lint and plugin audit.

stdout carries the report (or JSON with --json); lint and audit exit 0 unless --strict and there
are findings (then exit 1).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from workbench.core.audit import audit
from workbench.core.cases import load_cases
from workbench.core.errors import InputError
from workbench.core.linkfiles import link_exists
from workbench.core.lint import Finding, case_moments, lint_moments, lint_rows
from workbench.core.lint_rules import RULES, RULES_BY_ID
from workbench.core.routing import Rejected, Row, read_files
from workbench.core.rowsearch import search_line, search_rows
from workbench.core.workspace import FILENAME, Workspace, init_layout, load_workspace


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `init`, `rows`, `lint` and `audit`."""
    p = sub.add_parser("init", help="write a workbench.toml into a plugin repo")
    p.add_argument("dir", nargs="?", default=".", metavar="DIR")
    p.add_argument("--force", action="store_true", help="overwrite an existing workbench.toml")
    p.set_defaults(handler=run_init)
    p = sub.add_parser("rows", help="the workspace's routing rows with their ids")
    p.add_argument("--json", action="store_true")
    p.add_argument("--explain", action="store_true", help="say why each row is one and each link's clause")
    p.add_argument("--search", metavar="WORDS", default="", help="only rows holding every word (id, wording, "
                   "linked files; case-insensitive), as the Rows screen's search field")
    p.set_defaults(handler=run_rows)
    p = sub.add_parser("lint", help="check routing rows against the wording rules")
    p.add_argument("--json", action="store_true")
    p.add_argument("--strict", action="store_true", help="exit 1 when there are findings")
    p.add_argument("--rules", action="store_true", help="print the rules with their evidence and exit")
    p.add_argument("--explain", metavar="RULE", help="what RULE checks, its evidence and examples")
    p.set_defaults(handler=run_lint)
    p = sub.add_parser("audit", help="DANGLING, UNSHIPPED and STUB links, UNINDEXED procedures, per-host "
                                     "session-start budget")
    p.add_argument("--json", action="store_true")
    p.add_argument("--strict", action="store_true", help="exit 1 when there are findings")
    p.set_defaults(handler=run_audit)


def workspace_rows(ws: Workspace, rejected: list[Rejected] | None = None) -> list[Row]:
    """Routing rows of the workspace's routing files (and, into REJECTED, lines that link a procedure
    but are no row, with why not); each problem in a file is one warning on stderr."""
    if not ws.plugin_dir.is_dir():
        raise InputError(f"plugin folder not found: {ws.plugin_dir}", file=str(ws.file) if ws.file else None,
                         field="plugin.path")
    rows, bad = read_files(ws.routing_files(), plugin=ws.plugin_dir, rejected=rejected)
    for exc in bad:
        print(f"warning: {exc}", file=sys.stderr)
    return rows


def run_init(args: argparse.Namespace) -> int:
    folder = Path(args.dir)
    if not folder.is_dir():
        raise InputError(f"not a folder: {folder}", field="DIR")
    target = folder / FILENAME
    if target.exists() and not args.force:
        raise InputError("workbench.toml exists; pass --force to overwrite", file=str(target))
    text, layout = init_layout(folder)
    target.write_text(text, encoding="utf-8")
    for guess in layout.guesses:
        print(f"guessed: {guess}", file=sys.stderr)
    print(target)
    return 0


def row_dict(row: Row, root: Path) -> dict[str, object]:
    return {"id": row.id, "kind": row.kind, "skill": row.skill, "trigger": row.trigger,
            "file": _rel(row.file, root), "line": row.line, "why": row.why,
            "links": [{"target": lk.target, "label": lk.label, "wording": lk.wording,
                       "exists": link_exists(lk.target, lk.path), "clause": lk.clause, "side": lk.side}
                      for lk in row.links]}


def _rel(path: Path | None, root: Path) -> str | None:
    if path is None:
        return None
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def run_rows(args: argparse.Namespace) -> int:
    ws = load_workspace()
    rejected: list[Rejected] = []
    every = workspace_rows(ws, rejected)
    rows = search_rows(every, args.search)
    if args.search:
        print(search_line(rows, every, args.search), file=sys.stderr)
    if args.json:
        print(json.dumps([row_dict(r, ws.root) for r in rows], indent=2))
        return 0
    for row in rows:
        links = ", ".join(lk.target for lk in row.links) or "-"
        print(f"{row.id}\t{_rel(row.file, ws.root)}:{row.line}\t{row.trigger}\t{links}")
        if args.explain:
            print(f"  why: {row.why}")
            for lk in row.links:
                print(f"  {lk.target}: clause {lk.side} the link: {lk.clause!r} ({lk.wording})")
    if args.explain and not args.search:
        for miss in rejected:
            print(f"-\t{_rel(miss.file, ws.root)}:{miss.line}\tnot a row\t{miss.text.strip()}")
            print(f"  why not: {miss.why}")
    if not every:
        print("no routing rows: check [plugin] routing globs (`workbench audit`)", file=sys.stderr)
    return 0


def print_findings(findings: list[Finding], root: Path, what: str) -> None:
    for f in findings:
        row = f" [{f.row}]" if f.row else ""
        print(f"{f.where(root)}: {f.rule}{row}: {f.message}")
    print(f"{what}: {len(findings)} finding(s)" if findings else f"{what}: clean")


def run_lint(args: argparse.Namespace) -> int:
    if args.explain:
        rule = RULES_BY_ID.get(args.explain)
        if rule is None:
            raise InputError(f"unknown rule {args.explain!r} (rules: {', '.join(RULES_BY_ID)})", field="--explain")
        print(f"{rule.id} ({rule.severity})\nchecks: {rule.checks}\nevidence: {rule.evidence}")
        if rule.flags:
            print(f"flags:  {rule.flags}\npasses: {rule.passes}")
        return 0
    if args.rules:
        for rule in RULES:
            print(f"{rule.id} ({rule.severity}): {rule.message}\n  evidence: {rule.evidence}")
        return 0
    ws = load_workspace()
    rows = workspace_rows(ws)
    findings = lint_rows(rows, max_row_chars=ws.config.audit.max_row_chars) + lint_moments(rows, workspace_moments(ws, rows))
    if args.json:
        print(json.dumps({"findings": [f.as_dict() for f in findings]}, indent=2))
    else:
        print_findings(findings, ws.root, "lint")
    return 1 if args.strict and findings else 0


def workspace_moments(ws: Workspace, rows: list[Row]) -> dict[str, str]:
    """Row id -> the moment its positive cases measure (`core.lint.case_moments` of the workspace's cases)."""
    return case_moments(rows, load_cases(ws.cases_dir)) if ws.cases_dir.is_dir() else {}


def run_audit(args: argparse.Namespace) -> int:
    ws = load_workspace()
    report = audit(ws, workspace_rows(ws))
    b = report.budget
    if args.json:
        print(json.dumps({"findings": [f.as_dict() for f in report.findings],
                          "budget": b.as_dict() if b else None,
                          "budgets": [x.as_dict() for x in report.budgets],
                          "listings": [x.as_dict() for x in report.listings]}, indent=2))
    else:
        for x in report.budgets:
            where = f"{x.host}, plugin {x.plugin}" if x.plugin else x.host
            print(f"session start ({where}): {len(x.files)} file(s), {x.lines} lines, {x.chars} characters, "
                  f"~{x.tokens} tokens (cap {x.token_cap})")
        for shown in report.listings:
            where = f"{shown.host} {shown.version}" + (f", plugin {shown.plugin}" if shown.plugin else "")
            print(f"listing ({where}, budget {shown.budget} chars): {len(shown.shown)} Skill(s) offered, "
                  f"{len(shown.dropped)} dropped, {len(shown.clipped)} clipped")
        print_findings(report.findings, ws.root, "audit")
    return 1 if args.strict and report.findings else 0
