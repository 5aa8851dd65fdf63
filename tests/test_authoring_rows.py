"""Rows as authors write them: markdown forms, clauses on either side, stable ids, one-line errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.cli import main
from workbench.core.errors import InputError
from workbench.core.lint import lint_rows
from workbench.core.routing import assign_ids, find_row, parse_files, parse_text, unknown_row_message

TABLE = "| When | Read |\n|---|---|\n"


def rows_of(text: str, tmp_path: Path, name: str = "SKILL.md") -> list[tuple[str, str, list[str]]]:
    rows = assign_ids(parse_text(text, tmp_path / name, skill="s"))
    return [(r.id, r.trigger, [lk.target for lk in r.links]) for r in rows]


def test_markdown_forms(tmp_path: Path) -> None:
    text = ("---\nname: s\ndescription: >\n  Use before committing\n  or tagging.\n---\n" + TABLE +
            '| Before tagging | [rel](release.md "the release procedure") |\n'
            "| Before piping a \\| b | [pipe](<pipe dir/pipe.md>) |\n"
            "| Before merging | [merge][m] |\n\n"
            "```md\n| Before faking | [fake](fake.md) |\n- Before faking, read [fake](fake.md)\n```\n\n"
            "[m]: merge.md\n")
    assert rows_of(text, tmp_path) == [
        ("s/description", "Use before committing or tagging.", []),
        ("s/release", "Before tagging", ["release.md"]),
        ("s/pipe", "Before piping a | b", ["pipe dir/pipe.md"]),
        ("s/merge", "Before merging", ["merge.md"]),
    ]


def test_literal_block_scalar_description(tmp_path: Path) -> None:
    text = "---\ndescription: |-\n  Use when\n  debugging.\nname: s\n---\n# s\n"
    rows = parse_text(text, tmp_path / "SKILL.md")
    assert [(r.kind, r.trigger, r.line) for r in rows] == [("description", "Use when debugging.", 2)]


def test_prose_and_list_routes_with_the_clause_on_either_side(tmp_path: Path) -> None:
    text = ("# s\n\nWhen writing or changing any test, read [tests](tests.md). Other prose.\n\n"
            "For material work, apply [elon](elon/index.md) before accepting requirements.\n\n"
            "- **`trace.md`** - Read when a bug's origin is unclear\n"
            "- [prose](prose.md) before editing a `SKILL.md`\n"
            "- **`notes.md`** - background on the design\n"
            "- Don't read [bad](bad.md) before answering.\n"
            "- Save the plan to `docs/plans/plan.md` before starting.\n"
            "See [ref](ref.md) for details.\n\n# Code\n\n"
            "    Before indenting, read [code](code.md)\n")
    assert rows_of(text, tmp_path) == [
        ("s/tests", "When writing or changing any test", ["tests.md"]),
        ("s/elon", "For material work", ["elon/index.md"]),
        ("s/trace", "Read when a bug's origin is unclear", ["trace.md"]),
        ("s/prose", "before editing a `SKILL.md`", ["prose.md"]),
        # an index item (the file, then what it covers) routes by topic: a row, which lint flags for no moment
        ("s/notes", "background on the design", ["notes.md"]),
    ]


def test_inserting_a_row_changes_no_existing_id(tmp_path: Path) -> None:
    before = TABLE + "| Before a | [a](w/a.md) |\n| Before b | [b](w/b/index.md) |\n| Before c | [c](c.md) |\n"
    after = TABLE + "| Before z | [z](w/z.md) |\n| Before a | [a](w/a.md) |\n| Before y | [y](y/index.md) |\n" \
                    "| Before b | [b](w/b/index.md) |\n| Before c | [c](c.md) |\n"
    old = {r[2][0]: r[0] for r in rows_of(before, tmp_path)}
    new = {r[2][0]: r[0] for r in rows_of(after, tmp_path)}
    assert old == {"w/a.md": "s/a", "w/b/index.md": "s/b", "c.md": "s/c"}
    assert {k: new[k] for k in old} == old and len(set(new.values())) == 5


def test_a_vanished_row_names_the_closest_candidates(tmp_path: Path) -> None:
    rows = assign_ids(parse_text(TABLE + "| Before committing | [c](commit.md) |\n", tmp_path / "SKILL.md", skill="ops"))
    assert find_row(rows, "ops/commit") is rows[0] and find_row(rows, "commit") is rows[0]
    assert find_row(rows, "ops/comit") is None
    assert "closest: ops/commit" in unknown_row_message(rows, "ops/comit")


def test_non_utf8_file_is_one_line_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    skill = tmp_path / "skills/s/SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_bytes(b"# s\n\nBefore x, read [a](a.md) \xff\n")
    with pytest.raises(InputError, match="not UTF-8"):
        parse_files([skill])
    good = tmp_path / "skills/t/SKILL.md"
    good.parent.mkdir(parents=True)
    good.write_text("# t\n\nBefore y, read [b](b.md).\n")
    (tmp_path / "workbench.toml").write_text('[plugin]\npath = "."\n')
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert main(["rows"]) == 0  # one bad file is one warning; the rest of the marketplace is read
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "s/SKILL.md:3" in lines[0] and "not UTF-8" in lines[0]
    assert "t/b" in out


def test_trailing_clause_and_imperatives_are_not_flagged(tmp_path: Path) -> None:
    """Wordings measured good in #182 (conformance/agentsmd/182-routing-sweep) must lint clean."""
    text = TABLE + (
        "| Before editing a `SKILL.md` | [wfa](wfa/index.md); [prose](prose.md) before editing a `SKILL.md` |\n"
        "| Initialize or reload Project Direction | [context](context.md) |\n"
        "| Edit tracked files or select a workspace | [impl](implementation.md) |\n"
        "| User explicitly asks to consult Grok | [grok](use-grok/index.md) |\n")
    rows = assign_ids(parse_text(text, tmp_path / "SKILL.md", skill="s"))
    assert lint_rows(rows, max_row_chars=400) == []
    weak = assign_ids(parse_text(TABLE + "| Claim readiness | [v](verification.md) |\n"
                                 "| Before committing | [t](t.md) and [p](p.md) |\n", tmp_path / "SKILL.md", skill="s"))
    assert {(f.row, f.rule) for f in lint_rows(weak)} == {
        ("s/verification", "no-before-clause"), ("s/verification", "state-trigger"),
        ("s/t", "no-before-clause"), ("s/t", "bare-conjunct")}


def test_explain_and_empty_globs_and_templated_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    skill = tmp_path / "skills/s/SKILL.md"
    (tmp_path / "skills/s/python").mkdir(parents=True)
    (tmp_path / "skills/s/python/style.md").write_text("x")
    skill.write_text("# s\n\n" + TABLE + "| Before styling | [style]({language}/style.md) |\n"
                     "| Before casing | [case](Python/style.md) |\n")
    (tmp_path / "workbench.toml").write_text('[plugin]\npath = "."\nprocedures = ["procs/*.md"]\n')
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert main(["rows", "--explain"]) == 0
    out = capsys.readouterr().out
    assert "why: table row: trigger in the column headed" in out and "clause before the link: 'Before styling" in out
    assert main(["audit", "--strict"]) == 1
    out = capsys.readouterr().out
    assert "EMPTY-GLOB" in out and "'procs/*.md' matches no file" in out
    assert "Python/style.md does not exist" in out and "{language}" not in out
    assert main(["lint", "--explain", "state-trigger"]) == 0
    assert "evidence:" in capsys.readouterr().out
    assert main(["lint", "--explain", "nope"]) == 2
