"""Ids of rows that link the same file stay put when a row is inserted among them, and a marketplace
whose plugins list their Skills (`source: "./"`, `skills: [...]`) namespaces each Skill by its plugin."""

from __future__ import annotations

import json
from pathlib import Path

from workbench.core.routing import assign_ids, parse_text, read_files

STEPS = ["Before labelling, read [kit](kit.md).", "Before sealing, read [kit](kit.md).",
         "Before weighing, read [kit](kit.md).", "Before shipping, read [kit](kit.md)."]


def ids(lines: list[str], tmp_path: Path) -> dict[str, str]:
    text = "# Pack\n\n## Steps\n\n" + "".join(f"- {line}\n" for line in lines)
    return {r.trigger: r.id for r in assign_ids(parse_text(text, tmp_path / "SKILL.md", skill="pack"))}


def test_inserting_mid_section_renames_no_row(tmp_path: Path) -> None:
    before = ids(STEPS, tmp_path)
    assert before == {"Before labelling": "pack/kit", "Before sealing": "pack/kit#steps",
                      "Before weighing": "pack/kit#before-weighing", "Before shipping": "pack/kit#before-shipping"}
    after = ids([*STEPS[:2], "Before taping, read [kit](kit.md).", *STEPS[2:]], tmp_path)
    assert {k: after[k] for k in before} == before
    assert after["Before taping"] == "pack/kit#before-taping"


def test_the_same_trigger_twice_still_gets_unique_ids(tmp_path: Path) -> None:
    rows = assign_ids(parse_text("# P\n\n## Steps\n\n" + "".join(f"- {s}\n" for s in [*STEPS[:2], STEPS[1], STEPS[1]]),
                                 tmp_path / "SKILL.md", skill="pack"))
    assert [r.id for r in rows] == ["pack/kit", "pack/kit#steps", "pack/kit#before-sealing",
                                    "pack/kit#before-sealing-2"]


def test_skills_listed_by_a_root_plugin_are_namespaced(tmp_path: Path) -> None:
    manifest = {"name": "shop", "plugins": [
        {"name": "paper", "source": "./", "skills": ["./skills/memo", "./skills/sheet"]},
        {"name": "tools", "source": "./", "skills": ["./skills/lathe"]}]}
    (tmp_path / ".claude-plugin").mkdir()
    (tmp_path / ".claude-plugin/marketplace.json").write_text(json.dumps(manifest))
    files = []
    for name in ("memo", "sheet", "lathe", "loose"):
        skill = tmp_path / "skills" / name / "SKILL.md"
        skill.parent.mkdir(parents=True)
        skill.write_text(f"---\nname: {name}\ndescription: Use when {name}.\n---\nBefore cutting, read [c](c.md).\n")
        files.append(skill)
    rows, bad = read_files(files, plugin=tmp_path)
    assert not bad
    assert sorted(r.id for r in rows if r.kind != "description") == [
        "loose/c", "paper:memo/c", "paper:sheet/c", "tools:lathe/c"]
