"""The REAL host CLIs (pinned, installed by the session fixture) against the scripted model server.

Every run happens in its own tmp_path (repo, temp HOME, bin dir), talks only to 127.0.0.1, and is
checked against the script's ground truth: the parsed calls and the file on disk.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import make_repo

from workbench.core.fingerprints import content_evidence
from workbench.core.models import ScoreSpec
from workbench.core.parsers import parse_lines
from workbench.core.scoring import score
from workbench.hosts import REAL_HOSTS
from workbench.hosts.base import Launch
from workbench.hosts.install import find_binary
from workbench.modelstub import Fault, parse_script
from workbench.runner import HostRun, run_host
from workbench.runner.procedures import load_procedures

BASIC = parse_script({"steps": [
    {"calls": [{"read": "{repo}/notes.txt"}]},
    {"calls": [{"shell": "cat README.md; ls missing"}]},
    {"calls": [{"edit": {"path": "{repo}/notes.txt", "old": "status: todo", "new": "status: done"}}]},
    {"say": "Done."},
]})

# (tool, kind, status) per host for BASIC. Codex reads with `cat` (it has no read tool); a shell
# with a non-zero exit is "error" except on Gemini, which reports success without an exit code.
# Grok returns only stderr for a failed command, so the `cat README.md` output never reached the model.
EXPECTED = {
    "claude": [("Read", "read", "ok"), ("Bash", "shell", "error"), ("Edit", "edit", "ok")],
    "codex": [("exec_command", "shell", "ok"), ("exec_command", "shell", "error"), ("apply_patch", "edit", "ok")],
    "opencode": [("read", "read", "ok"), ("bash", "shell", "error"), ("edit", "edit", "ok")],
    "gemini": [("read_file", "read", "ok"), ("run_shell_command", "shell", "ok"), ("replace", "edit", "ok")],
    "grok": [("view_file", "read", "ok"), ("bash", "shell", "error"), ("str_replace_editor", "edit", "ok")],
}
UNREAD = {"grok": ["missing", "README.md"]}
"""What BASIC's shell call left unread, where it is more than `missing`."""
PINNED_VERSION = {"claude": "2.1.197", "codex": "0.171.0", "opencode": "1.18.33", "gemini": "0.61.0",
                  "grok": "0.0.34 (@vibe-kit/grok-cli)"}


def run(host: str, root: Path, hosts_dir: Path, script=BASIC, **kw) -> HostRun:  # type: ignore[no-untyped-def]
    binary = find_binary(host, hosts_dir)
    assert binary is not None, f"{host} not installed under {hosts_dir}"
    repo = root / "repo" if (root / "repo").exists() else make_repo(root)
    return run_host(host, "Mark the notes as done.", repo, root, script=script, binary=binary,
                    timeout=kw.pop("timeout", 90.0), **kw)


@pytest.mark.parametrize("host", REAL_HOSTS)
def test_read_shell_edit(host: str, tmp_path: Path, installed_hosts: Path) -> None:
    seen: list[object] = []
    result = run(host, tmp_path, installed_hosts, on_event=seen.append)
    got = [(c.tool, c.kind, c.status) for c in result.parsed.calls]
    assert got == EXPECTED[host], (got, result.stderr_path.read_text()[-2000:])
    shell = result.parsed.calls[1]
    assert shell.command is not None and shell.command.endswith("cat README.md; ls missing")
    assert shell.unreadable == UNREAD.get(host, ["missing"])  # elsewhere README.md was read; only `missing` failed
    assert (tmp_path / "repo" / "notes.txt").read_text() == "status: done\n"
    assert result.exit_code == 0 and result.timed_out is None
    assert result.parsed.model_output and result.server_errors == []
    assert result.host_version is not None and PINNED_VERSION[host] in result.host_version
    assert result.served_model
    assert seen, "events are passed on live"
    if host == "codex":
        assert result.session_log is not None and result.session_log.is_relative_to(tmp_path)


