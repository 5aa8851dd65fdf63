"""`python -m workbench.sim`: one simulated run, stream-json on stdout, diagnostics on stderr.

Exit codes: 0 the run ended; 1 a simulated provider fault (`--fault no-output`); 2 bad input.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from workbench import __version__
from workbench.core.errors import InputError
from workbench.modelstub.script import load_script
from workbench.sim.agent import run_fault, run_script
from workbench.sim.policy import decide
from workbench.sim.stream import StreamWriter
from workbench.sim.tools import Workspace
from workbench.stdio import buffered

VERSION = f"sim-{__version__}"
DEFAULT_OUTSIDE = "/nonexistent-sim-outside"


def build_parser() -> argparse.ArgumentParser:
    """The sim's command line."""
    parser = argparse.ArgumentParser(
        prog="python -m workbench.sim",
        description="Offline simulated agent (NOT a model): runs a script or a wording-sensitive policy "
                    "in a repo and prints Claude-Code-compatible stream-json.")
    parser.add_argument("--prompt", required=True, help="The user prompt.")
    parser.add_argument("--repo", required=True, help="The repository to work in (cwd of every command).")
    parser.add_argument("--plugin", help="The plugin folder whose skills are offered.")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--script", help="Execute this host-neutral script (.json or .toml).")
    mode.add_argument("--policy", action="store_true", help="Let the seeded wording policy decide (default).")
    parser.add_argument("--seed", type=int, default=0, help="Policy seed (same seed, prompt, wording: same run).")
    parser.add_argument("--model", help="Model name to report (default sim-script / sim-policy).")
    parser.add_argument("--home", help="HOME for reads and commands (default: $HOME).")
    parser.add_argument("--outside", default=DEFAULT_OUTSIDE, help="Value of the {outside} script placeholder.")
    parser.add_argument("--timeout", type=float, default=120.0, help="Seconds before a shell command is killed.")
    parser.add_argument("--fault", choices=["no-output"], help="Simulate a provider fault instead of a run.")
    parser.add_argument("--explain", action="store_true", help="Print the policy's decision on stderr.")
    return parser


def directory(value: str, name: str) -> Path:
    """An existing directory given on the command line, else InputError."""
    path = Path(value)
    if not path.is_dir():
        raise InputError(f"not a directory: {value}", field=name)
    return path


def run(args: argparse.Namespace) -> int:
    """One run with parsed arguments."""
    repo = directory(args.repo, "--repo")
    plugin = directory(args.plugin, "--plugin") if args.plugin else None
    home = directory(args.home, "--home") if args.home else Path(os.environ.get("HOME", str(repo)))
    ws = Workspace(repo, plugin=plugin, home=home, timeout=args.timeout, transcript=bool(args.home))
    model = args.model or ("sim-script" if args.script else "sim-policy")
    writer = StreamWriter(buffered(sys.stdout), model=model)
    if args.fault == "no-output":
        return run_fault(ws, writer, version=VERSION)
    if args.script:
        placeholders = {"repo": str(ws.repo), "plugin": str(ws.plugin or ""), "home": str(ws.home or ""),
                        "outside": args.outside}
        script = load_script(args.script).resolved(placeholders)
    else:
        decision = decide(args.prompt, repo=repo, plugin=plugin, seed=args.seed)
        if args.explain:
            print(decision.explain(), file=sys.stderr)
        assert decision.script is not None
        script = decision.script
    return run_script(script, ws, writer, prompt=args.prompt, version=VERSION)


def main(argv: Sequence[str] | None = None) -> int:
    """Parse, run, and turn bad input into one line on stderr with exit 2."""
    args = build_parser().parse_args(argv)
    try:
        return run(args)
    except InputError as err:
        print(f"sim: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
