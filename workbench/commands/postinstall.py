"""`workbench postinstall --host H [--case C]`: one run against the user's LIVE install.

No temp HOME and no plugin copy: the host runs with the real HOME and config (so it loads the
plugin the way the user installed it), in a fresh throwaway repo. The guard watches the real
checkouts and the live config files; a change is reported and makes the record invalid. The
record has the batch schema with condition `live-install`.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from workbench.core.events import Event
from workbench.core.hostinfo import NAMES
from workbench.core.models import Case, RunRecord, ScoreSpec
from workbench.core.records import append_record
from workbench.core.scoring import score
from workbench.exitcodes import ExitCode
from workbench.hosts.base import Launch
from workbench.modelstub import Script

DEFAULT_CASE = "canaries/post-install.toml"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `postinstall` subcommand."""
    p = sub.add_parser("postinstall", help="one run against your live install (real HOME and config)",
                       description="Run one case on your live host install (real HOME, real config, no copies) "
                                   "in a fresh throwaway repo, with the guard over your checkouts and live config.")
    p.add_argument("--host", required=True, choices=NAMES)
    p.add_argument("--case", help=f"case id or file (default: the workspace's {DEFAULT_CASE})")
    model = p.add_mutually_exclusive_group()
    model.add_argument("--model", help="the model to ask for (your login)")
    model.add_argument("--script", metavar="FILE", help="a scripted model on 127.0.0.1 instead (tests)")
    p.add_argument("--record", metavar="FILE", help="records file (default: the workspace's records/live-install.jsonl)")
    p.add_argument("--binary", metavar="PATH", help="the host binary (default: on PATH, else the pinned install)")
    p.add_argument("--home", metavar="DIR", help="the live HOME (default: $HOME)")
    p.add_argument("--guard", action="append", default=[], metavar="PATH", help="another checkout to guard")
    p.add_argument("--timeout", type=float, default=600.0, help="seconds before the run is stopped (600)")
    p.set_defaults(handler=run)


@dataclass
class LiveResult:
    record: RunRecord
    changes: list[str]


def run_live(case: Case, host: str, *, home: Path, plugin: Path, guarded: list[Path], record_path: Path,
             fixture: Path | None = None, model: str | None = None, script: Script | None = None,
             binary: Path | None = None, timeout: float = 600.0, on_event: Callable[[Event], None] | None = None,
             on_setup: Callable[[Mapping[str, str]], None] | None = None) -> LiveResult:
    """One live-install run; the record is appended (invalid `guard` when anything outside changed).

    `on_event` sees each normalized event as the host emits it and `on_setup` the path -> label
    mapping before the host starts (the TUI's live call pane), as for a canary."""
    from workbench.runner.canary import CanaryRequest, build_record, entry_skill
    from workbench.runner.fixture import make_fixture
    from workbench.runner.guard import Guard
    from workbench.runner.hostrun import run_host

    guard = Guard.for_home(home, guarded, own=[record_path])
    before = guard.snapshot()
    run_dir = Path(tempfile.mkdtemp(prefix="wb-live-"))
    try:
        repo = run_dir / "repo"
        make_fixture(repo, case, fixture)
        paths = {str(repo): "<repo>", str(run_dir): "<run>", str(home): "~", str(plugin): "<plugin>"}
        paths.update({os.path.realpath(k): v for k, v in list(paths.items())})
        if on_setup is not None:
            on_setup(paths)
        run = run_host(host, case.prompt.replace("{repo}", str(repo)), repo, run_dir, script=script, model=model,
                       timeout=timeout, placeholders={"repo": str(repo), "home": str(home)},
                       binary=binary or _live_binary(host), plugin=plugin if host == "sim" else None, on_event=on_event,
                       wrap=lambda launch: live_launch(launch, run_dir / "home", home, scripted=script is not None))
        entry = entry_skill(plugin, case.required)
        spec = ScoreSpec(kind=case.kind, required=case.required, moment=case.moment, entry_skill=entry,
                         entry_file=f"skills/{entry}/SKILL.md" if entry else None)
        result = score(spec, run.parsed.calls, model_output=run.parsed.model_output)
        req = CanaryRequest(host=host, plugin=plugin, script=script, model=model)
        record = build_record(case, req, run, result, entry, paths).model_copy(update={"condition": "live-install"})
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)
    changes = guard.changes(before)
    if changes:
        extra = record.model_extra if record.model_extra is not None else {}
        extra["guard_changes"] = changes
        record = record.model_copy(update={"valid": False, "invalid_reason": "guard"})
    append_record(record_path, record)
    return LiveResult(record, changes)


def live_launch(launch: Launch, temp_home: Path, home: Path, *, scripted: bool) -> Launch:
    """The adapter's launch pointed at the live HOME instead of its temp HOME (argv and environment).
    Scripted runs keep CODEX_HOME: it holds the adapter's config for the model server."""
    argv = [str(home) if a == str(temp_home) else a for a in launch.argv]
    env = dict(launch.env)
    env.update({"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "XDG_CACHE_HOME": str(home / ".cache")})
    if not scripted:
        env["CODEX_HOME"] = str(home / ".codex")
    return replace(launch, argv=argv, env=env)


def _live_binary(host: str) -> Path | None:
    """The user's own install on PATH (sim: None, it is this Python)."""
    if host == "sim":
        return None
    found = shutil.which(host)
    return Path(found) if found else None


def run(args: argparse.Namespace) -> int:
    """Resolve the workspace, case and host; run once; print the verdict and any guard finding."""
    from workbench.core.cases import find_case
    from workbench.core.errors import InputError
    from workbench.core.workspace import load_workspace
    from workbench.modelstub import load_script

    ws = load_workspace()
    case = find_case(args.case, ws.cases_dir) if args.case else find_case(str(ws.root / DEFAULT_CASE), ws.cases_dir)
    if args.host != "sim" and args.model is None and args.script is None:
        raise InputError(f"{args.host} needs --model (your login) or --script", field="--model")
    home = Path(args.home).resolve() if args.home else Path.home()
    record_path = Path(args.record).resolve() if args.record else ws.records_dir / "live-install.jsonl"
    record_path.parent.mkdir(parents=True, exist_ok=True)
    guarded = [ws.root, ws.plugin_dir, *map(Path, args.guard)]
    result = run_live(case, args.host, home=home, plugin=ws.plugin_dir, guarded=guarded, record_path=record_path,
                      fixture=ws.base_fixture if ws.base_fixture.is_dir() else None, model=args.model,
                      script=load_script(args.script) if args.script else None,
                      binary=Path(args.binary) if args.binary else None, timeout=args.timeout)
    r = result.record
    print(f"{case.id} on live {args.host}: {r.overall}" + ("" if r.valid else f" (INVALID: {r.invalid_reason})")
          + f" -> {record_path}")
    for change in result.changes:
        print(f"workbench: guard: {change}", file=sys.stderr)
    return int(ExitCode.ABORTED if result.changes else ExitCode.OK)
