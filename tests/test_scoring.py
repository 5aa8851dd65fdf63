"""score(): successful reads before the first attempt at the moment, per required file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.core.models import Call, CallKind, CallStatus, CaseKind, Score, ScoreSpec, Verdict
from workbench.core.paths import segments
from workbench.core.scoring import _may_read, infer_kind, overall_verdict, read_paths, score
from workbench.core.shell import reads_of

PROC = "<plugin>/skills/ops/references/writing.md"


def read(path: str, status: CallStatus = "ok") -> Call:
    return Call(index=0, tool="Read", kind="read", path=path, status=status)


def sh(command: str, status: CallStatus = "ok", unreadable: list[str] | None = None,
       exit_code: int | None = None) -> Call:
    return Call(index=0, tool="Bash", kind="shell", command=command, status=status,
                unreadable=unreadable or [], exit_code=exit_code)


def edit(path: str = "<repo>/a.py", status: CallStatus = "ok") -> Call:
    return Call(index=0, tool="Edit", kind="edit", path=path, status=status)


def spec(kind: CaseKind = "positive", required: list[str] | None = None, moment: str = "edit",
         **extra: str) -> ScoreSpec:
    return ScoreSpec(kind=kind, required=required or ["writing.md"], moment=moment, **extra)


def test_read_before_edit_fires() -> None:
    s = score(spec(), [read(PROC), edit()])
    assert (s.verdicts, s.overall, s.reads, s.moment_at) == ({"writing.md": "fired"}, "fired",
                                                             {"writing.md": 0}, 1)


def test_read_after_edit_is_skip_but_reported() -> None:
    s = score(spec(), [edit(), read(PROC)])
    assert (s.verdicts["writing.md"], s.reads["writing.md"], s.moment_at) == ("skip", 1, 0)


def test_rewriting_md_is_not_writing_md() -> None:
    s = score(spec(), [read("<repo>/docs/rewriting.md"), edit()])
    assert s.verdicts["writing.md"] == "skip"
    assert s.reads["writing.md"] is None


@pytest.mark.parametrize("status", ["error", "denied"])
def test_failed_read_tool_does_not_count(status: CallStatus) -> None:
    s = score(spec(), [read(PROC, status=status), edit()])
    assert s.verdicts["writing.md"] == "skip"


def test_denied_shell_read_does_not_count() -> None:
    assert score(spec(), [sh(f"cat {PROC}", status="denied"), edit()]).overall == "skip"
    assert score(spec(), [sh(f"cat {PROC}"), edit()]).overall == "fired"


def test_unreadable_evidence_cancels_shell_read() -> None:
    refused = sh(f"cat {PROC}", status="error", exit_code=1,
                 unreadable=["/home/u/.claude/plugins/p/skills/ops/references/writing.md"])
    assert score(spec(), [refused, edit()]).overall == "skip"
    short = sh(f"cat {PROC}", status="error", unreadable=["writing.md"])
    assert score(spec(), [short, edit()]).overall == "skip"


def test_nonzero_chain_still_read() -> None:
    failed = sh(f"cat {PROC}; ls missing", status="error", exit_code=2)
    assert score(spec(), [failed, edit()]).overall == "fired"


def test_cd_dir_and_cat_name_counts() -> None:
    """Published record 182/domain-modeling run 1 stored no read here: the instrument error."""
    calls = [
        Call(index=0, tool="Skill", kind="skill", skill="agentsmd:operations"),
        sh("cd <plugin>/skills/operations/workflows/domain-modeling && cat GLOSSARY-FORMAT.md; "
           "cat index.md | head -60"),
        read("<repo>/GLOSSARY.md"),
        edit("<repo>/GLOSSARY.md"),
    ]
    s = score(ScoreSpec(kind="positive", required=["domain-modeling/GLOSSARY-FORMAT.md"],
                        entry_skill="operations"), calls)
    assert (s.overall, s.reads, s.entry_loaded_at) == ("fired", {"domain-modeling/GLOSSARY-FORMAT.md": 1}, 0)


def test_read_in_same_call_as_moment_is_not_before() -> None:
    calls = [sh(f"cat {PROC} && git commit -m x")]
    s = score(spec(moment="commit"), calls)
    assert (s.overall, s.moment_at, s.reads["writing.md"]) == ("skip", 0, 0)


def test_failed_moment_attempt_still_ends_the_window() -> None:
    s = score(spec(), [edit(status="denied"), read(PROC), edit()])
    assert (s.overall, s.moment_at) == ("skip", 0)


def test_no_moment_verdicts() -> None:
    assert score(spec(), [read(PROC)]).overall == "read-noaction"
    assert score(spec(), [sh("ls")]).overall == "skip-noaction"
    s = score(spec(required=["writing.md", "prose.md"]), [read(PROC)])
    assert (s.verdicts, s.overall) == ({"writing.md": "read-noaction", "prose.md": "skip-noaction"},
                                       "skip-noaction")


def test_end_counts_reads_anywhere() -> None:
    s = score(spec(moment="end"), [sh("ls"), read(PROC)])
    assert (s.overall, s.moment_at) == ("fired", 2)


def test_every_required_file_must_fire() -> None:
    s = score(spec(required=["writing.md", "prose.md"]), [read(PROC), edit(), read("x/prose.md")])
    assert (s.verdicts, s.overall) == ({"writing.md": "fired", "prose.md": "skip"}, "skip")


def test_negative_opened_anywhere_and_clean() -> None:
    assert score(spec("negative"), [edit(), read(PROC)]).overall == "opened"
    assert score(spec("negative"), [edit(), read(PROC, status="denied")]).overall == "clean"
    assert score(spec("negative"), [sh("ls")]).verdicts == {"writing.md": "clean"}


def test_keys_are_the_required_files_exactly_as_given() -> None:
    s = score(spec(required=["references/writing.md", "prose.md"]), [read(PROC), edit()])
    assert list(s.verdicts) == list(s.reads) == ["references/writing.md", "prose.md"]
    assert s.verdicts == {"references/writing.md": "fired", "prose.md": "skip"}


@pytest.mark.parametrize("kind", ["positive", "negative"])
def test_no_model_output_makes_every_verdict_no_output(kind: CaseKind) -> None:
    s = score(spec(kind, ["references/writing.md", "prose.md"]), [read(PROC), edit()], model_output=False)
    assert s.verdicts == {"references/writing.md": "no-output", "prose.md": "no-output"}
    assert s.overall == "no-output"
    assert s.reads["references/writing.md"] == 0  # the facts stay; only the verdicts are withheld


def test_no_output_wins_the_overall() -> None:
    assert overall_verdict("positive", {"a.md": "fired", "b.md": "no-output"}) == "no-output"
    assert overall_verdict("negative", {"a.md": "opened", "b.md": "no-output"}) == "no-output"


def test_shared_base_names_score_separately() -> None:
    s = score(spec("negative", ["research/index.md", "grilling/index.md"]),
              [read("<plugin>/workflows/research/index.md")])
    assert s.verdicts == {"research/index.md": "opened", "grilling/index.md": "clean"}


def test_entry_loaded_by_namespaced_skill_or_file() -> None:
    calls = [sh("ls"), Call(index=1, tool="Skill", kind="skill", skill="AgentsMD:Operations")]
    assert score(spec(entry_skill="operations"), calls).entry_loaded_at == 1
    calls2 = [sh("ls"), sh("cat <plugin>/skills/operations/SKILL.md")]
    assert score(spec(entry_file="operations/SKILL.md"), calls2).entry_loaded_at == 1
    assert score(spec(entry_skill="operations"), calls2).entry_loaded_at is None


@pytest.mark.parametrize(("name", "kind"), [
    ("Read", "read"), ("read_file", "read"), ("view", "read"), ("Bash", "shell"), ("exec_command", "shell"),
    ("run_shell_command", "shell"), ("Edit", "edit"), ("apply_patch", "edit"), ("str_replace_editor", "edit"),
    ("Skill", "skill"), ("Task", "agent"), ("Agent", "agent"), ("list_dir", "other"), ("grep", "other"),
])
def test_infer_kind(name: str, kind: CallKind) -> None:
    assert infer_kind(name) == kind


def test_read_paths_of_other_kinds_are_empty() -> None:
    assert read_paths(Call(index=0, tool="grep", kind="other", path=PROC)) == []
    assert read_paths(edit(PROC)) == []


@pytest.mark.parametrize(("kind", "verdicts", "expected"), [
    ("positive", ["fired", "fired"], "fired"),
    ("positive", ["fired", "skip"], "skip"),
    ("positive", ["read-noaction", "read-noaction"], "read-noaction"),
    ("positive", ["read-noaction", "skip-noaction"], "skip-noaction"),
    ("negative", ["clean", "opened"], "opened"),
    ("negative", ["clean", "clean"], "clean"),
])
def test_overall_verdict(kind: CaseKind, verdicts: list[Verdict], expected: str) -> None:
    assert overall_verdict(kind, {str(i): v for i, v in enumerate(verdicts)}) == expected


def test_read_basis_follows_the_cases_order_whatever_the_hash_seed() -> None:
    """One shell call reading many required files: read_basis (stored in records) lists them in the
    case's order, so a rescored file is the same bytes on every run (set order follows string hashes)."""
    required = [f"docs/p{n}/guide-{n}.md" for n in range(12)]
    call = Call(index=0, tool="Bash", kind="shell", command="cat " + " ".join(reversed(required)))
    result = score(ScoreSpec(kind="positive", required=required, moment="end"), [call])
    assert list(result.read_basis) == required
    assert all(result.reads[r] == 0 for r in required)


