"""Re-make tests/data/streams/*-delegated-*.jsonl: real streams of runs whose main agent delegates.

Each scenario is a canary of the bundled demo workspace's `commit-typo-fix` case, driven by the
scripted model server through THE request and record builders (`build_request`, `execute`, door
`canary`, confined) with the run folder kept; the host's stdout is copied with the run folder
rewritten to `/tmp/run`, and checked to hold no path of this machine and no secret of the launch.
The sim writes its stream in Claude Code's shape; its captures sit beside the real CLI's. OpenCode's
stream leaves the child's calls out, so its run folder keeps the session database too
(`opencode-delegated-<scenario>/`: `stdout.jsonl` and `home/.local/share/opencode/opencode.db`,
neutralized as scripts/capture_sessions.py does). Codex's stream leaves the child's turns out: its
folder keeps the run's rollouts, its own and its child's, under `home/.codex/sessions/`. Gemini CLI's
stream leaves the subagent's calls out too: its folder keeps the run's chat files
(`gemini-delegated-<scenario>/`: `stdout.jsonl` and `home/.gemini/tmp/<project>/chats/`, the main
session file and the subagent's folder).

    .venv/bin/python scripts/capture_delegation.py [--hosts claude,sim,opencode,codex,gemini] [--hosts-dir .cache/hosts]
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

from workbench.hosts.install import find_binary
from workbench.runner.execute import RunResult, run_secrets
from workbench.runner.request import RunRequest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from capture_sessions import neutral_db, slug  # noqa: E402
from capture_support import (  # noqa: E402  (beside this script)
    CASE,  # noqa: F401  (the tests read it here)
    COMMIT,
    EDIT,
    NEUTRAL,
    REQUIRED,  # noqa: F401
    ROOT,
    capture_main,
    demo_canary,
    keep_neutral,
    leaks,
)

OUT = ROOT / "tests" / "data" / "streams"
PROCEDURE = "{plugin}/skills/ops/workflows/commit.md"


def delegate(path: str, summary: str, kind: str | None = None) -> dict[str, object]:
    """A delegation (to subagent type KIND; None: the host's default) whose subagent reads PATH and
    answers SUMMARY."""
    agent = {"prompt": f"Read {path} and sum it up in one line.", "description": "Read one file",
             "steps": [{"say": "Reading it.", "calls": [{"read": path}]}, {"say": summary}]}
    return {"agent": agent if kind is None else {**agent, "type": kind}}


SCRIPTS = {
    "subagent-reads": {"steps": [
        {"say": "Delegating the procedure.", "calls": [delegate(PROCEDURE, "Commit with a scoped message.",
                                                                "general-purpose")]},
        {"calls": [EDIT]}, {"calls": [COMMIT]}, {"say": "Committed."}]},
    "main-reads": {"steps": [
        {"calls": [delegate("{repo}/src/app.py", "It greets with a typo.")]},
        {"calls": [{"read": PROCEDURE}]}, {"calls": [EDIT]}, {"calls": [COMMIT]}, {"say": "Committed."}]},
    "nobody-reads": {"steps": [
        {"calls": [delegate("{repo}/src/app.py", "It greets with a typo.")]},
        {"calls": [EDIT]}, {"calls": [COMMIT]}, {"say": "Committed."}]},
}
"""Scenario -> script. Ground truth: the subagent reads the procedure (fired, by the subagent); the
subagent reads src/app.py and the main agent the procedure (fired, by main); only src/app.py is read
(skip). The last two name no subagent type: the host picks its default."""
TRUTH = {"subagent-reads": ("fired", "subagent"), "main-reads": ("fired", "main"), "nobody-reads": ("skip", None)}
"""Scenario -> (overall verdict, fired_by) the canary must give."""


def untyped(value: Any) -> Any:
    """A script without subagent types: hosts other than Claude Code (and the sim) name their own."""
    if isinstance(value, dict):
        return {k: untyped(v) for k, v in value.items() if not (k == "type" and "prompt" in value)}
    return [untyped(v) for v in value] if isinstance(value, list) else value


def script_for(host: str, scenario: str) -> dict[str, Any]:
    """SCENARIO's script as HOST runs it."""
    return SCRIPTS[scenario] if host in ("claude", "sim") else untyped(SCRIPTS[scenario])


def canary(host: str, scenario: str, hosts_dir: Path, workdir: Path) -> tuple[RunRequest, RunResult]:
    """One kept, confined canary run of SCENARIO on HOST."""
    return demo_canary(host, script_for(host, scenario), workdir,
                       None if host == "sim" else find_binary(host, hosts_dir))


def capture(host: str, scenario: str, hosts_dir: Path, workdir: Path) -> Path:
    """Run, check the verdict against the ground truth, copy the stream neutralized; its path."""
    request, result = canary(host, scenario, hosts_dir, workdir)
    record = result.record
    if (record.overall, record.fired_by) != TRUTH[scenario]:
        raise SystemExit(f"{host} {scenario}: {record.overall} by {record.fired_by}, not {TRUTH[scenario]}")
    run_dir = result.run_dir
    text = (run_dir / "stdout.jsonl").read_text(encoding="utf-8")
    text = text.replace(str(run_dir), NEUTRAL).replace(slug(str(run_dir)), slug(NEUTRAL))
    forbidden = [str(Path.home()), *run_secrets(request, result.run.launch)]
    if leaks(text, forbidden) or str(workdir) in text:
        raise SystemExit(f"{host} {scenario}: the stream holds a machine path or a secret: not kept")
    dest = OUT / f"{host}-delegated-{scenario}.jsonl"
    if host == "gemini":
        dest = OUT / f"{host}-delegated-{scenario}"
        shutil.rmtree(dest, ignore_errors=True)
        gemini_chats(run_dir, dest, forbidden + [str(workdir)])
        dest = dest / "stdout.jsonl"
    if host in ("opencode", "codex"):
        dest = OUT / f"{host}-delegated-{scenario}"
        shutil.rmtree(dest, ignore_errors=True)
        if host == "opencode":
            db = Path(".local") / "share" / "opencode" / "opencode.db"
            neutral_db(run_dir / "home" / db, dest / "home" / db, str(run_dir), forbidden)
        else:
            rollouts(run_dir, dest, forbidden)
        dest = dest / "stdout.jsonl"
    dest.write_text(text, encoding="utf-8")
    shutil.rmtree(run_dir, ignore_errors=True)
    return dest


def rollouts(run_dir: Path, dest: Path, forbidden: list[str]) -> None:
    """Codex's rollouts of the run (its own and its child's) copied with the run folder rewritten,
    each checked to hold no machine path or secret."""
    store = run_dir / "home" / ".codex" / "sessions"
    found = sorted(p for p in store.rglob("rollout-*.jsonl") if p.is_file() and not p.is_symlink())
    if len(found) < 2:
        raise SystemExit(f"codex: {len(found)} rollout(s) under {store}: the child's is missing")
    for path in found:
        rel = path.relative_to(run_dir)
        keep_neutral(path, run_dir, dest / rel, forbidden, str(rel))


def gemini_chats(run_dir: Path, dest: Path, forbidden: list[str]) -> None:
    """The run's Gemini chat files (main session, subagents' folder) copied under DEST/home with the run
    folder rewritten to /tmp/run; a file holding a machine path or a secret stops the capture."""
    home = run_dir / "home"
    for path in sorted((home / ".gemini" / "tmp").rglob("*.jsonl")):
        if path.is_symlink() or "chats" not in path.relative_to(home).parts:
            continue
        keep_neutral(path, run_dir, dest / "home" / path.relative_to(home), forbidden, path.name)


def main(argv: list[str] | None = None) -> int:
    def line(host: str, scenario: str, hosts_dir: Path, workdir: Path) -> str:
        dest = capture(host, scenario, hosts_dir, workdir)
        return f"{dest.relative_to(ROOT)}: {' by '.join(str(x) for x in TRUTH[scenario] if x)}"

    return capture_main(__doc__ or "", "claude,sim,opencode,codex,gemini", SCRIPTS, line, argv)


if __name__ == "__main__":
    sys.exit(main())
