"""Red team, work done OUTSIDE the sandbox on what a run or a case shaped: git, fixtures, rollouts.

Every attack is judged from outside: a planted fsmonitor or hook writes a marker file, and the test
looks for the marker; a link out of a fixture must not bring its target's bytes in; a rollout that
is a link or a FIFO must neither be followed nor hang the reader. Each plant has a control showing
that it does fire when git is run the ordinary way."""

from __future__ import annotations

import os
import subprocess
import threading
from pathlib import Path

import git
import pytest
from batch_support import SECRET, make_world

from workbench.core.cases import load_case
from workbench.core.errors import InputError
from workbench.core.models import Case
from workbench.runner.fixture import make_fixture
from workbench.runner.guard import Guard
from workbench.runner.hostrun import _rollout


def plant_config(config: Path, marker: Path) -> None:
    """A git config whose fsmonitor and pre-commit hook each write MARKER (outside any sandbox)."""
    hooks = config.parent / "planted-hooks"
    hooks.mkdir(exist_ok=True)
    for hook in ("pre-commit", "post-checkout", "post-commit"):
        (hooks / hook).write_text(f"#!/bin/sh\necho {hook} >> {marker}\n")
        (hooks / hook).chmod(0o755)
    monitor = config.parent / "planted-fsmonitor"
    monitor.write_text(f"#!/bin/sh\necho fsmonitor >> {marker}\n")
    monitor.chmod(0o755)
    with config.open("a") as fh:
        fh.write(f"[core]\n\tfsmonitor = {monitor}\n\thooksPath = {hooks}\n")


def test_guard_never_runs_a_planted_fsmonitor_or_hook(tmp_path: Path) -> None:
    w = make_world(tmp_path)
    marker = tmp_path / "marker"
    plant_config(w.ws / ".git" / "config", marker)
    guard = Guard.for_home(w.home, [w.ws])
    before = guard.snapshot()
    assert guard.changes(before) == []
    assert not marker.exists(), marker.read_text()
    subprocess.run(["git", "-C", str(w.ws), "status"], capture_output=True, check=False)  # the control
    assert "fsmonitor" in marker.read_text()


