"""The CLI imports only the module of the command it runs: `commands.MODULES` names every subcommand the
modules register, in `--help` order, and a command line that names one registers just that one."""

from __future__ import annotations

import argparse
import subprocess
import sys

from workbench.cli import build_parser
from workbench.commands import MODULES


def commands_of(parser: argparse.ArgumentParser) -> list[str]:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return list(sub.choices)


def test_modules_name_every_registered_command_in_help_order() -> None:
    assert commands_of(build_parser()) == list(MODULES)
    assert commands_of(build_parser(["--help"])) == list(MODULES)
    assert commands_of(build_parser(["no-such-command"])) == list(MODULES), "an unknown name lists every choice"


def test_a_named_command_registers_only_its_module() -> None:
    assert commands_of(build_parser(["summary", "x.jsonl"])) == ["summary"]
    assert commands_of(build_parser(["--debug", "rows"])) == ["init", "rows", "lint", "audit"]


def test_running_a_command_does_not_import_the_others() -> None:
    probe = ("import sys\nfrom workbench.cli import main\nmain(['summary', 'missing.jsonl'])\n"
             "print(sorted(m for m in sys.modules if m.startswith('workbench.commands.')))\n"
             "print('git' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    loaded, git = done.stdout.splitlines()
    assert loaded == "['workbench.commands.summary']" and git == "False", done.stdout
    assert "missing.jsonl" in done.stderr and len(done.stderr.splitlines()) == 1
