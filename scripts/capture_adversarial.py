"""Capture the adversarial set: every scenario of tests/data/adversarial/scenarios.json on each host.

Not run by the test suite (it drives the real CLIs; minutes per host). Each run is set up the way a
confined batch run is (tests/data/adversarial/README.md): a throwaway git repo from `fixture/`, a
copy of `plugin/`, a copy of one procedure under `{outside}`, bubblewrap around the host, the
scripted model server on 127.0.0.1, the repo watcher around the host process. Stored per run, with
the run folder's real path rewritten to `/tmp/run`:

- `<host>.stdout.jsonl`: the host stream, unedited otherwise;
- `<host>.rollout.jsonl` (Codex): its rollout session log;
- `<host>.received.json`: the tool results as the model received them (from the model server's
  last scripted request, which carries the whole conversation), for labelling by hand;
- `<host>.effects.json`: what the repo watcher saw and when each call's lines arrived
  (`spans`, `effects`, seconds from the run's start), so effect attribution can be redone offline.

Usage: `.venv/bin/python scripts/capture_adversarial.py [--hosts sim,claude] [--only S01,S02] [--jobs 2]`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from workbench.core.effects import CallClock, reindex  # noqa: E402
from workbench.hosts import adapter  # noqa: E402
from workbench.hosts.install import find_binary  # noqa: E402
from workbench.modelstub import ModelServer, parse_script  # noqa: E402
from workbench.runner import hostrun  # noqa: E402
from workbench.runner.confine import Confinement  # noqa: E402
from workbench.runner.watcher import RepoWatcher  # noqa: E402

DATA = ROOT / "tests" / "data" / "adversarial"
HOSTS = ("sim", "claude", "codex", "opencode", "gemini", "grok")
STORED_ROOT = "/tmp/run"
GIT_ENV = {"GIT_AUTHOR_NAME": "fixture", "GIT_AUTHOR_EMAIL": "fixture@example.com",
           "GIT_COMMITTER_NAME": "fixture", "GIT_COMMITTER_EMAIL": "fixture@example.com",
           "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z"}


class RecordingServer(ModelServer):
    """The scripted model server, also keeping every request body (what the model was sent)."""

    bodies: list[tuple[str, dict[str, Any]]]

    def handle(self, path: str, body: dict[str, Any]) -> Any:
        api, request, fault = super().handle(path, body)
        if request is not None and request.scripted and api is not None:
            RecordingServer.bodies.append((api.name, body))
        return api, request, fault


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(_text(v.get("text", v) if isinstance(v, dict) else v) for v in value)
    if isinstance(value, dict):
        for key in ("output", "content", "text", "result", "error"):
            if key in value:
                return _text(value[key])
    return json.dumps(value)


def received(api: str, body: dict[str, Any]) -> list[dict[str, Any]]:
    """The tool results in one request's history, in order: what the model received per call."""
    out: list[dict[str, Any]] = []
    if api == "anthropic":
        for message in body.get("messages") or []:
            for block in message.get("content") or [] if isinstance(message.get("content"), list) else []:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    out.append({"id": block.get("tool_use_id"), "is_error": bool(block.get("is_error")),
                                "text": _text(block.get("content"))})
    elif api == "openai-responses":
        for item in body.get("input") or []:
            if isinstance(item, dict) and item.get("type") in ("function_call_output", "custom_tool_call_output"):
                out.append({"id": item.get("call_id"), "text": _text(item.get("output"))})
    elif api == "openai-chat":
        for message in body.get("messages") or []:
            if isinstance(message, dict) and message.get("role") == "tool":
                out.append({"id": message.get("tool_call_id"), "text": _text(message.get("content"))})
    elif api == "gemini":
        for content in body.get("contents") or []:
            for part in content.get("parts") or []:
                if isinstance(part, dict) and "functionResponse" in part:
                    fr = part["functionResponse"]
                    out.append({"id": fr.get("id"), "name": fr.get("name"), "text": _text(fr.get("response"))})
    return out


def make_repo(repo: Path) -> None:
    shutil.copytree(DATA / "fixture", repo)
    env = {**os.environ, **GIT_ENV}
    for argv in (["git", "init", "-q", "-b", "main"], ["git", "add", "."], ["git", "commit", "-qm", "Fixture"]):
        subprocess.run(argv, cwd=repo, env=env, check=True)


