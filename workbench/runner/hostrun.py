"""One host run end to end: model server (scripted runs), adapter launch, watchdogs, parsed stream.

Every host in `workbench.hosts.ADAPTERS` runs here, the offline `sim` included (it executes the
resolved script itself, so no model server is started for it). The stream is parsed live (each
event goes to `on_event` as it happens); Codex is parsed again after exit together with its
rollout session log, which alone shows the refusals `--json` omits; a delegating OpenCode run gets
its subagents' calls from its own session database, a delegating Codex run from its subagents'
rollouts (`runner.children`).
The validity gates a record needs come back with the run: host version (stream, else
`--version`), served model (stream, else what the model server was asked for) and what the host
offered the model (tools, skills, plugins).
"""

from __future__ import annotations

import functools
import json
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from workbench.core.errors import InputError
from workbench.core.events import CallsReset, Event, ParsedRun
from workbench.core.hostinfo import NPM_HOSTS
from workbench.core.parsers import make_parser, parse_lines
from workbench.core.parsers.common import capped_lines
from workbench.hosts import SCRIPTED, HostAdapter, Launch, RunSpec, adapter
from workbench.hosts.install import installed_version, pin, probe_version, require_binary
from workbench.hosts.sim import NO_OUTPUT
from workbench.modelstub import Fault, ModelServer, Script
from workbench.runner.children import child_calls
from workbench.runner.process import ProcessResult, TimeoutReason, run_process


@dataclass
class HostRun:
    """What one run produced, with the facts a record's validity gates need."""

    host: str
    parsed: ParsedRun
    stdout_path: Path
    stderr_path: Path
    exit_code: int
    timed_out: TimeoutReason | None
    duration: float
    """Wall seconds of the host process alone (start to exit); the rest of a run is the workbench's."""
    started_at: str
    finished_at: str
    launch: Launch
    host_version: str | None = None
    served_model: str | None = None
    offered: list[dict[str, Any]] = field(default_factory=list)
    """The model server's per-request log (scripted runs), then what a real model was sent (request
    bodies) and what the host's transcript kept of its listing (runner/api_bodies.py)."""
    entry_description: str | None = None
    """The entry skill's description as its SKILL.md writes it: the row text the offered proof looks for."""
    asked: list[tuple[int, float]] = field(default_factory=list)
    """(model turn, monotonic arrival) of each scripted request: the turn clock (`core.effects.turn_spans`)."""
    offered_tools: list[str] = field(default_factory=list)
    offered_skills: list[str] = field(default_factory=list)
    offered_plugins: list[str] = field(default_factory=list)
    server_errors: list[str] = field(default_factory=list)
    session_log: Path | None = None
    cancelled: bool = False
    """The caller cancelled the run: its process group was stopped before the host ended."""

    def skill_offered(self, name: str) -> bool:
        """Whether NAME (a skill, `plugin:skill`, or a plugin) was offered to the model."""
        return any(name in (s, s.split(":")[-1]) for s in self.offered_skills) or name in self.offered_plugins


@functools.cache
def _cli_version(host: str, binary: str) -> str | None:
    """The host's version when its stream has none: the npm install's package.json, named with its
    package ("0.0.34 (@vibe-kit/grok-cli)": the name alone does not say which client it is), else
    `--version` (Grok CLI's prints "1.0.1", not its package version).

    A binary inside a `node_modules` tree (the pinned installs) is versioned by the package npm
    installed there, which costs nothing; `--version` costs a second or more for node hosts, so it
    is only the fallback (cached per binary for the process).
    """
    path = Path(binary)
    modules = next((p for p in path.parents if p.name == "node_modules"), None)
    if modules is not None and host in NPM_HOSTS:
        version = installed_version(host, modules.parent)
        if version:
            return f"{version} ({pin(host)[0]})"
    return probe_version(path)


