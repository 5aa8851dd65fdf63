"""The sim policy: routing rows from the demo plugin, wording-dependent reads, seeded determinism."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from authoring_support import apply_weak, weak_copy
from sim_support import GIT, Dirs, make_dirs, run_sim

from workbench.core.models import ScoreSpec
from workbench.core.scoring import score
from workbench.sim.policy import classify, decide, match_row, parse_table, routing_rows, stem


@pytest.fixture
def dirs(tmp_path: Path) -> Dirs:
    """Sim dirs whose plugin copy carries the weak wordings (the demo itself is lint-clean)."""
    made = make_dirs(tmp_path)
    apply_weak(made.plugin)
    return made


def test_demo_plugin_routing_rows(tmp_path: Path) -> None:
    weak = weak_copy(tmp_path / "plugin")
    rows = routing_rows(weak)
    assert 7 <= len(rows) <= 9
    assert all(link.path.is_file() for row in rows for link in row.links), "every link resolves to a file"
    by_trigger = {row.trigger: row for row in rows}
    assert [link.wording for link in by_trigger["Before committing"].links] == ["before-action"]
    assert [link.wording for link in by_trigger["When ready to ship"].links] == ["state"]
    incident = next(row for row in rows if "incident" in row.trigger)
    assert [(link.target, link.wording) for link in incident.links] == [
        ("workflows/incident.md", "before-action"), ("workflows/diagnosis.md", "bare-and")]
    text = (weak / "skills" / "ops" / "SKILL.md").read_text().split("\n")
    assert "Before committing" in text[by_trigger["Before committing"].line - 1]


def test_table_parsing_header_separator_and_own_clause(tmp_path: Path) -> None:
    text = ("| When | Read |\n|:--|--:|\n| Before merging | [a](a.md); before tagging: [b](b.md) and [c](c.md) |\n"
            "| Claim readiness | no link here |\n\n| not | a table row without separator |\n")
    rows = parse_table(text, tmp_path / "SKILL.md", "s")
    assert len(rows) == 1 and rows[0].line == 3
    assert [(link.target, link.wording) for link in rows[0].links] == [
        ("a.md", "before-action"), ("b.md", "before-action"), ("c.md", "bare-and")]
    assert rows[0].links[0].path == tmp_path / "a.md"


@pytest.mark.parametrize(("a", "b"), [("committing", "commit"), ("commits", "committed"), ("updating", "update"),
                                      ("opening", "open"), ("shipping", "ship"), ("dependencies", "deps")])
def test_stem_groups_forms(a: str, b: str) -> None:
    assert stem(a) == stem(b)


def test_matching_and_actions(tmp_path: Path) -> None:
    rows = routing_rows(weak_copy(tmp_path / "plugin"))
    matched = {p: (row.trigger if (row := match_row(p, rows)) else None) for p in (
        "Commit the notes change", "Open a pull request for this branch", "Ship the new version",
        "Update the requests dependency to 2.32", "Rename the variable in notes.txt")}
    assert matched == {
        "Commit the notes change": "Before committing",
        "Open a pull request for this branch": "Before opening or updating a PR",
        "Ship the new version": "When ready to ship",
        "Update the requests dependency to 2.32": "Before bumping or updating a dependency",
        "Rename the variable in notes.txt": None,
    }
    assert [classify(p) for p in ("Commit it", "Open a PR", "Tag the release", "How do we commit?", "Fix notes")] == [
        "commit", "pr", "release", "answer", "edit"]


def test_same_seed_same_run(dirs: Dirs) -> None:
    prompt = "How should I handle the database migration?"
    first = decide(prompt, repo=dirs.repo, plugin=dirs.plugin, seed=7)
    again = decide(prompt, repo=dirs.repo, plugin=dirs.plugin, seed=7)
    assert first.script == again.script and first.links == again.links
    runs = [run_sim(dirs, "--policy", "--seed", "7", prompt=prompt) for _ in range(2)]
    assert runs[0].parsed.calls == runs[1].parsed.calls and runs[0].parsed.texts == runs[1].parsed.texts
    seeds = {decide(prompt, repo=dirs.repo, plugin=dirs.plugin, seed=s).links[0].draw for s in range(5)}
    assert len(seeds) == 5, "the seed changes the draw"


def read_before(dirs: Dirs, prompt: str, target: str, seed: int) -> bool:
    decision = decide(prompt, repo=dirs.repo, plugin=dirs.plugin, seed=seed)
    return any(d.before for d in decision.links if d.link.target == target)


def test_before_clause_read_more_often_than_state_or_bare_and(dirs: Dirs) -> None:
    seeds = range(50)
    commit = sum(read_before(dirs, "Commit the notes change", "workflows/commit.md", s) for s in seeds)
    ship = sum(read_before(dirs, "Ship the new version", "workflows/release.md", s) for s in seeds)
    incident = "Respond to the outage on the API"
    first = sum(read_before(dirs, incident, "workflows/incident.md", s) for s in seeds)
    bare = sum(read_before(dirs, incident, "workflows/diagnosis.md", s) for s in seeds)
    assert commit > ship and first > bare
    assert 0 < ship < 50 and 0 < bare < 50, "weak wordings are read sometimes, not never"


def test_no_matching_row_no_read_and_a_real_edit(dirs: Dirs) -> None:
    run = run_sim(dirs, "--policy", prompt="In notes.txt set status: todo to status: done")
    kinds = [(c.kind, c.path) for c in run.parsed.calls]
    assert kinds == [("read", str(dirs.repo / "notes.txt")), ("edit", str(dirs.repo / "notes.txt"))]
    assert (dirs.repo / "notes.txt").read_text() == "notes\nstatus: done\n"
    procedures = [f"workflows/{p.name}" for p in sorted((dirs.plugin / "skills/ops/workflows").glob("*.md"))]
    assert score(ScoreSpec(kind="negative", required=procedures), run.parsed.calls).overall == "clean"


def test_policy_commit_is_scored_against_the_commit_row(dirs: Dirs) -> None:
    (dirs.repo / "notes.txt").write_text("notes\nstatus: done\n")
    seed = next(s for s in range(50) if read_before(dirs, "Commit the notes change", "workflows/commit.md", s))
    run = run_sim(dirs, "--policy", "--seed", str(seed), prompt="Commit the notes change")
    spec = ScoreSpec(kind="positive", required=["workflows/commit.md"], moment="commit", entry_skill="ops")
    result = score(spec, run.parsed.calls)
    assert (result.overall, result.entry_loaded_at) == ("fired", 0)
    log = subprocess.run([*GIT, "log", "-1", "--format=%s"], cwd=dirs.repo, capture_output=True, text=True)
    assert log.stdout.strip() == "Commit the notes change"


def test_policy_question_answers_in_text(dirs: Dirs) -> None:
    prompt = "How should I handle the database migration?"
    seed = next(s for s in range(50) if read_before(dirs, prompt, "workflows/migration.md", s))
    run = run_sim(dirs, "--policy", "--seed", str(seed), prompt=prompt)
    assert not [c for c in run.parsed.calls if c.kind in ("edit", "shell")]
    assert run.parsed.ended is not None and "workflows/migration.md" in (run.parsed.ended.text or "")
    spec = ScoreSpec(kind="positive", required=["workflows/migration.md"], moment="end")
    assert score(spec, run.parsed.calls).overall == "fired"