def capture(scenario: dict[str, Any], host: str, out: Path, hosts_dir: Path) -> str:
    """One run of SCENARIO on HOST; its files land in OUT/<scenario id>/."""
    sid = scenario["id"]
    root = Path(tempfile.mkdtemp(prefix=f"wbadv-{sid}-{host}-"))
    try:
        repo, plugin, outside = root / "repo", root / "plugin", root / "outside"
        make_repo(repo)
        shutil.copytree(DATA / "plugin", plugin)
        (outside / "procedures").mkdir(parents=True)
        shutil.copy(plugin / "procedures" / "testing.md", outside / "procedures" / "testing.md")
        script = parse_script({"steps": scenario["steps"]})
        binary = None if host == "sim" else find_binary(host, hosts_dir)
        if host != "sim" and binary is None:
            return f"{sid} {host}: not installed"
        conf = Confinement(Path.home())
        clock = CallClock()
        t0 = time.monotonic()
        with RepoWatcher(repo, noise=adapter(host).repo_noise) as watcher:  # as runner/execute.py watches
            run = hostrun.run_host(host, scenario.get("prompt", "Do the task."), repo, root, script=script,
                                   binary=binary, timeout=240.0, on_timed_event=clock.see,
                                   before_stamp=watcher.sync, plugin=plugin,
                                   add_dirs=(plugin,), placeholders={"plugin": str(plugin)},
                                   wrap=lambda launch: conf.wrap(launch, host, root, repo))
        effects = watcher.stop()
        spans = reindex(clock.spans(), [c.call_id for c in run.parsed.calls])
        dest = out / sid
        dest.mkdir(parents=True, exist_ok=True)
        real = str(root)

        def rewrite(text: str) -> str:
            return text.replace(os.path.realpath(real), STORED_ROOT).replace(real, STORED_ROOT)

        (dest / f"{host}.stdout.jsonl").write_text(rewrite(run.stdout_path.read_text(errors="replace")))
        if run.session_log is not None:
            (dest / f"{host}.rollout.jsonl").write_text(rewrite(run.session_log.read_text(errors="replace")))
        bodies = [b for b in RecordingServer.bodies if str(repo) in json.dumps(b[1])]
        got = received(*bodies[-1]) if bodies else []
        (dest / f"{host}.received.json").write_text(rewrite(json.dumps(got, indent=1)) + "\n")
        timing = {"spans": [{"index": s.index, "call_id": s.call_id,
                             "started": None if s.started is None else round(s.started - t0, 4),
                             "finished": None if s.finished is None else round(s.finished - t0, 4)} for s in spans],
                  "effects": [{"t": round(e.t - t0, 4), "path": e.path, "kind": e.kind,
                               **({"detail": e.detail} if e.detail else {})} for e in effects if e.kind != "index"],
                  "asked": [{"turn": turn, "t": round(t - t0, 4)} for turn, t in run.asked],
                  "overflowed": watcher.overflowed}
        (dest / f"{host}.effects.json").write_text(rewrite(json.dumps(timing, indent=1)) + "\n")
        return f"{sid} {host}: {len(run.parsed.calls)} calls, exit {run.exit_code}, {run.duration:.0f}s"
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hosts", default=",".join(HOSTS))
    parser.add_argument("--only", default="")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", type=Path, default=DATA / "captures")
    parser.add_argument("--hosts-dir", type=Path, default=ROOT / ".cache" / "hosts")
    args = parser.parse_args()
    scenarios = json.loads((DATA / "scenarios.json").read_text())
    only = {s for s in args.only.split(",") if s}
    jobs = [(s, h) for h in args.hosts.split(",") for s in scenarios if not only or s["id"] in only]
    RecordingServer.bodies = []
    hostrun.ModelServer = RecordingServer  # type: ignore[misc]  # keep the request bodies
    if args.jobs > 1:
        # one server per run, but bodies are told apart by the run's repo path (unique per run)
        with ThreadPoolExecutor(args.jobs) as pool:
            for line in pool.map(lambda job: capture(job[0], job[1], args.out, args.hosts_dir), jobs):
                print(line, flush=True)
    else:
        for scenario, host in jobs:
            print(capture(scenario, host, args.out, args.hosts_dir), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