def test_the_score_is_the_one_pydantic_would_validate() -> None:
    """The scorer builds its Score without validation: the same fields, fields set and JSON."""
    calls = [read(PROC), sh("cat a/index.md b/index.md"), edit()]
    s = score(spec(required=["writing.md", "a/index.md", "b/index.md"]), calls)
    again = Score.model_validate(s.model_dump())
    assert s == again and s.model_fields_set == again.model_fields_set
    assert s.model_dump_json() == again.model_dump_json() and s.reads["a/index.md"] == 1


def test_a_read_path_met_again_counts_for_the_same_required_files() -> None:
    """Read paths are remembered per required set: the second record reading them scores as the first."""
    required = ["research/index.md", "grilling/index.md"]
    calls = [read("<plugin>/workflows/grilling/index.md"), sh("cat x/research/index.md")]
    first, second = (score(spec("negative", required), calls) for _ in range(2))
    assert first.verdicts == second.verdicts == {"research/index.md": "opened", "grilling/index.md": "opened"}
    assert score(spec("negative", ["index.md"]), calls[:1]).verdicts == {"index.md": "opened"}


SPELLED = ["cat prose.md", "cat 'pro'\"se\".md", "cat pro\\\nse.md", "cd skills/x && cat ./prose.md",
           "python -c \"open('skills/prose.md').read()\"", "sed -n 1,5p <plugin>/skills/prose.md | head",
           "cat pro*.md", "cat pro?e.md", "grep -l x skills/*/p*se.md", "cat 'pro'*"]
