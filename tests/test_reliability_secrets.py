"""Secrets: a batch on sim, Claude Code and Codex, with HOME pointed at a fake "real home" for the whole
workbench process (a fake login file per host and a planted secret in it), driven by a scripted model that
goes looking for them. Then every record, the batch's stdout and stderr and the summary's output are
scanned for the planted strings, the home path and the user name: 0 hits (paths become <repo>,
<plugin>, <home>, ~)."""

from __future__ import annotations

import getpass
import json
import os
import pwd
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from batch_support import ROOT, SECRET, World, make_world

LOGIN_SECRET = "LOGIN-SECRET-91b3c"
USER = "wbfakeuser"


@pytest.fixture
def world() -> Iterator[World]:
    """A world outside pytest's tmp folder (its name holds the user name), the workspace INSIDE the fake
    home as a user's checkout would be."""
    base = Path(tempfile.mkdtemp(prefix="wb-secrets-"))
    try:
        inner = make_world(base / "x")
        home = base / USER
        shutil.move(str(inner.home), home)
        shutil.move(str(inner.ws), home / "work")
        yield World(home / "work", home, home / "work" / "records" / "batch.jsonl")
    finally:
        shutil.rmtree(base, ignore_errors=True)


def plant(w: World) -> None:
    for rel in (".claude/.credentials.json", ".codex/auth.json", ".claude.json"):
        path = w.home / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"token": f"{LOGIN_SECRET}-{rel}"}), encoding="utf-8")


def hostile_script(w: World) -> dict[str, object]:
    """Looks for the login through the temp HOME, the real home's files, and the environment."""
    real = w.home
    return {"steps": [
        {"say": f"looking around {real}",
         "calls": [{"shell": "cat $HOME/.claude/.credentials.json; cat ~/.codex/auth.json"}]},
        {"calls": [{"shell": f"cat {real}/secret.txt; cat {real}/.claude/.credentials.json; ls -la {real}"}]},
        {"calls": [{"read": f"{real}/secret.txt"}]},
        {"calls": [{"shell": "echo $HOME; pwd; id; env | sort | head -40"}]},
        {"calls": [{"write": {"path": "{repo}/found.txt", "content": "nothing\n"}}]},
        {"say": "done"}]}


def patterns(w: World) -> dict[str, re.Pattern[str]]:
    """What must never appear: planted strings, the home path (as given and resolved), the user names."""
    real_home = pwd.getpwuid(os.getuid()).pw_dir
    names = {USER, getpass.getuser(), pwd.getpwuid(os.getuid()).pw_name} - {"root"}  # uid 0's name in every
    # sandbox (its own account files), no one's login: as root outside, USER stands for the person
    found = {
        "planted secret": re.compile(re.escape(SECRET)),
        "login secret": re.compile(re.escape(LOGIN_SECRET)),
        "home path": re.compile(re.escape(str(w.home))),
        "home path (resolved)": re.compile(re.escape(os.path.realpath(w.home))),
        "machine home path": re.compile(re.escape(real_home.rstrip("/") + "/")),
    }
    for name in names:
        found[f"user name {name}"] = re.compile(rf"\b{re.escape(name)}\b")
    return found


def scan(texts: dict[str, str], w: World) -> list[str]:
    hits = []
    for where, text in texts.items():
        for what, pattern in patterns(w).items():
            for m in pattern.finditer(text):
                hits.append(f"{what} in {where}: ...{text[max(0, m.start() - 60):m.end() + 60]!r}...")
    return hits


def test_no_secret_path_or_user_name_in_records_logs_or_reports(world: World, installed_hosts: Path) -> None:
    w = world
    plant(w)
    script = w.ws.parent / "hostile.json"
    script.write_text(json.dumps(hostile_script(w)), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(w.home), "USER": USER, "LOGNAME": USER,
           "WORKBENCH_HOSTS_DIR": str(installed_hosts), "TMPDIR": str(w.ws.parent.parent / "tmp")}
    Path(env["TMPDIR"]).mkdir()
    argv = [sys.executable, "-m", "workbench", "batch", "--cases", "docs-*", "--hosts", "sim,claude,codex",
            "--arms", "A=HEAD", "--record", "records/batch.jsonl", "--script", str(script)]
    done = subprocess.run(argv, cwd=w.ws, env=env, capture_output=True, text=True, check=False)
    assert done.returncode in (0, 1), done.stderr
    records = w.record.read_text(encoding="utf-8")
    lines = [json.loads(line) for line in records.splitlines()]
    assert sorted(r["host"] for r in lines) == ["claude", "codex", "sim"]
    for r in lines:  # the script really ran: each host made the hostile calls, named with `~`
        assert len(r["calls"]) >= 4, (r["host"], r["calls"])
        assert any("~/secret.txt" in (c.get("command") or c.get("path") or "") for c in r["calls"]), r["calls"]
        assert any(c["kind"] == "shell" and c["status"] == "ok" for c in r["calls"]), r["calls"]  # commands ran
    texts = {"records": records, "batch stdout": done.stdout, "batch stderr": done.stderr}
    for fmt in ("md", "json", "csv"):
        summary = subprocess.run([sys.executable, "-m", "workbench", "summary", "--format", fmt, str(w.record)],
                                 cwd=w.ws, env=env, capture_output=True, text=True, check=False)
        assert summary.returncode == 0, summary.stderr
        texts[f"summary {fmt}"] = summary.stdout + summary.stderr
    leftovers = list(Path(env["TMPDIR"]).iterdir())
    assert not leftovers, f"run folders left behind: {leftovers}"
    (w.ws.parent.parent / "records.jsonl").write_text(records)  # kept for a failing run's reader
    hits = scan(texts, w)
    assert not hits, "\n".join(hits[:20])
    assert (w.home / "secret.txt").read_text() == SECRET + "\n"  # nothing changed there either


def test_redact_covers_a_secret_cut_short_by_an_excerpt(tmp_path: Path) -> None:
    from workbench.core.models import Call, RunRecord
    from workbench.runner.redact import Redactor, login_secrets

    login = tmp_path / "auth.json"
    login.write_text(json.dumps({"tokens": {"access": f"{LOGIN_SECRET}-abcdef"}, "mode": "oauth"}))
    secrets = login_secrets([login])
    assert secrets == [f"{LOGIN_SECRET}-abcdef"]  # short values ("oauth") are not secrets
    calls = [Call(index=0, tool="Bash", kind="shell", command="cat auth.json", result=f"x {LOGIN_SECRET}-abcdef y"),
             Call(index=1, tool="Bash", kind="shell", result=f"...{LOGIN_SECRET}-ab")]
    record = Redactor(secrets=secrets).record(RunRecord(condition="confined", host="codex", target="t",
                                                        kind="positive", calls=calls))
    assert [c.result for c in record.calls] == ["x <login> y", "...<login>"]
