"""Tune through the CLI on sim: the weak release row gets a confirmed winner committed as an arm; a good
row gets no winner; bad input is one line, exit 2, nothing run. Pure parts of core/tune.py too."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import git
import pytest
from authoring_support import WEAK_ROWS, apply_weak

from workbench.cli import main
from workbench.core import lint, tune
from workbench.core.arms import BASELINE
from workbench.core.cases import load_cases
from workbench.core.records import load_file
from workbench.core.routing import Row, assign_ids, find_row, parse_text
from workbench.core.summary import summarize

pytestmark = pytest.mark.bwrap  # runs go through a door confined (the default); see docs/testing.md

ROOT = Path(__file__).resolve().parent.parent
EXTRA_RELEASE = {
    "release-ship-2": "Version 1.4 is ready. Ship it to users: tag v1.4.0.",
    "release-ship-3": "Ship the new version: tag it v2.0.0.",
}


def workspace(tmp: Path, *, weak: bool) -> Path:
    """A committed copy of the demo workspace (weak wordings applied when WEAK) with three release cases,
    written from the demo's release case as `case new` would."""
    ws = tmp / "ws"
    ws.mkdir()
    shutil.copy(ROOT / "workbench.toml", ws / "workbench.toml")
    for part in ("plugin", "fixtures", "cases"):
        shutil.copytree(ROOT / part, ws / part)
    if weak:
        apply_weak(ws / "plugin")
    base = (ws / "cases" / "release-ship.toml").read_text()
    for case_id, prompt in EXTRA_RELEASE.items():
        text = base.replace("Everything for 0.2.0 is merged. Ship it: tag the release v0.2.0.", prompt)
        (ws / "cases" / f"{case_id}.toml").write_text(text)
    (ws / ".gitignore").write_text("records/\n.workbench/\n")
    repo = git.Repo.init(ws, initial_branch="main")
    repo.git.add(A=True)
    actor = git.Actor("t", "t@localhost")
    repo.index.commit("demo", author=actor, committer=actor)
    return ws


