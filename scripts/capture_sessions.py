"""Re-make tests/data/sessions/: session files written by the pinned real host CLIs themselves.

Each scenario is a canary of the bundled demo workspace's `commit-typo-fix` case, driven by the
scripted model server through THE request and record builders (`build_request`, `execute`) with
the run folder kept; the session files the host wrote into the run's temp HOME are copied with the
run folder rewritten to `/tmp/run` (the Claude project folder's slug too), and checked to hold no
path of this machine and no secret of the launch. `manifest.json` beside them names the canary's
verdict, which `workbench sessions` must give back from the files alone (tests/test_sessions_real.py).

    .venv/bin/python scripts/capture_sessions.py [--hosts claude,codex,gemini] [--hosts-dir .cache/hosts]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path

from workbench.core.cases import find_case
from workbench.core.workspace import load_workspace
from workbench.hosts.install import find_binary
from workbench.modelstub import parse_script
from workbench.runner.execute import RunResult, execute, run_secrets
from workbench.runner.request import RunRequest, build_request

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "sessions"
NEUTRAL = "/tmp/run"
CASE = "commit-typo-fix"
REQUIRED = "workflows/commit.md"
MOMENT = "commit"
EDIT = {"edit": {"path": "{repo}/src/app.py", "old": "Helo, ", "new": "Hello, "}}
COMMIT = {"shell": "git commit -am 'app: fix greeting typo'"}
SCRIPTS = {
    "reads-then-commits": {"steps": [{"calls": [{"read": "{plugin}/skills/ops/workflows/commit.md"}]},
                                     {"calls": [EDIT]}, {"calls": [COMMIT]}, {"say": "Committed."}]},
    "commits-unread": {"steps": [{"calls": [EDIT]}, {"calls": [COMMIT]}, {"say": "Committed."}]},
}
STORES = {"claude": ".claude/projects", "codex": ".codex/sessions", "gemini": ".gemini/tmp",
          "opencode": ".local/share/opencode"}
KEEP = {"claude": re.compile(r"\.jsonl$"), "codex": re.compile(r"rollout-.*\.jsonl$"),
        "gemini": re.compile(r"(chats/session-.*\.jsonl?|\.project_root)$"), "opencode": re.compile(r"^$")}


def slug(path: str) -> str:
    """Claude Code's project folder name for a working folder."""
    return re.sub(r"[^A-Za-z0-9]", "-", path)


def canary(host: str, scenario: str, hosts_dir: Path, workdir: Path) -> tuple[RunRequest, RunResult]:
    """One kept canary run of SCENARIO on HOST (unconfined: the host's own session files are the point)."""
    ws = load_workspace(ROOT)
    case = find_case(CASE, ws.cases_dir)
    request = build_request(case, host, door="canary", plugin=ws.plugin_dir, script=parse_script(SCRIPTS[scenario]),
                            unconfined=True, keep=True, workdir=workdir, fixture=ws.base_fixture,
                            binary=find_binary(host, hosts_dir), timeout=180.0)
    return request, execute(request)


def neutral_db(src: Path, dest: Path, run_dir: str, forbidden: list[str]) -> None:
    """OpenCode's database copied (its WAL merged), every text value's run folder rewritten to
    /tmp/run in SQL, checked over its whole dump, compacted."""
    import sqlite3

    with tempfile.TemporaryDirectory() as tmp:
        for suffix in ("", "-wal", "-shm"):
            if (src.parent / (src.name + suffix)).is_file():
                shutil.copy(src.parent / (src.name + suffix), Path(tmp) / (src.name + suffix))
        con = sqlite3.connect(Path(tmp) / src.name)
        tables = [r[0] for r in con.execute("select name from sqlite_master where type='table'")]
        for table in tables:
            for _, column, kind, *_ in con.execute(f"pragma table_info('{table}')").fetchall():
                if kind.lower() == "text":
                    con.execute(f'update "{table}" set "{column}" = replace("{column}", ?, ?)', (run_dir, NEUTRAL))
        con.commit()
        dump = "\n".join(con.iterdump())
        leaks = [n for n, f in enumerate(forbidden) if f and re.search(rf"(?<![<\w]){re.escape(f)}(?![\w.-])", dump)]
        if leaks:
            raise SystemExit(f"opencode.db: holds {len(leaks)} machine path(s) or secret(s): not kept")
        con.execute("pragma journal_mode=delete")
        con.execute("vacuum")
        con.close()
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(Path(tmp) / src.name, dest)


def capture(host: str, scenario: str, hosts_dir: Path, workdir: Path) -> Path:
    """Run, copy the host's session files neutralized, check them, write the manifest; the folder."""
    request, result = canary(host, scenario, hosts_dir, workdir)
    run_dir = result.run_dir
    forbidden = [str(run_dir), str(Path.home()), *run_secrets(request, result.run.launch)]
    dest = OUT / f"{host}-{scenario}"
    shutil.rmtree(dest, ignore_errors=True)
    store = run_dir / "home" / STORES[host]
    copied = 0
    for path in sorted(store.rglob("*")):
        rel = path.relative_to(run_dir / "home").as_posix()
        if path.is_symlink() or not path.is_file() or not KEEP[host].search(rel):
            continue
        text = path.read_text(encoding="utf-8").replace(str(run_dir), NEUTRAL)
        rel = rel.replace(slug(str(run_dir)), slug(NEUTRAL))
        leaks = [("path " + f if n < 2 else f"secret #{n - 1}") for n, f in enumerate(forbidden) if f and re.search(
            rf"(?<![<\w]){re.escape(f)}(?![\w.-])", text)]  # `</root>` is an XML tag, not the home /root
        if leaks:
            raise SystemExit(f"{rel}: holds {', '.join(leaks)}: not kept")
        target = dest / "home" / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        copied += 1
    if host == "opencode":
        neutral_db(store / "opencode.db", dest / "home" / STORES[host] / "opencode.db", str(run_dir), forbidden)
        copied += 1
    if not copied:
        raise SystemExit(f"{host} {scenario}: no session file under {STORES[host]}")
    record = result.record
    manifest = {"host": host, "host_version": record.host_version, "scenario": scenario, "case": CASE,
                "require": REQUIRED, "moment": MOMENT, "canary_verdicts": record.verdict,
                "canary_overall": record.overall, "script": SCRIPTS[scenario]}
    (dest / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    shutil.rmtree(run_dir, ignore_errors=True)
    return dest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hosts", default="claude,codex,gemini,opencode")
    parser.add_argument("--hosts-dir", default=str(ROOT / ".cache" / "hosts"))
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="wb-capture-") as tmp:
        for host in args.hosts.split(","):
            for scenario in SCRIPTS:
                dest = capture(host, scenario, Path(args.hosts_dir), Path(tmp))
                print(f"{dest.relative_to(ROOT)}: {json.loads((dest / 'manifest.json').read_text())['canary_overall']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
