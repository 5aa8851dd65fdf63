"""`workbench postinstall`: one run on the live install (here a fake live HOME), guard over the real checkouts."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from batch_support import World, make_world

from workbench.core.records import load_file
from workbench.hosts.install import find_binary

ROOT = Path(__file__).resolve().parent.parent


def _postinstall(w: World, host: str, shell: str, *extra: str) -> subprocess.CompletedProcess[str]:
    script = w.ws.parent / "script.json"
    script.write_text(json.dumps({"steps": [{"calls": [{"shell": shell}]}, {"say": "done"}]}))
    argv = [sys.executable, "-m", "workbench", "postinstall", "--host", host, "--case", "docs-readme-section",
            "--script", str(script), "--home", str(w.home), "--record", str(w.record), *extra]
    return subprocess.run(argv, cwd=w.ws, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True,
                          text=True, check=False, timeout=300)


def test_live_run_uses_the_real_home_and_records_live_install(tmp_path: Path) -> None:
    w = make_world(tmp_path)
    done = _postinstall(w, "sim", "echo $HOME > seen-home.txt; cat seen-home.txt")
    assert done.returncode == 0, done.stderr
    [record] = load_file(w.record).records
    assert record.condition == "live-install" and record.valid and record.host == "sim"
    shell = [c for c in record.calls if c.kind == "shell"][0]
    assert shell.result is not None and shell.result.strip() == "~"  # the live HOME, anonymized as ~


def test_guard_catches_an_unconfined_live_run_editing_a_checkout(tmp_path: Path) -> None:
    w = make_world(tmp_path)
    done = _postinstall(w, "sim", f"echo escaped >> {w.ws}/tracked.txt", "--unconfined")
    assert done.returncode == 3 and "tracked.txt" in done.stderr
    assert "WARNING: running UNCONFINED (postinstall)" in done.stderr
    [record] = load_file(w.record).records
    assert not record.valid and record.invalid_reason == "guard"
    assert record.condition == "unconfined" and record.unconfined_reason == "--unconfined given (postinstall)"


def test_guard_catches_an_unconfined_live_config_change(tmp_path: Path) -> None:
    w = make_world(tmp_path)
    done = _postinstall(w, "sim", f"echo '{{\"x\": 1}}' > {w.home}/.claude/settings.json", "--unconfined")
    assert done.returncode == 3 and "live config changed" in done.stderr


def test_confined_live_run_cannot_edit_a_checkout_or_the_live_config(tmp_path: Path) -> None:
    w = make_world(tmp_path)
    settings = w.home / ".claude" / "settings.json"
    before = ((w.ws / "tracked.txt").read_bytes(), settings.read_bytes())
    done = _postinstall(w, "sim", f"echo escaped >> {w.ws}/tracked.txt; echo x > {settings}; cat {settings}")
    assert done.returncode == 0, done.stderr
    assert ((w.ws / "tracked.txt").read_bytes(), settings.read_bytes()) == before  # judged from outside
    [record] = load_file(w.record).records
    assert record.condition == "live-install" and record.unconfined_reason is None and record.guard is None
    shell = [c for c in record.calls if c.kind == "shell"][0]
    assert shell.result is not None and "Read-only file system" in shell.result and "{}" in shell.result


def test_live_claude_on_the_scripted_server(tmp_path: Path, installed_hosts: Path) -> None:
    w = make_world(tmp_path)
    binary = find_binary("claude", installed_hosts)
    assert binary is not None
    shutil.copytree(w.ws / "plugin" / "skills" / "ops", w.home / ".claude" / "skills" / "ops")  # installed
    state = w.home / ".claude.json"
    state.write_text(json.dumps({"numStartups": 1}), encoding="utf-8")
    done = _postinstall(w, "claude", "cat README.md", "--binary", str(binary))
    assert done.returncode == 0, done.stderr
    [record] = load_file(w.record).records
    assert record.condition == "live-install" and record.host == "claude" and record.valid
    assert json.loads(state.read_text()) == {"numStartups": 1} and record.login_files_changed == []  # read-only
    assert any((w.home / ".claude" / "projects").rglob("*.jsonl"))  # the live HOME was used: its session log


def test_live_claude_without_the_plugin_installed_is_not_offered(tmp_path: Path, installed_hosts: Path) -> None:
    """The live install that lacks the row's Skill never offered it: invalid `not-offered`, never a miss."""
    w = make_world(tmp_path)
    binary = find_binary("claude", installed_hosts)
    assert binary is not None
    done = _postinstall(w, "claude", "cat README.md", "--binary", str(binary))
    assert done.returncode == 0, done.stderr
    [record] = load_file(w.record).records
    assert not record.valid and record.invalid_reason == "not-offered" and record.offered == {"docs": False}
