"""What `workbench` does with no subcommand: a short live tour of the workspace (the bundled demo by default).

Until the Textual workbench lands, this shows something real: the routing rows of the entry Skill,
then one canary of the first positive case on the offline `sim` host, then the commands to go on.
The tour's run is not recorded (`workbench canary` records).
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from workbench.exitcodes import ExitCode

_LINK = re.compile(r"\[([^\]]*)\]\(([^)\s]+)\)")


def routing_rows(skill_md: Path) -> list[tuple[str, list[str]]]:
    """(trigger, linked files) of each `| When | Read |` table row of a SKILL.md; a simple reader."""
    rows = []
    for line in skill_md.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 2 or not line.lstrip().startswith("|"):
            continue
        links = [target for _, target in _LINK.findall(cells[1])]
        if links:
            rows.append((cells[0], links))
    return rows


def launch_default(args: argparse.Namespace) -> int:
    """List the routing rows, run one canary on sim, and say how to run more."""
    from workbench.commands.canary import LiveView, workspace
    from workbench.core.cases import load_cases
    from workbench.runner.canary import CanaryRequest, run_canary

    ws = workspace()
    console = Console(highlight=False)
    console.print(f"[bold]Trigger Workbench[/bold] · workspace {escape(str(ws))}")
    for skill_md in sorted((ws / "plugin").glob("skills/*/SKILL.md")):
        table = Table(title=f"routing rows of {skill_md.parent.name} ({skill_md.relative_to(ws)})")
        table.add_column("#", justify="right")
        table.add_column("when")
        table.add_column("read")
        for i, (trigger, links) in enumerate(routing_rows(skill_md), start=1):
            table.add_row(str(i), escape(trigger), escape(", ".join(links)))
        console.print(table)
    cases = [c for c in load_cases(ws / "cases") if c.kind == "positive"] if (ws / "cases").is_dir() else []
    if cases:
        case = cases[0]
        console.print(f"\n[bold]canary[/bold] {escape(case.id)} on sim (offline simulation, not a model): "
                      f"{escape(case.prompt)}")
        view = LiveView(case, console.file)
        fixture = ws / "fixtures" / "base"
        result = run_canary(case, CanaryRequest(host="sim", plugin=ws / "plugin",
                                                fixture=fixture if fixture.is_dir() else None), on_event=view,
                             on_setup=view.set_paths)
        for name, verdict in result.record.verdict.items():
            console.print(f"verdict [bold]{escape(name)}[/bold]: {verdict} (moment: {escape(case.moment)})")
    print("\nMore:\n"
                  "  workbench canary CASE --host sim            one run, live (cases/: "
                  f"{', '.join(c.id for c in cases) or 'none'})\n"
                  "  workbench canary CASE --host claude --model M   the same on your own host and login\n"
                  "  workbench selftest                          the instrument self-test on every installed host\n"
                  "  workbench hosts install                     pinned host CLIs for offline scripted runs\n"
                  "  workbench --help                            every command")
    return int(ExitCode.OK)
