"""The no-row control arm: a real commit of the first arm without the targeted rows, stable across a
resume, and `summary` saying per case whether the row earned the read (sim host, real git)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import git
from batch_support import ROOT, World, make_demo_arms_world

from workbench.core.records import load_file

ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def batch(w: World, *extra: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "workbench", "batch", "--cases", "all", "--hosts", "sim", "--arms",
            "shipped=HEAD~1", "--control", "--runs", "7", "--record", str(w.record), "--home", str(w.home),
            "--unconfined", "--jobs", "2", *extra]
    return subprocess.run(argv, cwd=w.ws, env=ENV, capture_output=True, text=True)


def test_control_arm_commit_and_per_case_verdicts(tmp_path: Path) -> None:
    w = make_demo_arms_world(tmp_path, cases=("release-ship",))
    # a case about the release procedure that names the docs row: removing that row changes nothing it reads
    text = (w.ws / "cases" / "release-ship.toml").read_text().replace('target = "release"', 'target = "docs"')
    (w.ws / "cases" / "release-docs-row.toml").write_text(text)
    first = batch(w)
    assert first.returncode == 0, first.stderr

    repo = git.Repo(w.ws)
    no_release, no_docs = repo.commit("workbench/arm/control/ops-release"), repo.commit("workbench/arm/control/ops-docs")
    for control, gone in ((no_release, "workflows/release.md"), (no_docs, "workflows/docs.md")):
        assert control.parents[0].hexsha == repo.commit("HEAD~1").hexsha  # built on the first arm's commit
        skill = (control.tree / "plugin/skills/ops/SKILL.md").data_stream.read().decode()
        assert gone not in skill and "workflows/commit.md" in skill and "description: Team operations" in skill
    assert "workflows/release.md" in (no_docs.tree / "plugin/skills/ops/SKILL.md").data_stream.read().decode()
    records = load_file(w.record).records
    assert {r.arm for r in records} == {"shipped", "control"} and len(records) == 2 * 2 * 7
    assert {(r.case_id, r.source) for r in records if r.arm == "control"} == {
        ("release-ship", no_release.hexsha), ("release-docs-row", no_docs.hexsha)}

    out = subprocess.run([sys.executable, "-m", "workbench", "summary", str(w.record)], env=ENV,
                         capture_output=True, text=True, check=True).stdout
    lines = {line.split(" | ")[1]: line for line in out.splitlines() if line.startswith("| sim | release")}
    assert lines["release-ship"].endswith("| row earned it |"), out
    assert lines["release-docs-row"].endswith("| tie: the model reads it without the row |"), out

    again = batch(w, "--resume")  # the control is rebuilt with the same sha: nothing left to run
    assert again.returncode == 0 and "0 run(s)" in again.stdout and f"{len(records)} already recorded" in again.stdout


def test_control_of_a_description_row_empties_it_to_the_name(tmp_path: Path) -> None:
    from workbench.authoring.arms import create_control
    from workbench.core.workspace import load_workspace

    w = make_demo_arms_world(tmp_path, cases=("release-ship",))
    info = create_control(load_workspace(w.ws), "HEAD", ["ops/description"])
    skill = (git.Repo(w.ws).commit(info.sha).tree / "plugin/skills/ops/SKILL.md").data_stream.read().decode()
    assert "\ndescription: ops\n" in skill and "workflows/release.md" in skill
