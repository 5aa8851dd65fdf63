"""The offline `sim` host run like the real ones: `python -m workbench.sim` under the same watchdogs.

`run_host` starts a model server and an npm binary; the sim needs neither (it executes the script
or its policy itself), so this module launches `sys.executable -m workbench.sim` directly and
returns the same `HostRun`, parsed live with the Claude parser (`make_parser("sim")`).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path

from workbench.core.events import Event, ParsedRun
from workbench.core.parsers import make_parser
from workbench.hosts.base import Launch, clean_env
from workbench.modelstub import Script
from workbench.runner.hostrun import HostRun
from workbench.runner.process import run_process

NAME = "sim"


def build_launch(prompt: str, repo: Path, run_dir: Path, *, script_file: Path | None, plugin: Path | None,
                 outside: Path, fault: bool = False, seed: int = 0, model: str | None = None) -> Launch:
    """The sim's command line and environment (a temp HOME, like every host)."""
    home = run_dir / "home"
    argv = [sys.executable, "-m", "workbench.sim", "--prompt", prompt, "--repo", str(repo),
            "--home", str(home), "--outside", str(outside), "--seed", str(seed)]
    if plugin is not None:
        argv += ["--plugin", str(plugin)]
    if script_file is not None:
        argv += ["--script", str(script_file)]
    if model:
        argv += ["--model", model]
    if fault:
        argv += ["--fault", "no-output"]
    env = clean_env(os.environ)
    root = str(Path(__file__).resolve().parent.parent.parent)
    env.update({"HOME": str(home), "TMPDIR": str(run_dir / "tmp"), "NO_COLOR": "1",
                "PYTHONPATH": os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)})
    return Launch(argv, env, repo)


def run_sim(prompt: str, repo: Path, run_dir: Path, script: Script | None = None, *, plugin: Path | None = None,
            placeholders: Mapping[str, str] | None = None, fault: bool = False, seed: int = 0,
            on_event: Callable[[Event], None] | None = None, timeout: float = 120.0,
            model: str | None = None) -> HostRun:
    """One sim run on REPO: SCRIPT (placeholders filled here), else the seeded wording policy."""
    for sub in ("home", "tmp"):
        (run_dir / sub).mkdir(parents=True, exist_ok=True)
    outside = Path((placeholders or {}).get("outside", str(run_dir / "outside")))
    script_file = None
    if script is not None:
        values = {"repo": str(repo), "home": str(run_dir / "home"), "outside": str(outside),
                  "plugin": str(plugin or ""), **(placeholders or {})}
        script_file = run_dir / "script.json"
        script_file.write_text(json.dumps(script.resolved(values).model_dump(exclude_none=True)), encoding="utf-8")
    launch = build_launch(prompt, repo, run_dir, script_file=script_file, plugin=plugin, outside=outside,
                          fault=fault, seed=seed, model=model)
    parser = make_parser(NAME)
    live = ParsedRun()

    def feed(line: str) -> None:
        for event in parser.feed(line):
            live.apply(event)
            if on_event is not None:
                on_event(event)

    started_at = datetime.now(UTC).isoformat(timespec="seconds")
    result = run_process(launch.argv, env=launch.env, cwd=launch.cwd, stdout_path=run_dir / "stdout.jsonl",
                         stderr_path=run_dir / "stderr.txt", on_line=feed, timeout=timeout)
    for event in parser.finish():
        live.apply(event)
        if on_event is not None:
            on_event(event)
    run = HostRun(NAME, live, run_dir / "stdout.jsonl", run_dir / "stderr.txt", result.exit_code,
                  result.timed_out, result.duration, started_at, datetime.now(UTC).isoformat(timespec="seconds"),
                  launch)
    init = live.init
    run.host_version = init.host_version if init else None
    ended = live.ended
    run.served_model = (ended.served_model if ended and ended.served_model else None) or (init.model if init else None)
    run.offered_tools = sorted(init.tools) if init else []
    run.offered_skills = sorted(init.skills) if init else []
    run.offered_plugins = sorted(init.plugins) if init else []
    return run
