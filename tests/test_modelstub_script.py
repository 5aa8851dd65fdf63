"""The host-neutral script: validation errors name file and field; placeholders; per-host turn plans."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.core.errors import InputError
from workbench.modelstub.openai_responses import add_patch, update_patch
from workbench.modelstub.script import Script, ScriptCall, load_script, parse_script, substitute
from workbench.modelstub.turns import FINAL_TEXT, count_runs, pick_turn, plan_turns
from workbench.modelstub.wire import codex_skill_files, listed_skills, plugins_of

EDIT = {"edit": {"path": "{repo}/notes.txt", "old": "todo", "new": "done"}}


def test_loads_json_and_toml_to_the_same_script(tmp_path: Path) -> None:
    data = {"steps": [{"say": "hi", "calls": [{"read": "{repo}/a.md"}, {"shell": "ls"}, EDIT,
                                              {"write": {"path": "x", "content": "y"}}, {"skill": "deploy"}]},
                      {"say": "bye"}]}
    (tmp_path / "s.json").write_text(json.dumps(data))
    (tmp_path / "s.toml").write_text(
        '[[steps]]\nsay = "hi"\ncalls = [{read = "{repo}/a.md"}, {shell = "ls"},\n'
        '  {edit = {path = "{repo}/notes.txt", old = "todo", new = "done"}},\n'
        '  {write = {path = "x", content = "y"}}, {skill = "deploy"}]\n[[steps]]\nsay = "bye"\n')
    from_json, from_toml = load_script(tmp_path / "s.json"), load_script(tmp_path / "s.toml")
    assert from_json == from_toml
    assert [c.kind for c in from_json.steps[0].calls] == ["read", "shell", "edit", "write", "skill"]
    assert from_json.model_dump(exclude_none=True)["steps"][0] == data["steps"][0]
    assert parse_script(from_json.model_dump(exclude_none=True)) == from_json


@pytest.mark.parametrize(("data", "field", "words"), [
    ({}, "steps", "Field required"),
    ({"steps": []}, "steps", "at least 1"),
    ({"steps": [{"calls": [{"read": "a", "shell": "b"}]}]}, "steps[0].calls[0]", "exactly one"),
    ({"steps": [{"calls": [{}]}]}, "steps[0].calls[0]", "exactly one"),
    ({"steps": [{"calls": [{"open": "a"}]}]}, "steps[0].calls[0].open", "Extra inputs"),
    ({"steps": [{"calls": [{"edit": {"path": "p", "old": "a"}}]}]}, "steps[0].calls[0].edit.new", "required"),
    ({"steps": [{"say": "x"}, {"calls": [{"read": "a"}]}]}, None, "ends the run"),
    ({"steps": [{"calls": [{"read": 3}]}]}, "steps[0].calls[0].read", "string"),
    ({"steps": [{"calls": [{"agent": {"prompt": "p", "steps": [{"calls": [{"agent": {
        "prompt": "q", "steps": [{"say": "x"}]}}]}]}}]}]}, "steps[0].calls[0].agent", "cannot delegate again"),
    ({"steps": [{"calls": [{"agent": {"prompt": "read", "steps": [{"say": "a"}]}},
                           {"agent": {"prompt": "read it", "steps": [{"say": "b"}]}}]}]}, None,
     "part of another agent's prompt"),
    ({"steps": [{"calls": [{"agent": {"prompt": "p", "steps": []}}]}]}, "steps[0].calls[0].agent.steps",
     "at least 1"),
])
def test_bad_scripts_name_the_field(data: object, field: str | None, words: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_script(data, file="case.json")
    assert caught.value.file == "case.json"
    assert caught.value.field == field
    assert words in caught.value.message


def test_syntax_errors_name_file_and_line(tmp_path: Path) -> None:
    bad_json = tmp_path / "s.json"
    bad_json.write_text('{"steps": [\n  {"say": "x",}\n]}')
    with pytest.raises(InputError) as caught:
        load_script(bad_json)
    assert (caught.value.file, caught.value.line) == (str(bad_json), 2)
    bad_toml = tmp_path / "s.toml"
    bad_toml.write_text('[[steps]]\nsay = "x"\ncalls = [{read = }]\n')
    with pytest.raises(InputError) as caught:
        load_script(bad_toml)
    assert (caught.value.file, caught.value.line) == (str(bad_toml), 3)
    with pytest.raises(InputError, match="cannot read"):
        load_script(tmp_path / "missing.json")


def test_placeholders_replace_only_known_names() -> None:
    script = parse_script({"steps": [{"say": "in {repo}", "calls": [
        {"shell": "awk '{print $1}' {outside}/f {x}"},
        {"edit": {"path": "{repo}/n", "old": "{home}", "new": "{plugin}/p"}}]}]})
    done = script.resolved({"repo": "/r", "home": "/h", "plugin": "/p", "outside": "/o"})
    assert done.steps[0].say == "in /r"
    assert done.steps[0].calls[0].shell == "awk '{print $1}' /o/f {x}"
    edit = done.steps[0].calls[1].edit
    assert edit is not None and (edit.path, edit.old, edit.new) == ("/r/n", "/h", "/p/p")
    assert substitute("{repo}{repo}", {"repo": "a"}) == "aa"
    assert script.steps[0].say == "in {repo}"  # the original is untouched


def test_claude_plan_reads_an_unread_edit_target_first() -> None:
    script = Script.model_validate({"steps": [
        {"say": "go", "calls": [{"shell": "ls"}, {"edit": {"path": "n", "old": "a", "new": "b"}}]},
        {"calls": [{"edit": {"path": "n", "old": "b", "new": "c"}}]},
        {"calls": [{"read": "m"}, {"edit": {"path": "m", "old": "a", "new": "b"}}]}]})
    claude = plan_turns(script, read_before_edit=True)
    kinds = [[(c.kind, c.path) for c in t.calls] for t in claude]
    assert kinds == [[("read", "n")], [("shell", None), ("edit", "n")], [("edit", "n")],
                     [("read", "m"), ("edit", "m")], []]
    assert [t.text for t in claude] == ["go", None, None, None, FINAL_TEXT]
    assert [t.step for t in claude] == [0, 0, 1, 2, 3]
    plain = plan_turns(script)
    assert [len(t.calls) for t in plain] == [2, 1, 2, 0]
    assert pick_turn(plain, 99).final and pick_turn(plain, 1) is plain[1]


def test_a_final_say_step_is_the_last_turn() -> None:
    turns = plan_turns(Script.model_validate({"steps": [{"calls": [{"read": "a"}]}, {"say": "bye"}]}))
    assert [(t.text, len(t.calls)) for t in turns] == [(None, 1), ("bye", 0)]


def test_count_runs_counts_groups_not_messages() -> None:
    assert count_runs([]) == 0
    assert count_runs([False, True, True, False, True]) == 2
    assert count_runs([True, False, False, True, True, True]) == 2


def test_codex_patches_widen_old_text_to_whole_lines(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("notes\nstatus: todo\nend\n")
    patch = update_patch("notes.txt", "todo", "done", str(tmp_path))
    assert patch == ("*** Begin Patch\n*** Update File: notes.txt\n@@\n-status: todo\n+status: done\n"
                     "*** End Patch\n")
    assert "-gone\n+there\n" in update_patch(str(tmp_path / "absent"), "gone", "there", None)
    added = add_patch("/x/new.txt", "a\nb\n")
    assert added == "*** Begin Patch\n*** Add File: /x/new.txt\n+a\n+b\n*** End Patch\n"


def test_skill_listings_of_claude_and_codex() -> None:
    claude = ("<system-reminder>\nThe following skills are available for use with the Skill tool:\n\n"
              "- deploy: Ship it\n- acme:lint: Lint (file: /p)\n- **commit** - Commit\n</system-reminder>\n"
              "- notaskill: after the reminder")
    codex = ("<skills_instructions>\n### Skill roots\n- `r0` = `/h/.codex/skills`\n### Available skills\n"
             "- review: Review code. (file: r0/review/SKILL.md)\n- abs: x (file: /abs/SKILL.md)\n"
             "</skills_instructions>")
    assert listed_skills([claude, codex]) == ["deploy", "acme:lint", "commit", "review", "abs"]
    assert codex_skill_files(codex) == {"review": "/h/.codex/skills/review/SKILL.md", "abs": "/abs/SKILL.md"}
    assert plugins_of(["deploy", "acme:lint", "acme:fmt"]) == ["acme"]
    assert ScriptCall(skill="s").path is None


def test_toml_script_errors_name_file_line_and_field(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[[steps]]\nsay = "hi"\n\n[[steps.calls]]\nshell = 5\n')
    with pytest.raises(InputError) as err:
        load_script(bad)
    assert (err.value.file, err.value.line, err.value.field) == (str(bad), 5, "steps[0].calls[0].shell")
