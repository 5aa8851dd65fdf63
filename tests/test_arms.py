"""Arms: NAME=REF parsing, ref resolution to a sha, plugin copies from `git archive` (never the worktree)."""

from __future__ import annotations

from pathlib import Path

import git
import pytest
from batch_support import make_world

from workbench.core.arms import WORKTREE, parse_arms
from workbench.core.errors import InputError
from workbench.runner.arms import archive, build_copy, resolve_ref


def test_parse_arms_pairs_and_errors() -> None:
    assert parse_arms("A=main, B=HEAD~1") == [("A", "main"), ("B", "HEAD~1")]
    assert parse_arms("baseline,off=HEAD") == [("baseline", ""), ("off", "HEAD")]  # a bare workspace arm name
    for bad in ("A=", "=x", "A=x,A=y", "A,A", ""):
        with pytest.raises(InputError):
            parse_arms(bad)


def test_resolve_gives_the_commit_sha_and_the_plugin_subdir(tmp_path: Path) -> None:
    w = make_world(tmp_path)
    repo = git.Repo(w.ws)
    a = resolve_ref(w.plugin, "A", "HEAD~1")
    b = resolve_ref(w.plugin, "B", "main")
    assert a.sha == repo.commit("HEAD~1").hexsha and b.sha == repo.head.commit.hexsha
    assert a.subdir == "plugin" and a.repo_root == w.ws.resolve()
    with pytest.raises(InputError, match="unknown git ref"):
        resolve_ref(w.plugin, "C", "no-such-branch")


def test_copy_is_the_commit_not_the_worktree(tmp_path: Path) -> None:
    w = make_world(tmp_path)
    skill = w.plugin / "skills" / "ops" / "SKILL.md"
    skill.write_text("UNCOMMITTED EDIT\n", encoding="utf-8")
    (w.plugin / "untracked.md").write_text("x", encoding="utf-8")
    a = build_copy(resolve_ref(w.plugin, "A", "HEAD~1"), tmp_path / "a")
    b_arm = resolve_ref(w.plugin, "B", "HEAD")
    b = build_copy(b_arm, tmp_path / "b", archive(b_arm))
    a_text = (a / "skills" / "ops" / "SKILL.md").read_text(encoding="utf-8")
    b_text = (b / "skills" / "ops" / "SKILL.md").read_text(encoding="utf-8")
    assert "arm B" not in a_text and "arm B" in b_text
    assert "UNCOMMITTED" not in a_text + b_text
    assert not (b / "untracked.md").exists() and not (b / "plugin").exists()
    assert sorted(p.relative_to(b).as_posix() for p in b.rglob("*.md")) == sorted(
        p.relative_to(w.plugin).as_posix() for p in w.plugin.rglob("*.md") if p.name != "untracked.md")


def test_worktree_arm_only_when_allowed(tmp_path: Path) -> None:
    w = make_world(tmp_path)
    with pytest.raises(InputError, match="canaries only"):
        resolve_ref(w.plugin, "W", WORKTREE)
    arm = resolve_ref(w.plugin, "W", WORKTREE, allow_worktree=True)
    (w.plugin / "skills" / "ops" / "SKILL.md").write_text("EDITED\n", encoding="utf-8")
    copy = build_copy(arm, tmp_path / "w")
    assert arm.sha is None and (copy / "skills" / "ops" / "SKILL.md").read_text(encoding="utf-8") == "EDITED\n"


def test_plugin_outside_git_is_refused(tmp_path: Path) -> None:
    (tmp_path / "p").mkdir()
    with pytest.raises(InputError, match="not inside a git repo"):
        resolve_ref(tmp_path / "p", "A", "HEAD")


def test_batch_arms_name_a_workspace_arm_and_summary_shows_names_with_short_shas(tmp_path: Path) -> None:
    """`--arms old=weak`: weak is a workspace arm (its `workbench/arm/weak` branch), not a git ref; the
    records keep the name `old` and the arm's sha, and summary shows `old (sha7)`."""
    import os
    import subprocess
    import sys

    from batch_support import ROOT, make_demo_arms_world

    from workbench.core.records import load_file

    w = make_demo_arms_world(tmp_path, cases=("release-ship",))
    repo = git.Repo(w.ws)
    weak, shipped = repo.commit("HEAD~2").hexsha, repo.commit("HEAD~1").hexsha
    repo.create_head("workbench/arm/weak", weak)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def batch(arms: str) -> subprocess.CompletedProcess[str]:
        argv = [sys.executable, "-m", "workbench", "batch", "--cases", "all", "--hosts", "sim", "--arms", arms,
                "--runs", "1", "--record", str(w.record), "--home", str(w.home), "--unconfined"]
        return subprocess.run(argv, cwd=w.ws, env=env, capture_output=True, text=True)

    bad = batch("old=no-such-arm,new=HEAD~1")
    assert bad.returncode == 2 and "unknown git ref 'no-such-arm'" in bad.stderr, bad.stderr
    done = batch("old=weak,new=HEAD~1")
    assert done.returncode == 0, done.stderr
    assert {(r.arm, r.source) for r in load_file(w.record).records} == {("old", weak), ("new", shipped)}

    out = subprocess.run([sys.executable, "-m", "workbench", "summary", str(w.record), "--compare", "old,new"],
                         env=env, capture_output=True, text=True, check=True).stdout
    assert f"| Row | old ({weak[:7]}) | new ({shipped[:7]}) |" in out, out
    assert f"| old ({weak[:7]}) | new ({shipped[:7]}) |" in out.split("## Comparisons")[1], out
    assert weak not in out and shipped not in out, "no 40-character sha in the tables"
