"""The no-row control arm: a real commit of the first arm without the targeted rows, stable across a
resume, and `summary` saying per case whether the row earned the read (sim host, real git)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import git
import pytest
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


def test_two_scripts_are_never_paired_into_one_control_cell(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """Records from the real pipeline (sim, two scripts): the arm's runs of one script and the control's
    runs of the other share case and run index, yet never pair; each script is a tie of its own."""
    from workbench.cli import main
    from workbench.core.cases import find_case
    from workbench.core.records import append_record
    from workbench.core.summary import summarize, to_json
    from workbench.modelstub import parse_script
    from workbench.runner.execute import execute
    from workbench.runner.request import build_request

    case = find_case("docs-readme-section", ROOT / "cases")
    edit = {"edit": {"path": "{repo}/README.md", "old": "# greeter", "new": "# greeter!"}}
    scripts = {"reads": [{"calls": [{"read": "{plugin}/skills/ops/workflows/docs.md"}]}, {"calls": [edit]}],
               "edits": [{"calls": [edit]}, {"say": "Done."}]}
    made = {}
    for name, steps in scripts.items():
        request = build_request(case, "sim", door="canary", plugin=ROOT / "plugin", fixture=ROOT / "fixtures" / "base",
                                script=parse_script({"steps": steps}))
        made[name] = execute(request).record
    assert (made["reads"].overall, made["edits"].overall) == ("fired", "skip")
    # the arm hits under one script while the control misses under the other, in the same slots
    order = [("reads", "shipped"), ("edits", "control"), ("edits", "shipped"), ("reads", "control")]
    recs = [made[script].model_copy(update={"arm": arm, "source": None, "run": run})
            for script, arm in order for run in range(6)]
    rows = to_json(summarize(recs))["control"]
    assert sorted((r["script_digest"], r["arm_hits"], r["control_hits"], r["pairs"]) for r in rows) == sorted(
        [(made["reads"].script.digest, 6, 6, 6), (made["edits"].script.digest, 0, 0, 6)])
    assert {r["verdict"] for r in rows} == {"tie: the model reads it without the row"}
    path = tmp_path / "runs.jsonl"
    for r in recs:
        append_record(path, r)
    assert main(["summary", str(path)]) == 0
    table = [line for line in capsys.readouterr().out.splitlines() if "| docs-readme-section |" in line]
    assert len(table) == 2 and all("· script " in line for line in table), table