def test_claude_read_outside_is_denied(tmp_path: Path, installed_hosts: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret\n")
    script = parse_script({"steps": [{"calls": [{"read": "{outside}/secret.txt"}]},
                                     {"calls": [{"read": "{repo}/notes.txt"}]}, {"say": "Done."}]})
    result = run("claude", tmp_path, installed_hosts, script=script)
    got = [(c.kind, c.status, Path(c.path or "").name) for c in result.parsed.calls]
    assert got == [("read", "denied", "secret.txt"), ("read", "ok", "notes.txt")]


def test_claude_529_forever_gives_no_model_output(tmp_path: Path, installed_hosts: Path) -> None:
    # CLAUDE_CODE_MAX_RETRIES=1 keeps its backoff (~70 s at the default) out of the test; the outcome is the same:
    # a synthetic "API Error" assistant message that must not count as model text.
    result = run("claude", tmp_path, installed_hosts, faults=[Fault("status", status=529)],
                 extra_env={"CLAUDE_CODE_MAX_RETRIES": "1"})
    assert result.exit_code == 1 and result.timed_out is None
    assert not result.parsed.model_output
    assert result.parsed.ended is not None and result.parsed.ended.is_error
    assert "529" in (result.parsed.ended.error or "")


def test_codex_529_gives_no_model_output(tmp_path: Path, installed_hosts: Path) -> None:
    result = run("codex", tmp_path, installed_hosts, faults=[Fault("status", status=529)])  # retries are 0
    assert result.exit_code != 0 and result.timed_out is None
    assert not result.parsed.model_output
    assert result.parsed.ended is not None and result.parsed.ended.is_error


def test_gemini_non_retryable_error_gives_no_model_output(tmp_path: Path, installed_hosts: Path) -> None:
    # Gemini retries a 529 for ~4 minutes; a 400 is not retried, so this is the fast way to its error exit.
    result = run("gemini", tmp_path, installed_hosts, faults=[Fault("status", status=400)])
    assert result.exit_code not in (0, None) and result.timed_out is None
    assert not result.parsed.model_output
    assert result.parsed.ended is not None and result.parsed.ended.is_error


@pytest.mark.parametrize("host", ["opencode", "gemini"])
def test_retrying_host_is_stopped_by_the_watchdog(host: str, tmp_path: Path, installed_hosts: Path) -> None:
    # OpenCode retries every model error (even a 400) ~8 times over ~75 s, Gemini a 529 for ~4 min:
    # a short run timeout ends them; the run says which watchdog fired and has no model output.
    result = run(host, tmp_path, installed_hosts, faults=[Fault("status", status=529)], timeout=15.0)
    assert result.timed_out == "total"
    assert not result.parsed.model_output
    assert any(entry["fault"] == "status" for entry in result.offered), "the host did reach the model server"


PARALLEL = parse_script({"steps": [
    {"calls": [{"read": "{repo}/notes.txt"}]},
    {"calls": [{"read": "{plugin}/procedures/testing.md"},
               {"edit": {"path": "{repo}/notes.txt", "old": "status: todo", "new": "status: done"}}]},
    {"say": "Done."},
]})
CONTENT = parse_script({"steps": [
    {"calls": [{"read": "{repo}/notes.txt"}]},
    {"calls": [{"shell": "python3 -c \"import sys; print(open(sys.argv[1]).read())\" {plugin}/procedures/testing.md"}]},
    {"calls": [{"shell": "cat procedures/writing.md 2>/dev/null || echo 'no local copy'"}]},
    {"calls": [{"edit": {"path": "{repo}/notes.txt", "old": "status: todo", "new": "status: done"}}]},
    {"say": "Done."},
]})
EVIDENCE_PLUGIN = Path(__file__).parent / "data" / "streams" / "evidence-plugin"


def evidence_run(host: str, root: Path, hosts_dir: Path, script) -> HostRun:  # type: ignore[no-untyped-def]
    plugin = root / "plugin"
    shutil.copytree(EVIDENCE_PLUGIN, plugin)
    if host == "claude":  # its -p mode refuses a Bash it was not allowed
        (root / "home" / ".claude").mkdir(parents=True)
        (root / "home" / ".claude" / "settings.json").write_text('{"permissions": {"allow": ["Bash"]}}')
    return run(host, root, hosts_dir, script=script, plugin=plugin, add_dirs=[plugin])


@pytest.mark.parametrize("host", REAL_HOSTS)
def test_same_turn_read_and_edit_is_one_turn_in_issue_order(host: str, tmp_path: Path, installed_hosts: Path) -> None:
    calls = evidence_run(host, tmp_path, installed_hosts, PARALLEL).parsed.calls
    assert [Path(c.path or (c.command or "").split()[-1]).name for c in calls] == ["notes.txt", "testing.md", "notes.txt"]
    assert [c.turn for c in calls] == [0, 1, 1]
    result = score(ScoreSpec(kind="positive", required=["procedures/testing.md"]), calls)
    assert result.order_basis == "turn" and result.verdicts == {"procedures/testing.md": "skip"}


@pytest.mark.parametrize("host", REAL_HOSTS)
def test_content_evidence_of_a_live_run(host: str, tmp_path: Path, installed_hosts: Path) -> None:
    calls = evidence_run(host, tmp_path, installed_hosts, CONTENT).parsed.calls
    checked = content_evidence(calls, load_procedures(tmp_path / "plugin"))
    assert [c.evidence for c in checked] == [{}, {"procedures/testing.md": "shown"},
                                             {"procedures/writing.md": "absent"}, {}]
    result = score(ScoreSpec(kind="positive", required=["testing.md", "writing.md"]), checked)
    assert result.verdicts == {"testing.md": "fired", "writing.md": "skip"}


def test_grok_api_error_is_no_model_output(tmp_path: Path, installed_hosts: Path) -> None:
    """Grok CLI prints an apology and exits 0 on a model API error, dropping the calls it had run."""
    result = run("grok", tmp_path, installed_hosts, faults=[Fault("status", status=500, step=1)])
    assert result.exit_code == 0 and result.timed_out is None
    assert [e["turn"] for e in result.offered if e["scripted"]][0] == 0  # turn 0 was answered (and its call ran)
    assert not result.parsed.model_output and result.parsed.calls == []
    assert result.parsed.ended is not None and result.parsed.ended.is_error
    assert "500" in (result.parsed.ended.error or "")


def test_grok_leaves_its_home_empty_and_reads_no_repo_env(tmp_path: Path, installed_hosts: Path) -> None:
    repo = make_repo(tmp_path)
    (repo / ".env").write_text("GROK_BASE_URL=http://127.0.0.1:9/v1\nMORPH_API_KEY=from-repo\n")
    result = run("grok", tmp_path, installed_hosts)
    assert [c.status for c in result.parsed.calls] == ["ok", "error", "ok"]
    assert "edit_file" not in result.offered_tools  # MORPH_API_KEY from the repo's .env would add it
    assert list((tmp_path / "home").iterdir()) == []  # no ~/.grok/user-settings.json without -u/-k


PATHLESS = parse_script({"steps": [
    {"calls": [{"shell": "cat missing/index.md"}]},
    {"calls": [{"shell": "git commit --allow-empty -m x"}]},
    {"say": "Done."},
]})
GIT_ID = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
          "GIT_COMMITTER_EMAIL": "t@example.com"}


