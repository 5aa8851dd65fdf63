"""CLI subcommands: each module registers its own parser and handler.

A command's module imports what the command needs (GitPython, pydantic models, the runner), so the
parser imports only the module of the command named on the command line; `workbench --help`, an
unknown name or none at all registers every module.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable, Sequence

Register = Callable[["argparse._SubParsersAction[argparse.ArgumentParser]"], None]

MODULES: dict[str, str] = {
    "score": "score", "summary": "summary", "rescore": "rescore", "schema": "schema", "hosts": "hosts",
    "canary": "canary", "selftest": "selftest",
    "init": "authoring", "rows": "authoring", "lint": "authoring", "audit": "authoring",
    "arm": "arm", "case": "case", "batch": "batch", "postinstall": "postinstall", "report": "report",
    "export": "export", "sessions": "sessions", "tune": "tune",
}
"""Each command name -> the module of workbench.commands that registers it, in `workbench --help` order."""


def registrars(argv: Sequence[str] = ()) -> list[Register]:
    """The register functions of the modules the parser needs for ARGV (every module unless ARGV names one)."""
    named = next((a for a in argv if not a.startswith("-")), None)
    modules = [MODULES[named]] if named in MODULES else list(dict.fromkeys(MODULES.values()))
    return [importlib.import_module(f"{__name__}.{m}").register for m in modules]
