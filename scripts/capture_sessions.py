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

import json
import re
import shutil
import sys
import tempfile
from pathlib import Path

from workbench.hosts.install import find_binary
from workbench.runner.execute import RunResult, run_secrets
from workbench.runner.request import RunRequest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from capture_support import (  # noqa: E402  (beside this script)
    CASE,
    COMMIT,
    EDIT,
    NEUTRAL,
    REQUIRED,
    ROOT,
    capture_main,
    demo_canary,
    leaks,
)

OUT = ROOT / "tests" / "data" / "sessions"
MOMENT = "commit"
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
    return demo_canary(host, SCRIPTS[scenario], workdir, find_binary(host, hosts_dir), unconfined=True)


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
        found = leaks(dump, forbidden)
        if found:
            raise SystemExit(f"opencode.db: holds {len(found)} machine path(s) or secret(s): not kept")
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
        found = [("path " + forbidden[n] if n < 2 else f"secret #{n - 1}") for n in leaks(text, forbidden)]
        if found:
            raise SystemExit(f"{rel}: holds {', '.join(found)}: not kept")
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
    def line(host: str, scenario: str, hosts_dir: Path, workdir: Path) -> str:
        dest = capture(host, scenario, hosts_dir, workdir)
        return f"{dest.relative_to(ROOT)}: {json.loads((dest / 'manifest.json').read_text())['canary_overall']}"

    return capture_main(__doc__ or "", "claude,codex,gemini,opencode", SCRIPTS, line, argv)


if __name__ == "__main__":
    sys.exit(main())