def test_fixture_git_ignores_a_planted_global_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    marker = tmp_path / "marker"
    config = tmp_path / "gitconfig"
    plant_config(config, marker)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    case = Case(id="c", target="t", kind="positive", prompt="p on feature/x", required=["a.md"],
                extra_files={"a.md": "a\n"}, branches=[{"name": "feature/x", "files": {"b.md": "b\n"}}])
    make_fixture(tmp_path / "repo", case, files={"README.md": "r\n"})
    assert not marker.exists(), marker.read_text()
    control = tmp_path / "control"
    git.Repo.init(control)
    (control / "f").write_text("f")
    subprocess.run(["git", "-C", str(control), "add", "f"], check=True)
    subprocess.run(["git", "-C", str(control), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c"],
                   check=False, capture_output=True)
    assert "pre-commit" in marker.read_text()


@pytest.mark.parametrize("rel", [".git/config", ".GIT/hooks/pre-commit", "sub/.git/config"])
def test_case_extra_files_may_not_write_git_internals(tmp_path: Path, rel: str) -> None:
    path = tmp_path / "c.toml"
    path.write_text(f'id = "c"\ntarget = "t"\nkind = "positive"\nprompt = "p"\nrequired = ["a.md"]\n\n'
                    f'[extra_files]\n"{rel}" = "[core]\\nfsmonitor = touch {tmp_path}/pwned"\n')
    with pytest.raises(InputError) as err:
        load_case(path)
    assert "inside .git" in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(InputError):  # and the fixture refuses it on its own
        make_fixture(tmp_path / "repo", Case.model_construct(id="c", target="t", kind="positive", prompt="p",
                                                             required=[], moment="edit", extra_files={rel: "x"},
                                                             branches=[], exceptions=[]))
    assert not (tmp_path / "pwned").exists()


def test_fixture_copy_refuses_a_link_out_of_the_tree(tmp_path: Path) -> None:
    w = make_world(tmp_path)
    base = tmp_path / "base"
    (base / "docs").mkdir(parents=True)
    (base / "docs" / "a.md").write_text("a\n")
    (base / "inner-link.md").symlink_to("docs/a.md")
    make_fixture(tmp_path / "ok", base=base)
    assert os.readlink(tmp_path / "ok" / "inner-link.md") == "docs/a.md"  # kept as a link, not a copy
    (base / "leak.md").symlink_to(w.home / "secret.txt")
    with pytest.raises(InputError) as err:
        make_fixture(tmp_path / "bad", base=base)
    assert "leak.md" in str(err.value)
    leaked = [p for p in (tmp_path / "bad").rglob("*") if p.is_file() and SECRET in p.read_text(errors="replace")]
    assert not leaked


def test_guard_sees_ignored_files_git_config_hooks_and_refs(tmp_path: Path) -> None:
    w = make_world(tmp_path)
    (w.ws / "old.log").write_text("one\n")
    guard = Guard.for_home(w.home, [w.ws])
    before = guard.snapshot()
    (w.ws / "old.log").write_text("two\n")  # an IGNORED file changed
    assert any("old.log" in c for c in guard.changes(before))
    before = guard.snapshot()
    (w.ws / ".git" / "hooks" / "pre-commit").write_text("#!/bin/sh\n")
    assert any("hooks" in c for c in guard.changes(before))
    before = guard.snapshot()
    with (w.ws / ".git" / "config").open("a") as fh:
        fh.write("[alias]\n\tst = !touch /tmp/x\n")
    assert any("config" in c for c in guard.changes(before))
    before = guard.snapshot()
    subprocess.run(["git", "-C", str(w.ws), "branch", "planted"], check=True)
    assert any("refs" in c for c in guard.changes(before))


def _codex_home(tmp_path: Path) -> tuple[Path, Path]:
    run_dir = tmp_path / "run"
    sessions = run_dir / "home" / ".codex" / "sessions" / "2026"
    sessions.mkdir(parents=True)
    return run_dir, run_dir / "home" / ".codex"


def test_rollout_read_refuses_links(tmp_path: Path) -> None:
    run_dir, codex_home = _codex_home(tmp_path)
    other = tmp_path / "real-sessions"
    other.mkdir()
    (other / "rollout-other.jsonl").write_text(f'{{"secret": "{SECRET}"}}\n')
    (codex_home / "sessions" / "2026" / "rollout-link.jsonl").symlink_to(other / "rollout-other.jsonl")
    assert _rollout(run_dir, codex_home) is None
    (codex_home / "sessions" / "2026" / "rollout-link.jsonl").unlink()
    (codex_home / "sessions" / "2026").rmdir()
    (codex_home / "sessions" / "2026").symlink_to(other)  # a linked folder on the way
    assert _rollout(run_dir, codex_home) is None
    (codex_home / "sessions" / "2026").unlink()
    (codex_home / "sessions").rmdir()
    (codex_home / "sessions").symlink_to(other)
    assert _rollout(run_dir, codex_home) is None
    (codex_home / "sessions").unlink()
    (codex_home / "sessions").mkdir()
    (codex_home / "sessions" / "rollout-ok.jsonl").write_text('{"ok": 1}\n')
    found = _rollout(run_dir, codex_home)
    assert found is not None and found[1] == ['{"ok": 1}']  # the control: a plain file is read


def test_rollout_fifo_does_not_hang_the_reader(tmp_path: Path) -> None:
    run_dir, codex_home = _codex_home(tmp_path)
    os.mkfifo(codex_home / "sessions" / "2026" / "rollout-fifo.jsonl")
    out: list[object] = []
    reader = threading.Thread(target=lambda: out.append(_rollout(run_dir, codex_home)), daemon=True)
    reader.start()
    reader.join(60)  # a liveness bound, not a timing: a blocked open would never return
    assert not reader.is_alive() and out == [None]


def test_codex_rollout_link_and_fifo_planted_by_the_agent(tmp_path: Path, installed_hosts: Path) -> None:
    """Real Codex: its shell plants a newer rollout that is a FIFO and one that links to a secret in the
    real home (dangling inside, live outside). The batch ends, and the secret is in no record."""
    from redteam_support import capturing, host_config, shell_script

    from workbench.core.records import load_file
    from workbench.runner.batch import run_batch

    w = make_world(tmp_path)
    plant = (f'S=$CODEX_HOME/sessions; mkdir -p $S; mkfifo $S/rollout-9fifo.jsonl; '
             f'ln -s {w.home}/secret.txt $S/rollout-9link.jsonl; ls -la $S > planted.txt')
    into = tmp_path / "left"
    result = run_batch(host_config(w, "codex", installed_hosts, script=shell_script(plant)),
                       run_host_fn=capturing(into))
    assert result.aborted is None and len(result.outcomes) == 1
    planted = (into / "repo" / "planted.txt").read_text()
    assert "prw" in planted and "rollout-9link.jsonl ->" in planted  # the attack ran
    assert SECRET not in w.record.read_text()
    record = load_file(w.record).records[0]
    assert record.valid and [c.kind for c in record.calls][:1] == ["shell"]
