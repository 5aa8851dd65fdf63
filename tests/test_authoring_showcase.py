"""Lists that show files rather than route to them make no row, and `rows --explain` says why;
links in headings, table header rows and inline HTML are still followed (reach) or read (rows)."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.cli import main
from workbench.core.markdown import mentions
from workbench.core.routing import Rejected, assign_ids, parse_text

SHOWCASE = """---
name: brew
description: Use when brewing a batch.
---
# Brew

Before mashing, read [mash](steps/mash.md).

## Examples

- [Stout](samples/stout.md) - when the user asks for a dark beer
- **`samples/lager.md`** - a crisp lager

### Example output files
- `out/label.md`: the bottle label

## Outputs

| File | Contents |
|---|---|
| [log.md](log.md) | Brew-day notes |

**Name the commands after their files:**
- `bottle.md` → `/bottle`

**Keep this file short.** Move long tables to steps/:
- Hop schedules → `steps/hops.md`

**Layout:**
- File location: `.brew/settings.local.md` in the project root

## Later

- Before bottling, read [bottle](steps/bottle.md).
"""


def test_example_output_and_mapping_lists_are_not_routes(tmp_path: Path) -> None:
    rejected: list[Rejected] = []
    rows = assign_ids(parse_text(SHOWCASE, tmp_path / "SKILL.md", rejected=rejected))
    assert [(r.id, r.trigger) for r in rows] == [("brew/description", "Use when brewing a batch."),
                                                 ("brew/mash", "Before mashing"),
                                                 ("brew/bottle", "Before bottling")]
    why = {r.line: r.why for r in rejected}
    lines = SHOWCASE.split("\n")
    at = {key: next(i + 1 for i, line in enumerate(lines) if key in line)
          for key in ("stout", "lager", "label", "log.md", "bottle.md", "hops", "settings")}
    assert "heading 'Examples'" in why[at["stout"]] and "heading 'Examples'" in why[at["lager"]]
    assert "heading 'Example output files'" in why[at["label"]]
    assert "heading 'Outputs'" in why[at["log.md"]]
    assert "file-to-command mapping" in why[at["bottle.md"]]
    assert "Move long tables" in why[at["hops"]]
    assert "where a file lives" in why[at["settings"]]


def test_the_same_route_outside_an_examples_heading_is_a_row(tmp_path: Path) -> None:
    text = "# Brew\n\n## Steps\n\n- [Stout](samples/stout.md) - when the user asks for a dark beer\n"
    rows = parse_text(text, tmp_path / "SKILL.md", skill="brew")
    assert [r.links[0].target for r in rows] == ["samples/stout.md"]


def test_a_link_in_a_table_header_row_is_a_row(tmp_path: Path) -> None:
    text = "# t\n\n| [chill](chill.md) | Before chilling the wort |\n|---|---|\n" \
           "| [pitch](pitch.md) | Before pitching yeast |\n"
    rows = parse_text(text, tmp_path / "SKILL.md", skill="brew")
    assert [(r.line, r.trigger, r.links[0].target) for r in rows] == [
        (3, "Before chilling the wort", "chill.md"), (5, "Before pitching yeast", "pitch.md")]


def test_mentions_follow_headings_header_rows_and_html() -> None:
    text = ("# Start with [intro](intro.md)\n\n| [head](head.md) | x |\n|---|---|\n| a | b |\n\n"
            '<details><summary>More</summary>\n<a href="more.md">more</a>\n</details>\n\n'
            'Inline <a href="inline.md#part">here</a> too.\n')
    assert [m.target for m in mentions(text)] == ["intro.md", "head.md", "more.md", "inline.md"]


def test_rows_explain_says_why_not(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    skill = tmp_path / "skills/brew/SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text(SHOWCASE)
    (tmp_path / "workbench.toml").write_text('[plugin]\npath = "."\n')
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert main(["rows", "--explain"]) == 0
    out = capsys.readouterr().out
    assert "not a row\t- **`samples/lager.md`** - a crisp lager\n  why not: under the heading 'Examples'" in out
    assert main(["rows"]) == 0
    assert "not a row" not in capsys.readouterr().out


def test_a_second_code_span_joined_by_and_is_a_link_too(tmp_path: Path) -> None:
    text = "# t\n\nRead `steps/boil.md` and `steps/cool.md` for the details.\n\nRun `a.md` and `b.md` later.\n"
    rows = parse_text(text, tmp_path / "SKILL.md", skill="brew")
    assert [[(lk.target, lk.wording) for lk in r.links] for r in rows] == [
        [("steps/boil.md", "state"), ("steps/cool.md", "bare-and")]]


def test_a_file_read_only_if_it_exists_is_no_route(tmp_path: Path) -> None:
    rejected: list[Rejected] = []
    text = "# t\n\nRead `ROADMAP.md` if it exists. Before brewing, read [boil](steps/boil.md).\n"
    rows = parse_text(text, tmp_path / "SKILL.md", skill="brew", rejected=rejected)
    assert [r.links[0].target for r in rows] == ["steps/boil.md"]
    assert [r.why for r in rejected] == [
        "a file that may not exist (\"if it exists\"): the user's project file, not a procedure"]


def test_a_templated_code_span_reaches_every_file_it_matches() -> None:
    assert [m.target for m in mentions("Read `notes/<kind>.md` for the kind at hand.\n")] == ["notes/<kind>.md"]


def test_an_angle_template_reaches_the_files_it_matches(tmp_path: Path) -> None:
    from workbench.core.reach import reachable

    skill = tmp_path / "skills/brew/SKILL.md"
    (skill.parent / "notes").mkdir(parents=True)
    skill.write_text("---\nname: brew\ndescription: Use when brewing.\n---\nRead `notes/<kind>.md` for the kind.\n")
    for name in ("ale", "mead"):
        (skill.parent / "notes" / f"{name}.md").write_text(f"# {name}\n")
    seen, _ = reachable([skill], tmp_path)
    assert {p.name for p in seen} == {"SKILL.md", "ale.md", "mead.md"}


def test_a_templated_output_path_reaches_nothing() -> None:
    text = "**Save notes to:** `docs/notes/<day>.md`\n\nThe log is written to `logs/<run>.md`.\n"
    assert mentions(text) == []
