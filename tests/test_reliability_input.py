"""Bad input through the real CLI (`python -m workbench ...` as a subprocess): every bad file or option
gets ONE line on stderr naming file, line and field (or the missing thing), exit 2, no traceback, and
no records file is created or changed. Junk in a host stream is skipped and counted, never fatal; a
50 MB line is cut while reading (MAX_LINE) so memory stays bounded."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from batch_support import World, make_world

from workbench.core.parsers.common import MAX_LINE

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = {"steps": [{"calls": [{"read": "{repo}/README.md"}]}, {"say": "done"}]}


def workbench(cwd: Path, *argv: str, env: dict[str, str] | None = None,
              stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run([sys.executable, "-m", "workbench", *argv], cwd=cwd, env=full, capture_output=True,
                          text=True, check=False, input=stdin.decode() if stdin is not None else None)


def assert_one_line_error(done: subprocess.CompletedProcess[str], *names: str) -> None:
    assert done.returncode == 2, (done.returncode, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("workbench: "), done.stderr
    for name in names:
        assert name in lines[0], (name, lines[0])


@dataclass
class Bad:
    """One bad input: how to plant it, the argv, and what the error line must name."""

    plant: Callable[[World], list[str]]
    names: tuple[str, ...]
    env: Callable[[World], dict[str, str]] | None = None


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _batch(w: World, *extra: str) -> list[str]:
    return ["batch", "--cases", "all", "--hosts", "sim", "--arms", "A=HEAD", "--record", str(w.record),
            "--home", str(w.home), *extra]


def _case(w: World, body: str) -> list[str]:
    _write(w.ws / "cases" / "bad.toml", body)
    return _batch(w)


def _script(w: World, name: str, text: str) -> list[str]:
    return _batch(w, "--script", str(_write(w.ws / name, text)))


def _records(w: World, text: str) -> list[str]:
    return ["summary", str(_write(w.ws / "old.jsonl", text))]


GOOD_LINE = json.dumps({"host": "sim", "target": "docs", "kind": "positive"})

BAD: dict[str, Bad] = {
    "case: wrong type": Bad(lambda w: _case(w, 'target = "docs"\nkind = "positive"\nprompt = "p"\nrequired = 5\n'),
                            ("bad.toml:4", "required")),
    "case: truncated TOML": Bad(lambda w: _case(w, 'target = "docs"\nkind = "positive"\nprompt = "unterminated\n'),
                                ("bad.toml:3",)),
    "case: unknown kind": Bad(lambda w: _case(w, 'target = "d"\nkind = "maybe"\nprompt = "p"\n'),
                              ("bad.toml:2", "kind")),
    "case: invalid regex in the moment": Bad(
        lambda w: _case(w, 'target = "d"\nkind = "positive"\nprompt = "p"\nrequired = ["a.md"]\nmoment = "bash:(["\n'),
        ("bad.toml:5", "moment")),
    "case: binary garbage": Bad(lambda w: _case(w, "\x00\x01\xff garbage = = \n"), ("bad.toml",)),
    "score: invalid regex in --moment": Bad(
        lambda w: ["score", str(_write(w.ws / "s.jsonl", "{}\n")), "--host", "sim", "--require", "a.md", "--kind",
                   "positive", "--moment", "tool:(["], ("moment", "bad regex")),
    "script JSON: wrong type": Bad(lambda w: _script(w, "s.json", json.dumps({"steps": [{"calls": [{"read": 5}]}]})),
                                   ("s.json", "steps[0].calls[0].read")),
    "script JSON: truncated": Bad(lambda w: _script(w, "s.json", '{"steps": [\n{"calls": '), ("s.json:2",)),
    "script TOML: wrong type": Bad(lambda w: _script(w, "s.toml", "[[steps]]\nsay = 3\n"), ("s.toml", "steps[0].say")),
    "workspace: wrong type": Bad(
        lambda w: (_write(w.ws / "workbench.toml", (w.ws / "workbench.toml").read_text().replace(
            'hosts = ["sim"]', 'hosts = "sim"')), ["rows"])[1], ("workbench.toml:", "hosts")),
    "workspace: unknown key": Bad(
        lambda w: (_write(w.ws / "workbench.toml", "bogus = 1\n" + (w.ws / "workbench.toml").read_text()),
                   ["rows"])[1], ("workbench.toml:1", "bogus")),
    "records: wrong type mid-file": Bad(
        lambda w: _records(w, GOOD_LINE + "\n" + GOOD_LINE.replace('"positive"', '"sideways"') + "\n" + GOOD_LINE
                           + "\n"), ("old.jsonl:2", "kind")),
    "records: binary garbage mid-file": Bad(lambda w: _records(w, GOOD_LINE + "\n\x00\xff\xfe{{\n" + GOOD_LINE + "\n"),
                                            ("old.jsonl:2", "invalid JSON")),
    "records: not an object": Bad(lambda w: _records(w, "[1, 2]\n" + GOOD_LINE + "\n"), ("old.jsonl:1", "object")),
    "unknown host": Bad(lambda w: _batch(w)[:4] + ["sim,nope"] + _batch(w)[5:], ("--hosts", "nope")),
    "missing host binary": Bad(lambda w: _script(w, "s.json", json.dumps(SCRIPT))[:4] + ["codex"]
                               + _script(w, "s.json", json.dumps(SCRIPT))[5:], ("codex", "hosts install"),
                               env=lambda w: {"WORKBENCH_HOSTS_DIR": str(w.ws / "no-hosts")}),
    "ref that does not exist": Bad(lambda w: [a if a != "A=HEAD" else "A=no-such-ref" for a in _batch(w)],
                                   ("--arms", "no-such-ref")),
    "plugin repo that is not a git repo": Bad(lambda w: (shutil.rmtree(w.ws / ".git"), _batch(w))[1],
                                              ("plugin", "not inside a git repo")),
}


@pytest.mark.parametrize("name", list(BAD))
def test_bad_input_is_one_line_exit_2_and_nothing_written(tmp_path: Path, name: str) -> None:
    w = make_world(tmp_path)
    bad = BAD[name]
    argv = bad.plant(w)
    before = {p: p.read_bytes() for p in w.ws.rglob("*.jsonl")}
    done = workbench(w.ws, *argv, env=bad.env(w) if bad.env else None)
    assert "Traceback" not in done.stderr
    assert_one_line_error(done, *bad.names)
    assert not w.record.exists()
    assert {p: p.read_bytes() for p in w.ws.rglob("*.jsonl")} == before  # nothing half-written


def test_unknown_host_for_score_is_one_argparse_error(tmp_path: Path) -> None:
    stream = _write(tmp_path / "s.jsonl", "{}\n")
    done = workbench(tmp_path, "score", str(stream), "--host", "nope", "--require", "a", "--kind", "positive")
    assert done.returncode == 2 and "invalid choice: 'nope'" in done.stderr and "Traceback" not in done.stderr


JUNK = {
    "truncated": '{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Read"',
    "binary": "\x00\x01\x02\xff\xfe garbage \x1b[31m",
    "wrong types": '{"type": 5, "message": [1, 2]}',
    "not an object": "[1, 2, 3]",
}


@pytest.mark.parametrize("host", ["claude", "codex", "gemini", "opencode", "grok", "sim"])
def test_junk_stream_lines_are_skipped_and_counted(tmp_path: Path, host: str) -> None:
    stream = tmp_path / "s.jsonl"
    stream.write_bytes(("\n".join(JUNK.values()) + "\n").encode("utf-8", errors="surrogateescape") + b"\xc3\x28\n")
    done = workbench(tmp_path, "score", str(stream), "--host", host, "--require", "a.md", "--kind", "positive",
                     "--json")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip().splitlines() == [f"workbench: skipped {len(JUNK) + 1} unparsable line(s) in {stream}"]
    payload = json.loads(done.stdout)
    assert payload["valid"] is False and payload["calls"] == []


def test_a_50_mb_line_is_cut_while_reading_and_memory_stays_bounded(tmp_path: Path) -> None:
    """The line is many small JSON objects: decoding it whole would take gigabytes of Python objects."""
    item = '{"type":"text","text":"x"},'
    body = item * (50 * 1024 * 1024 // len(item))
    line = '{"type":"assistant","message":{"content":[' + body + '{"type":"text","text":"end"}]}}'
    assert len(line) > 50 * 1024 * 1024 > MAX_LINE
    stream = tmp_path / "big.jsonl"
    read = '{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Read",' \
           '"input":{"file_path":"/r/a.md"}}]}}'
    stream.write_text(line + "\n" + read + "\n", encoding="utf-8")
    argv = ["score", str(stream), "--host", "claude", "--require", "a.md", "--kind", "positive", "--json"]
    done = workbench(tmp_path, *argv)
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == f"workbench: skipped 1 unparsable line(s) in {stream}"
    payload = json.loads(done.stdout)
    assert [c["path"] for c in payload["calls"]] == ["/r/a.md"]  # the line after the giant one still counts
    peak = _peak_rss_kib(argv)
    assert peak < 200 * 1024, f"peak RSS {peak // 1024} MiB for a 50 MB line"


def _peak_rss_kib(argv: list[str]) -> int:
    """Peak resident memory (VmHWM, KiB) of `workbench ARGV` in a fresh interpreter, read by that process
    itself: rusage of a child forked from this big test process would count this process's pages."""
    code = ("import sys\nfrom workbench.cli import main\ncode = main(sys.argv[1:])\n"
            "hwm = open('/proc/self/status').read().split('VmHWM:')[1].split()[0]\n"
            "sys.stderr.write(f'VmHWM {hwm}\\n')\nsys.exit(code)")
    done = subprocess.run([sys.executable, "-c", code, *argv], env={**os.environ, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return int(done.stderr.strip().splitlines()[-1].split()[1])


def test_a_50_mb_line_from_a_live_host_is_cut_by_the_runner(tmp_path: Path) -> None:
    from workbench.runner.process import run_process

    code = f"import sys\nsys.stdout.write('y' * {60 * 1024 * 1024} + '\\n' + 'after\\n')"
    seen: list[int] = []
    result = run_process([sys.executable, "-c", code], env=dict(os.environ), cwd=tmp_path,
                         stdout_path=tmp_path / "out", stderr_path=tmp_path / "err",
                         on_line=lambda line: seen.append(len(line)), timeout=120)
    assert result.exit_code == 0 and result.timed_out is None
    assert seen == [MAX_LINE + 1, len("after")]  # cut, then the next line intact
    assert (tmp_path / "out").stat().st_size == MAX_LINE + 2 + len("after\n")
