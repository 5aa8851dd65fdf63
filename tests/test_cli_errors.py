"""The CLI's one error boundary, through the REAL `workbench` command of the venv (a subprocess): for
every command, a bad input or a missing file is ONE stderr line naming it, the documented exit code
(2 bad input, 3 aborted), no traceback; `--debug` (before or after the command) adds the traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from batch_support import World, make_world

WORKBENCH = Path(sys.executable).with_name("workbench")
GOOD_LINE = '{"host": "sim", "target": "docs", "kind": "positive"}\n'


def workbench(cwd: Path, *argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if k != "WORKBENCH_DEBUG"} | (env or {})
    return subprocess.run([str(WORKBENCH), *argv], cwd=cwd, env=full, capture_output=True, text=True, check=False)


@dataclass
class Bad:
    """One bad input for one command: how to plant it (returns argv), exit code, what the line names."""

    plant: Callable[[World], list[str]]
    code: int
    names: tuple[str, ...]


def _file(w: World, name: str, text: str) -> Path:
    path = w.ws / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _folder(w: World, name: str) -> str:
    (w.ws / name).mkdir(parents=True, exist_ok=True)
    return name


def _toml(w: World, old: str, new: str) -> None:
    path = w.ws / "workbench.toml"
    path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")


SIM = ["--host", "sim", "--prompt", "fix the readme", "--require", "README.md"]
DELEGATES = '{"steps": [{"calls": [{"agent": {"prompt": "Read README.md.", "steps": [{"say": "ok"}]}}]}]}'

BAD: dict[str, Bad] = {
    "canary: records file is a folder": Bad(lambda w: ["canary", *SIM, "--record", _folder(w, "adir")], 2,
                                            ("adir", "Is a directory")),
    "canary: records device is full": Bad(lambda w: ["canary", *SIM, "--record", "/dev/full"], 3,
                                          ("/dev/full", "No space left on device")),
    "canary: missing script": Bad(lambda w: ["canary", *SIM, "--script", "missing.json"], 2, ("missing.json",)),
    "canary: a delegating script on a host that cannot delegate": Bad(
        lambda w: ["canary", "--host", "grok", "--prompt", "p", "--require", "README.md", "--script",
                   str(_file(w, "delegates.json", DELEGATES))], 2, ("delegates.json", "agent", "grok", "claude")),
    "batch: missing checkout to guard": Bad(
        lambda w: ["batch", "--cases", "all", "--hosts", "sim", "--arms", "A=HEAD", "--record", str(w.record),
                   "--home", str(w.home), "--guard", "missing"], 2, ("--guard", "missing")),
    "summary: missing file": Bad(lambda w: ["summary", "missing.jsonl"], 2, ("missing.jsonl", "No such file")),
    "rescore: not UTF-8 mid-file": Bad(
        lambda w: ["rescore", str(_bytes(w, "bin.jsonl", (GOOD_LINE + "\xff{\n" + GOOD_LINE).encode("latin-1")))], 2,
        ("bin.jsonl:2",)),
    "score: stream is a folder": Bad(lambda w: ["score", _folder(w, "adir"), "--host", "sim", "--require", "a.md",
                                                "--kind", "positive"], 2, ("adir", "Is a directory")),
    "score: unknown host (argparse)": Bad(lambda w: ["score", "s.jsonl", "--host", "nope", "--require", "a.md",
                                                     "--kind", "positive"], 2, ("--host", "invalid choice: 'nope'")),
    "selftest: unknown scenario": Bad(lambda w: ["selftest", "--host", "sim", "--only", "no-such"], 2,
                                      ("--only", "no-such")),
    "postinstall: records file is a folder": Bad(
        lambda w: ["postinstall", "--host", "sim", "--case", "docs-readme-section", "--home", str(w.home),
                   "--record", _folder(w, "adir")], 2, ("adir", "Is a directory")),
    "rows: truncated workspace TOML": Bad(lambda w: (_toml(w, 'hosts = ["sim"]', 'hosts = ["sim"'), ["rows"])[1], 2,
                                          ("workbench.toml",)),
    "lint: plugin folder missing": Bad(lambda w: (_toml(w, 'path = "plugin"', 'path = "gone"'), ["lint"])[1], 2,
                                       ("plugin folder not found", "gone")),
    "audit: workspace names a list field wrongly": Bad(
        lambda w: (_toml(w, 'hosts = ["sim"]', 'hosts = "sim"'), ["audit"])[1], 2, ("workbench.toml:", "hosts")),
    "arm: unknown row": Bad(lambda w: ["arm", "new", "no-such-row", "--text", "x", "--name", "n"], 2,
                            ("no-such-row",)),
    "case: missing records file": Bad(lambda w: ["case", "check", "--records", "missing.jsonl"], 2,
                                      ("missing.jsonl",)),
    "init: missing folder": Bad(lambda w: ["init", "missing-dir"], 2, ("missing-dir",)),
    "hosts: no binary under --dir": Bad(lambda w: ["hosts", "--dir", _folder(w, "no-hosts")], 2, ("no-hosts",)),
    "schema: unknown name": Bad(lambda w: ["schema", "nope"], 2, ("nope",)),
}


def _bytes(w: World, name: str, data: bytes) -> Path:
    path = w.ws / name
    path.write_bytes(data)
    return path


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("workbench: "), done.stderr
    return lines[0]


@pytest.mark.parametrize("name", list(BAD))
def test_bad_input_is_one_line_with_the_documented_exit_code(tmp_path: Path, name: str) -> None:
    w = make_world(tmp_path)
    bad = BAD[name]
    argv = bad.plant(w)
    done = workbench(w.ws, *argv)
    assert "Traceback" not in done.stderr
    assert done.returncode == bad.code, (done.returncode, done.stderr)
    line = one_line(done)
    for part in bad.names:
        assert part in line, (part, line)
    debug = workbench(w.ws, argv[0], "--debug", *argv[1:]) if "argparse" not in name else None
    if debug is not None:
        assert debug.returncode == bad.code
        assert "Traceback (most recent call last)" in debug.stderr
        assert debug.stderr.strip().splitlines()[-1] == line  # the same line, after the traceback


def test_debug_before_the_command_and_from_the_environment(tmp_path: Path) -> None:
    for argv, env in ((["--debug", "summary", "missing.jsonl"], None), (["summary", "missing.jsonl"],
                                                                       {"WORKBENCH_DEBUG": "1"})):
        done = workbench(tmp_path, *argv, env=env)
        assert done.returncode == 2 and "Traceback (most recent call last)" in done.stderr, done.stderr


def test_init_then_canary_in_the_new_workspace_records_the_run(tmp_path: Path) -> None:
    """The issue's case: a workspace from `init` has no records/ folder yet; the canary used to run the
    host and then die with FileNotFoundError (exit 1)."""
    repo = tmp_path / "plugin-repo"
    (repo / "skills" / "ops").mkdir(parents=True)
    (repo / "skills" / "ops" / "SKILL.md").write_text("---\nname: ops\n---\n# ops\n", encoding="utf-8")
    assert workbench(tmp_path, "init", str(repo)).returncode == 0
    done = workbench(repo, "canary", *SIM)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    records = sorted(repo.rglob("canary.jsonl"))
    assert len(records) == 1 and len(records[0].read_text(encoding="utf-8").splitlines()) == 1