def pathless_cat(home: Path) -> None:
    """A `cat` in the temp HOME that drops the path from its error (`No such file or directory` alone):
    the one fake part, for an error real cat never prints. Codex's login shell finds it on PATH,
    Claude's shell snapshot keeps the function."""
    (home / "bin").mkdir(parents=True)
    shim = home / "bin" / "cat"
    shim.write_text('#!/bin/sh\n/usr/bin/cat "$@" 2>/dev/null && exit 0\ncode=$?\n'
                    'echo "No such file or directory" >&2\nexit $code\n')
    shim.chmod(0o755)
    (home / ".bash_profile").write_text('export PATH="$HOME/bin:$PATH"\n. ~/.bashrc\n')
    (home / ".bashrc").write_text('cat() { "$HOME/bin/cat" "$@"; }\n')


@pytest.mark.parametrize("host", ["claude", "codex"])
def test_a_pathless_read_error_is_not_a_read(host: str, tmp_path: Path, installed_hosts: Path) -> None:
    pathless_cat(tmp_path / "home")
    if host == "claude":
        (tmp_path / "home" / ".claude").mkdir()
        (tmp_path / "home" / ".claude" / "settings.json").write_text('{"permissions": {"allow": ["Bash"]}}')
    result = run(host, tmp_path, installed_hosts, script=PATHLESS, extra_env={"SHELL": "/bin/bash", **GIT_ID})
    cat = result.parsed.calls[0]
    assert (cat.command, cat.exit_code, cat.unreadable) == ("cat missing/index.md", 1, ["missing/index.md"])
    assert cat.output is not None and "missing" not in cat.output, "the shim's error names no path"
    spec = ScoreSpec(kind="positive", required=["missing/index.md"], moment=r"bash:\bgit\b[^|;&]*\bcommit\b")
    scored = score(spec, result.parsed.calls, model_output=result.parsed.model_output)
    assert (scored.moment_at, scored.verdicts) == (1, {"missing/index.md": "skip"})