def _rollout(run_dir: Path, codex_home: Path, thread: str | None = None) -> tuple[Path, list[str]] | None:
    """The run's own Codex rollout under CODEX_HOME/sessions and its lines: the one whose
    `session_meta.id` is the stream's THREAD (a subagent's rollout, often written last, is never
    taken for it); without a thread id, the newest that is not a subagent's. Read without trusting
    the run (runner/untrusted.py: no link followed, regular files only, capped, timed); a refused
    log counts as none."""
    from workbench.runner.sessions import rollout_threads
    from workbench.runner.untrusted import Refused, read_bytes, regular_files

    try:
        rel_home = codex_home.relative_to(run_dir)
    except ValueError:
        return None
    logs = sorted(regular_files(run_dir, rel_home / "sessions", "rollout-*.jsonl"), key=lambda item: -item[1])
    for rel, _ in logs:
        try:
            lines = read_bytes(run_dir, rel).decode("utf-8", errors="replace").splitlines()
        except Refused:
            continue
        own, parent = rollout_threads(lines[0] if lines else "")
        if (own == thread) if thread is not None else parent is None:
            return run_dir / rel, lines
    return None


def _lines(path: Path) -> Iterator[str]:
    """The lines of a stream file, one at a time (a flood of junk is never held in memory)."""
    with path.open("rb") as fh:
        for raw in capped_lines(fh):
            yield raw.decode("utf-8", errors="replace").rstrip("\r\n")


def _own_fault(host: str, faults: Iterable[Fault]) -> str | None:
    """For a host without a model server: the one fault it simulates itself (an error on every request)."""
    faults = list(faults)
    if not faults:
        return None
    if all(f.kind == "status" and f.step is None and f.times is None for f in faults):
        return NO_OUTPUT
    raise InputError(f"{host} simulates only one fault: an error status on every request (no-output)",
                     field="faults")


def _spec(ad: HostAdapter, prompt: str, repo: Path, run_dir: Path, exe: Path, script: Script | None,
          model: str | None, server: ModelServer | None, values: Mapping[str, str], faults: Iterable[Fault],
          add_dirs: Iterable[Path], plugin: Path | None, seed: int, effort: str | None = None) -> RunSpec:
    """The adapter's run spec; a host without a server gets the resolved script as a file instead."""
    script_file, fault = None, None
    if not ad.uses_server:
        fault = _own_fault(ad.name, faults)
        if script is not None:
            script_file = run_dir / "script.json"
            data = script.resolved(dict(values)).model_dump(exclude_none=True)
            script_file.write_text(json.dumps(data), encoding="utf-8")
    spec_model = SCRIPTED if script is not None else (model or "")
    return RunSpec(prompt, repo, run_dir, exe, spec_model, server.url if server else None, tuple(add_dirs),
                   plugin=plugin, script_file=script_file, fault=fault, seed=seed, effort=effort)


