"""Properties of score() and shell.analyze() over generated runs and command lines."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.core.models import Call, ScoreSpec
from workbench.core.scoring import infer_kind, score
from workbench.core.shell import analyze

REQUIRED = ["references/writing.md", "prose.md"]
PATHS = st.sampled_from([
    "<plugin>/references/writing.md", "x/prose.md", "rewriting.md", "references/writing.md", "prose.md",
    "<repo>/src/app.py", "refs/{writing,prose}.md", "references/*.md", "",
])
COMMANDS = st.one_of(
    st.builds(lambda verb, p: f"{verb} {p}", st.sampled_from(["cat", "head -5", "sed -n 1p", "grep x", "ls",
                                                              "echo hi >", "git commit -m", "rm"]), PATHS),
    st.sampled_from(["git commit -m x", "gh pr create", "cd references && cat writing.md", "cat prose.md; ls z",
                     "git tag", "git merge-base a b", "python3 -c \"open('prose.md').read()\""]),
    st.text(max_size=40),
)
TOOLS = st.sampled_from(["Read", "Bash", "Edit", "Write", "Skill", "Agent", "grep", "view", "exec_command", "zz"])
MOMENTS = st.sampled_from(["edit", "commit", "pr", "merge", "release", r"bash:^git\b", "tool:Agent",
                           "edit,commit", "end"])


@st.composite
def calls(draw: st.DrawFn, min_size: int = 0) -> list[Call]:
    out: list[Call] = []
    for i in range(draw(st.integers(min_size, 8))):
        tool = draw(TOOLS)
        out.append(Call(index=i, tool=tool, kind=infer_kind(tool), path=draw(PATHS), command=draw(COMMANDS),
                        skill=draw(st.sampled_from([None, "ops", "a:ops"])),
                        status=draw(st.sampled_from(["ok", "ok", "error", "denied"])),
                        unreadable=draw(st.lists(PATHS, max_size=1))))
    return out


@given(calls(), calls(), MOMENTS)
def test_calls_after_the_moment_never_change_a_positive_verdict(
        run: list[Call], more: list[Call], moment: str) -> None:
    spec = ScoreSpec(kind="positive", required=REQUIRED, moment=moment)
    first = score(spec, run)
    if first.moment_at is None or moment == "end":
        return
    later = score(spec, run + [c.model_copy(update={"index": len(run) + i}) for i, c in enumerate(more)])
    assert (later.verdicts, later.overall, later.moment_at) == (first.verdicts, first.overall, first.moment_at)


@given(calls(), MOMENTS, st.sampled_from(["positive", "negative"]))
def test_a_denied_read_never_counts(run: list[Call], moment: str, kind: str) -> None:
    spec = ScoreSpec(kind=kind, required=REQUIRED, moment=moment)  # type: ignore[arg-type]
    denied = [c.model_copy(update={"status": "denied"}) if c.kind in ("read", "shell") else c for c in run]
    with_denied = score(spec, denied + [Call(index=len(run), tool="Read", kind="read", status="denied",
                                             path="<plugin>/references/writing.md")])
    assert all(v is None for v in with_denied.reads.values())


@given(calls(), calls())
def test_appending_calls_never_unopens_a_negative(run: list[Call], more: list[Call]) -> None:
    spec = ScoreSpec(kind="negative", required=REQUIRED)
    first = score(spec, run)
    later = score(spec, run + more)
    for key, verdict in first.verdicts.items():
        if verdict == "opened":
            assert later.verdicts[key] == "opened"
            assert later.reads[key] == first.reads[key]


@given(calls(), MOMENTS, st.sampled_from(["positive", "negative"]))
def test_score_never_raises(run: list[Call], moment: str, kind: str) -> None:
    result = score(ScoreSpec(kind=kind, required=REQUIRED, moment=moment), run)  # type: ignore[arg-type]
    assert list(result.verdicts) == list(result.reads) == REQUIRED


READ_FIRST = "cat references/writing.md; "


@given(st.text())
def test_a_complete_read_before_any_text_is_seen(text: str) -> None:
    """Whatever follows `;` (junk, an open quote, a heredoc), the complete `cat` before it is a read."""
    analyze(text)  # never raises
    assert analyze(READ_FIRST + text).reads[:1] == ["references/writing.md"]


SHELLISH = st.lists(st.sampled_from([*"ab/. $(){}`'\"\\|&;<>\n*=-#~09",
    "cat ", "cd ", "<<EOF", "EOF", "$(", "for f in ", "; do ", "done", "python3 -c ", "<plugin>", "sed -i ",
    "bash -c ", "${X}", "X=", "2>&1"]), max_size=120)


@pytest.mark.slow
@settings(max_examples=3000, deadline=None)
@given(st.one_of(st.text(max_size=300), SHELLISH.map("".join)))
def test_analyze_never_raises_slow(text: str) -> None:
    analyze(text)
    assert analyze(READ_FIRST + text).reads[:1] == ["references/writing.md"]