def resume_last(launch: Launch) -> Launch:
    """The same Codex launch as `codex exec resume --last` (it takes no `-s`: the sandbox is a config override)."""
    argv = list(launch.argv)
    at = argv.index("exec")
    options = [a for a in argv[at + 1:-1] if a not in ("-s", "workspace-write")]
    argv[at + 1:-1] = ["resume", "--last", *options, "-c", 'sandbox_mode="workspace-write"']
    return replace(launch, argv=argv)


def test_a_resumed_codex_process_keeps_its_own_items(tmp_path: Path, installed_hosts: Path) -> None:
    """Two `codex exec` processes on one CODEX_HOME: their --json streams one after the other, as a
    wrapper running both prints them, and the one rollout both append to."""
    plugin = tmp_path / "plugin"
    (plugin / "procedures" / "version-control").mkdir(parents=True)
    (plugin / "procedures" / "version-control" / "index.md").write_text("# Version control\n\nSay why.\n")
    read = {"calls": [{"shell": "cat {plugin}/procedures/version-control/index.md"}]}
    first = run("codex", tmp_path, installed_hosts, script=parse_script({"steps": [read, {"say": "Read."}]}),
                plugin=plugin)
    stream = first.stdout_path.read_text().splitlines()
    # the resumed request holds the first process's two model turns: it is answered with step 2
    commit = parse_script({"steps": [read, read, {"calls": [{"shell": "git commit --allow-empty -m x"}]},
                                     {"say": "Committed."}]})
    second = run("codex", tmp_path, installed_hosts, script=commit, plugin=plugin, wrap=resume_last)
    assert second.exit_code == 0 and second.session_log == first.session_log, "resume appends to the rollout"
    stream += second.stdout_path.read_text().splitlines()
    calls = parse_lines("codex", stream, second.session_log.read_text().splitlines()).calls
    assert [(c.command, c.status, c.turn) for c in calls] == [
        (f"cat {plugin}/procedures/version-control/index.md", "ok", 0),
        ("git commit --allow-empty -m x", "error", 1)]  # .git is read-only in Codex's sandbox
    # the second process's first item is its own call (`item_0#2`, or the rollout's call id once matched)
    assert calls[0].call_id == "item_0" and calls[1].call_id not in (None, "item_0")
    spec = ScoreSpec(kind="positive", required=["version-control/index.md"], moment=r"bash:\bgit\b[^|;&]*\bcommit\b")
    assert score(spec, calls).verdicts == {"version-control/index.md": "fired"}