def run_host(host: str, prompt: str, repo: Path, run_dir: Path, script: Script | None = None,
             faults: Iterable[Fault] = (), on_event: Callable[[Event], None] | None = None,
             timeout: float = 300.0, silence_timeout: float | None = None, model: str | None = None,
             placeholders: Mapping[str, str] | None = None, extra_env: Mapping[str, str] | None = None,
             add_dirs: Iterable[Path] = (), binary: Path | None = None, probe: bool = True,
             plugin: Path | None = None, seed: int = 0, effort: str | None = None,
             wrap: Callable[[Launch], Launch] | None = None, cancel: threading.Event | None = None,
             on_timed_event: Callable[[Event, float], None] | None = None,
             before_stamp: Callable[[], None] | None = None) -> HostRun:
    """Run HOST once on REPO; a SCRIPT runs it against a fresh scripted model server on 127.0.0.1.

    `plugin` is the run's plugin copy, given to the host the way it loads skills (Claude
    `--plugin-dir`, user-skill links in the temp HOME for the others, sim `--plugin`); it is also
    the script's `{plugin}`. `extra_env` is applied after the adapter's environment (tests use it to
    add a logging proxy). `model` names a real model when no script is given (sim: the name it
    reports; it then runs its policy with `seed`). The sim simulates the no-output fault itself.
    `cancel`, once set, stops the host's process group (`run_process`); the run says `cancelled`.
    `on_timed_event` gets each live event with its line's monotonic arrival time (effect attribution:
    `workbench.core.effects.CallClock.see`; events parsed after exit come with the time they were parsed).
    `effort` is the reasoning effort, set on the host's command line (`HostAdapter.effort_argv`).
    `before_stamp` runs as each stdout line is read, before its time is taken (`RepoWatcher.sync`),
    and as the model server receives each request (the turn clock, `HostRun.asked`).
    """
    ad = adapter(host)
    exe = binary or ad.default_binary() or require_binary(host)
    for sub in ("home", "tmp", "bin"):
        (run_dir / sub).mkdir(parents=True, exist_ok=True)
    values = {"repo": str(repo), "home": str(run_dir / "home"), "outside": str(run_dir / "outside"),
              "plugin": str(plugin or ""), **(placeholders or {})}
    server = None
    if script is not None and ad.uses_server:
        server = ModelServer(script, values, faults=faults, log_path=run_dir / "offered.jsonl",
                             before_stamp=before_stamp)
    parser = make_parser(host)
    live = ParsedRun()

    def feed(line: str, arrived: float | None = None) -> None:
        for event in parser.feed(line):
            live.apply(event)
            if on_event is not None:
                on_event(event)
            if on_timed_event is not None:
                on_timed_event(event, time.monotonic() if arrived is None else arrived)

    started_at = datetime.now(UTC).isoformat(timespec="seconds")
    if server is not None:
        server.start()
    try:
        spec = _spec(ad, prompt, repo, run_dir, exe, script, model, server, values, faults, add_dirs, plugin, seed,
                     effort)
        launch = ad.build(spec)
        launch.env.update(extra_env or {})
        launch.materialize()
        if wrap is not None:  # confinement (runner/confine.py): the same launch inside a sandbox
            launch = wrap(launch)
        result: ProcessResult = run_process(launch.argv, env=launch.env, cwd=launch.cwd,
                                            stdout_path=run_dir / "stdout.jsonl", stderr_path=run_dir / "stderr.txt",
                                            on_timed_line=feed, timeout=timeout,
                                            silence_timeout=silence_timeout, cancel=cancel,
                                            before_stamp=before_stamp)
        if wrap is not None:  # a post-install run as the sandbox uid: its live writes, from its copies
            from workbench.runner.confine import write_back

            write_back(run_dir, never=map(Path, launch.login_before))
    finally:
        if server is not None:
            server.stop()
    finished = time.monotonic()
    for event in parser.finish():
        live.apply(event)
        if on_event is not None:
            on_event(event)
        if on_timed_event is not None:
            on_timed_event(event, finished)
    parsed, session_log = live, None
    if host == "codex":
        rollout = _rollout(run_dir, Path(launch.env["CODEX_HOME"]), getattr(parser, "thread_id", None))
        if rollout is not None:
            session_log = rollout[0]
            parsed = parse_lines("codex", _lines(run_dir / "stdout.jsonl"), rollout[1])
    children = child_calls(host, parsed, Path(launch.env.get("HOME") or run_dir / "home"), session_log)
    if children is not None:
        parsed.apply(CallsReset(tuple(children)))
    run = HostRun(host, parsed, run_dir / "stdout.jsonl", run_dir / "stderr.txt", result.exit_code,
                  result.timed_out, result.duration, started_at, datetime.now(UTC).isoformat(timespec="seconds"),
                  launch, session_log=session_log, cancelled=result.cancelled)
    _gates(run, server, exe, probe)
    return run


def _gates(run: HostRun, server: ModelServer | None, binary: Path, probe: bool) -> None:
    """Fill host version, served model and the offered tools/skills/plugins."""
    init = run.parsed.init
    run.host_version = init.host_version if init and init.host_version else None
    if run.host_version is None and probe:
        run.host_version = _cli_version(run.host, str(binary))
    ended = run.parsed.ended
    run.served_model = (ended.served_model if ended and ended.served_model else None) or (init.model if init else None)
    tools: set[str] = set(init.tools if init else ())
    skills: set[str] = set(init.skills if init else ())
    plugins: set[str] = set(init.plugins if init else ())
    if server is not None:
        run.offered = list(server.offered)
        run.asked = list(server.asked)
        run.server_errors = list(server.errors)
        scripted = [entry for entry in server.offered if entry["scripted"]]
        for entry in scripted:
            tools.update(entry["tools"])
            skills.update(entry["skills"])
            plugins.update(entry["plugins"])
        if run.served_model is None and scripted:
            run.served_model = scripted[-1]["model"]
    run.offered_tools, run.offered_skills, run.offered_plugins = sorted(tools), sorted(skills), sorted(plugins)
