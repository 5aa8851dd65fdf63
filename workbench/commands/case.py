"""`workbench case new|check|import`: cases as reviewable TOML files in the workspace's cases folder."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from workbench.authoring.workspace_file import record_rows, write_case
from workbench.commands.authoring import workspace_rows
from workbench.core.case_import import IMPORTERS
from workbench.core.case_templates import TEMPLATES, from_template, naive_problems, non_discriminating
from workbench.core.cases import load_cases
from workbench.core.errors import InputError
from workbench.core.filesize import MAX_IMPORT_BYTES, check_size
from workbench.core.records import load_files
from workbench.core.routing import find_row, unknown_row_message
from workbench.core.workspace import load_workspace


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `case` subcommand with `new`, `check` and `import`."""
    p = sub.add_parser("case", help="write, check and import cases")
    case_sub = p.add_subparsers(dest="case_command", metavar="ACTION", required=True)
    new = case_sub.add_parser("new", help="a case skeleton for a row from a template")
    new.add_argument("--template", required=True, choices=sorted(TEMPLATES))
    new.add_argument("--row", required=True, help="row id (see `workbench rows`)")
    new.add_argument("--id", help="case id (default ROW-TEMPLATE)")
    new.add_argument("--prompt", help="the naive prompt (default: a placeholder to rewrite)")
    new.add_argument("--command", help="command template: the command that is the moment")
    new.add_argument("--force", action="store_true")
    new.set_defaults(handler=run_new)
    check = case_sub.add_parser("check", help="flag non-naive positives; with --records, cases that never "
                                              "discriminate between arms")
    check.add_argument("--records", action="append", default=[], metavar="FILE")
    check.add_argument("--strict", action="store_true", help="exit 1 when a case is flagged")
    check.set_defaults(handler=run_check)
    imp = case_sub.add_parser("import", help="import skill-routing-eval JSONL, skill-creator evals.json or a "
                                             "trigger-eval list")
    imp.add_argument("file", metavar="FILE")
    imp.add_argument("--format", required=True, choices=sorted(IMPORTERS))
    imp.add_argument("--target", metavar="ROW|SKILL", help="the row or Skill the positives are for (required for "
                                                           "a trigger-eval list; overrides evals.json skill_name)")
    imp.add_argument("--measure", choices=("activation", "procedures"),
                     help="what a positive requires: the Skill's entry SKILL.md by the end (activation; the "
                          "trigger-eval default) or its linked procedures before the first edit (procedures)")
    imp.add_argument("--out", metavar="DIR", help="folder for the case files (default: the workspace's cases)")
    imp.add_argument("--force", action="store_true")
    imp.set_defaults(handler=run_import)


def run_new(args: argparse.Namespace) -> int:
    ws = load_workspace()
    rows = workspace_rows(ws)
    row = find_row(rows, args.row)
    if row is None:
        raise InputError(unknown_row_message(rows, args.row), field="--row")
    case = from_template(args.template, row, case_id=args.id, prompt=args.prompt, command=args.command)
    note = "" if args.prompt else "TODO: rewrite the prompt as a user would ask, without naming the Skill or file."
    print(write_case(case, ws.cases_dir, comment=f"{args.template} case for row {row.id}. {note}".strip(),
                     force=args.force))
    record_rows(ws, [row.id], rows=rows)
    return 0


def run_check(args: argparse.Namespace) -> int:
    ws = load_workspace()
    rows = workspace_rows(ws)
    flagged = 0
    for case in load_cases(ws.cases_dir) if ws.cases_dir.is_dir() else []:
        for problem in naive_problems(case, rows):
            print(f"{case.id}: not naive: {problem}")
            flagged += 1
    if args.records:
        for case_id in non_discriminating(load_files(args.records).records):
            print(f"{case_id}: never discriminates between arms (same verdict in every run)")
            flagged += 1
    if not flagged:
        print("cases: clean")
    return 1 if args.strict and flagged else 0


def run_import(args: argparse.Namespace) -> int:
    ws = load_workspace()
    path = Path(args.file)
    if not path.is_file():
        raise InputError("no such file", file=str(path))
    check_size(path, MAX_IMPORT_BYTES, "the file to import", "FILE")  # by stat, before a byte is read
    rows = workspace_rows(ws)
    imported = IMPORTERS[args.format](path, rows, target=args.target, measure=args.measure)
    out = Path(args.out) if args.out else ws.cases_dir
    unmapped: dict[str, int] = {}
    for item in imported:
        lines = [f"Imported from {path.name} ({args.format}).", *(f"Not mapped: {k}" for k in item.unmapped),
                 *(f"Note: {n}" for n in item.notes)]
        written = write_case(item.case, out, comment="\n".join(lines), force=args.force)
        print(f"{written}\t" + "; ".join([*(f"not mapped: {k}" for k in item.unmapped), *item.notes]))
        for key in item.unmapped:
            unmapped[key] = unmapped.get(key, 0) + 1
    for key, count in unmapped.items():
        print(f"{path}: field {key!r} not mapped: no case field holds it ({count} of {len(imported)} items)",
              file=sys.stderr)
    record_rows(ws, [i.case.target for i in imported if find_row(rows, i.case.target) is not None], rows=rows)
    return 0