def tune_cli(ws: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
             *args: str) -> tuple[int, str, str]:
    monkeypatch.chdir(ws)
    code = main(["tune", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_weak_release_row_gets_a_confirmed_winner(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    ws = workspace(tmp_path, weak=True)
    code, out, err = tune_cli(ws, capsys, monkeypatch, "release", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["winner"] is not None and data["winner"]["trigger"].startswith("Before ")
    assert data["holdout"]["confirmed"] is True and data["holdout"]["cases"]
    assert set(data["holdout"]["cases"]).isdisjoint(data["split"]["selection"])
    assert "near-commit-typo-fix" in data["split"]["negatives"]
    neg = data["negatives"]["sim"]
    assert neg["pairs"] > 0 and neg["hits_candidate"] >= neg["hits_current"]
    assert "forecast:" in err and "decided: winner" in err
    # the records are ordinary batch records with condition tune
    lines = [json.loads(line) for line in (ws / "records" / "tune-ops-release.jsonl").read_text().splitlines()]
    assert len(lines) == data["runs"] and {r["condition"] for r in lines} == {"tune"}
    # one pairing: the tune's selection and held-back pairs are the pairs `summary --compare` counts
    winner = next(c for c in data["candidates"] if c["arm"] == data["winner"]["arm"])
    sel, hold = winner["selection"]["hosts"]["sim"], data["holdout"]["hosts"]["sim"]
    rows = [r for r in summarize(load_file(ws / "records" / "tune-ops-release.jsonl").records)
            .compare(BASELINE, winner["arm"]) if r["kind"] == "positive"]
    assert rows and sum(r["pairs"] for r in rows) == sel["pairs"] + hold["pairs"] > 0
    assert sum(r["only_a"] for r in rows) == sel["only_current"] + hold["only_current"]
    assert sum(r["only_b"] for r in rows) == sel["only_candidate"] + hold["only_candidate"]
    # the winner is an arm, listed by `arm list`
    monkeypatch.chdir(ws)
    assert main(["arm", "list"]) == 0
    listed = capsys.readouterr().out
    assert data["winner"]["arm"] in listed
    # resumable: a second tune recomputes the same decision from the records, runs nothing new
    memory = (ws / ".workbench" / "tune" / "ops-release.toml").read_text()
    assert "winner" in memory and "[split]" in memory
    code, out, err = tune_cli(ws, capsys, monkeypatch, "release", "--json")
    again = json.loads(out)
    assert code == 0 and again["winner"] == data["winner"] and again["runs"] == 0
    assert "rejected-before" in {c["status"] for c in again["candidates"]}


def test_good_row_gets_no_winner(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    ws = workspace(tmp_path, weak=False)
    code, out, err = tune_cli(ws, capsys, monkeypatch, "release", "--json")
    data = json.loads(out)
    assert code == 1 and data["winner"] is None and data["runs"] == 0
    assert "no new candidate" in data["decision"] and data["candidates"] == []  # lint has nothing to rewrite
    # a typed wording is measured and does not beat the good row: no winner, said plainly
    code, out, err = tune_cli(ws, capsys, monkeypatch, "release", "--wording", "Before tagging a release",
                              "--max-runs", "6", "--json")
    data = json.loads(out)
    assert code == 1 and data["winner"] is None and data["runs"] > 0, err
    [cand] = data["candidates"]
    assert cand["source"] == "author" and cand["selection"]["decided"] is False
    assert data["decision"].startswith("no winner: no candidate was decided better")


@pytest.mark.parametrize(("args", "says"), [
    (["nosuchrow"], "no routing row"),
    (["commit", "--budget-runs", "5"], "has 1 positive case"),
    (["release", "--budget-runs", "10"], "too small to decide"),
    (["release", "--proposer", "claude:sonnet"], "claude"),
    (["release", "--proposer", "nohost"], "proposer 'nohost'"),
    (["release", "--max-runs", "5000"], "--max-runs: 5,000 is above the cap of 1,000"),
    (["release", "--holdout-runs", "0"], "--holdout-runs: must be at least 1"),
    (["release", "--jobs", "65"], "--jobs: 65 is above the cap of 64"),
])
def test_bad_input_is_one_line_exit_2_nothing_run(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch, args: list[str], says: str) -> None:
    ws = workspace(tmp_path, weak=True)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("WORKBENCH_HOSTS_DIR", str(tmp_path / "no-hosts"))
    code, out, err = tune_cli(ws, capsys, monkeypatch, *args)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and says in err, err
    assert not (ws / "records").exists() and not (ws / ".workbench").exists()
    assert not [h for h in git.Repo(ws).heads if h.name.startswith("workbench/arm/")]


def test_row_with_no_cases(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    ws = workspace(tmp_path, weak=True)
    (ws / "cases" / "release-ship.toml").unlink()
    for case_id in EXTRA_RELEASE:
        (ws / "cases" / f"{case_id}.toml").unlink()
    code, out, err = tune_cli(ws, capsys, monkeypatch, "release")
    assert code == 2 and "has no cases" in err and len(err.strip().splitlines()) == 1


def _rows(weak: bool) -> list[Row]:
    text = (ROOT / "plugin/skills/ops/SKILL.md").read_text()
    if weak:
        lines = text.split("\n")
        for row_id, new in WEAK_ROWS.items():
            i = next(i for i, ln in enumerate(lines) if ln.startswith("|") and f"(workflows/{row_id}.md)" in ln)
            lines[i] = new
        text = "\n".join(lines)
    return assign_ids(parse_text(text, ROOT / "plugin/skills/ops/SKILL.md", plugin=ROOT / "plugin"))


def test_rule_candidates_name_the_action_and_give_each_file_its_clause() -> None:
    rows = _rows(weak=True)
    cases = load_cases(ROOT / "cases")
    release = find_row(rows, "release")
    triggers = [c.trigger for c in tune.rule_candidates(release, rows, cases)]
    assert triggers == ["Before tagging or shipping a release", "When ready to ship, before tagging or shipping a release"]
    incident = find_row(rows, "incident")
    [fix] = tune.rule_candidates(incident, rows, cases)
    assert fix.trigger == incident.trigger and "; before diagnosing" in fix.text and " and [" not in fix.text
    good = find_row(_rows(weak=False), "commit")
    assert tune.rule_candidates(good, _rows(weak=False), cases) == []


def test_split_is_seeded_stable_and_recorded() -> None:
    rows = _rows(weak=True)
    row = find_row(rows, "release")
    cases = load_cases(ROOT / "cases")
    release_case = next(c for c in cases if c.target == "release")
    pos = [release_case.model_copy(update={"id": f"r{i}"}) for i in range(6)]
    a = tune.split_cases(row, pos, [], seed=0)
    assert a == tune.split_cases(row, list(reversed(pos)), [], seed=0)
    assert len(a.holdout) == 2 and set(a.holdout).isdisjoint(a.selection)
    grown = tune.split_cases(row, [*pos, pos[0].model_copy(update={"id": "r9"})], [], recorded=a)
    assert grown.holdout == a.holdout and "r9" in grown.selection
    near = tune.negatives_for(row, rows, cases)
    assert all(c.kind == "negative" and c.required == ["workflows/release.md"] for c in near)


def test_screen_and_decision_rule() -> None:
    cur = "| When ready to ship | [r](workflows/release.md) |"
    cands = [tune.Candidate("| when ready to ship | [r](workflows/release.md) |", "x", "author"),
             tune.Candidate("| Before tagging | [r](workflows/release.md) |", "Before tagging", "rules"),
             tune.Candidate("| Before  tagging | [r](workflows/release.md) |", "Before tagging", "rules"),
             tune.Candidate("| Before shipping | [r](workflows/release.md) |", "Before shipping", "rules")]
    tried = {tune.wording_key(cands[3].text): "rejected"}
    assert [c.status for c in tune.screen(cands, cur, tried)] == ["duplicate", "new", "duplicate", "rejected-before"]
    sel = tune.Verdict("a", "t", {"sim": tune.Paired("sim", 12, 0, 8, 3, 11)}, {"sim": 50.0}, True, "ok")
    good_hold = {"sim": tune.Paired("sim", 16, 1, 11, 4, 14)}
    bad_hold = {"sim": tune.Paired("sim", 16, 1, 4, 4, 7)}
    clean = {"sim": tune.Paired("sim", 14, 0, 0, 14, 14)}
    worse = {"sim": tune.Paired("sim", 14, 1, 0, 14, 13)}
    assert tune.decide([sel], good_hold, clean, 0.05).winner == "a"
    assert tune.decide([sel], bad_hold, clean, 0.05).winner is None
    assert "more often" in tune.decide([sel], good_hold, worse, 0.05).reason
    assert tune.decide([], None, None, 0.05).reason.startswith("no winner")
    undecided = tune.Verdict("b", "t", sel.selection, sel.e_values, False, "undecided")
    assert tune.decide([undecided], None, None, 0.05).winner is None
    assert tune.min_pairs(0.05) == 7 and tune.min_confirm(0.05) == 5
    assert tune.moment_action("bash:^make\\s+deploy") == "running `make deploy`"
    assert tune.moment_action is lint.moment_action  # one mapping: lint's messages and tune's rewrites