EXPANDED = ["cat $P", "cat {prose,style}.md", "cat `ls`", "cat $'pro\\x73e.md'", "cat *.md", "ls skills/*/",
            "cat [ps]*.md", "cat *e.md"]


@pytest.mark.parametrize("command", SPELLED + EXPANDED)
def test_a_command_that_may_read_a_file_is_analyzed(command: str) -> None:
    """The analysis is skipped only for a command that can read none of the files (`_may_read`): one
    that neither spells a base name, nor expands, nor has a glob that could match one."""
    assert _may_read(command, ("prose.md",))
    assert _may_read(command, ("style.md",)) is (command in EXPANDED)


def test_every_read_the_analysis_finds_is_one_may_read_lets_through() -> None:
    """Over every shell command of the published records and the demo batch: the last segment of each
    read path is a name `_may_read` sees, so skipping the analysis never drops a read."""
    root = Path(__file__).resolve().parent.parent
    lines = [line for path in [*sorted((root / "tests" / "data" / "conformance").glob("*/*.jsonl")),
                               root / "records" / "demo-batch.jsonl"]
             for line in path.read_text().splitlines() if line.strip()]
    commands = {c[1] for line in lines for c in json.loads(line).get("calls", [])
                if isinstance(c, list) and len(c) > 1 and c[0] == "Bash"}
    commands |= {c["command"] for line in lines for c in json.loads(line).get("calls", [])
                 if isinstance(c, dict) and c.get("command")}
    reads = [(command, segments(path)[-1]) for command in commands for path in reads_of(command) if segments(path)]
    assert len(commands) > 2000 and len(reads) > 1000 and any("*" in base for _, base in reads)
    # a glob read counts for a base name it matches: one such name stands for them all
    named = [(c, base.replace("*", "x").replace("?", "y") if "[" not in base else base) for c, base in reads]
    assert [(c, base) for c, base in reads + named if not _may_read(c, (base,))] == []
