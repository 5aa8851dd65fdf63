"""Case authoring: templates, defaults from the routing table, naive check, importers, and error locations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from authoring_support import PLUGIN

from workbench.cli import main
from workbench.core.case_import import import_routing_eval, import_skill_creator
from workbench.core.case_templates import case_toml, from_template, naive_problems, non_discriminating
from workbench.core.cases import load_case, load_cases
from workbench.core.errors import InputError
from workbench.core.models import Case, RunRecord
from workbench.core.routing import find_row, parse_files
from workbench.core.workspace import load_workspace

ROWS = parse_files([PLUGIN / "skills/ops/SKILL.md"], plugin=PLUGIN)
ALL = ["workflows/commit.md", "workflows/pull-request.md", "workflows/release.md", "workflows/diagnosis.md",
       "workflows/migration.md", "workflows/docs.md", "workflows/dependency-update.md", "workflows/incident.md"]


@pytest.fixture
def ws_dir(tmp_path: Path) -> Path:
    """A workspace whose plugin is the demo plugin (by absolute path)."""
    (tmp_path / "workbench.toml").write_text(f'[plugin]\npath = "{PLUGIN}"\n')
    (tmp_path / "cases").mkdir()
    return tmp_path


@pytest.mark.parametrize(("template", "moment"), [("first-edit", "edit"), ("commit", "commit"), ("pr", "pr"),
                                                   ("end", "end")])
def test_templates_round_trip_through_the_loader(ws_dir: Path, template: str, moment: str,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ws_dir)
    assert main(["case", "new", "--template", template, "--row", "incident"]) == 0
    case = load_case(ws_dir / "cases" / f"incident-{template}.toml")
    assert (case.target, case.kind, case.moment) == ("ops/incident", "positive", moment)
    assert case.required == ["workflows/incident.md", "workflows/diagnosis.md"]


def test_command_template_escapes_the_command() -> None:
    row = find_row(ROWS, "release")
    assert row is not None
    case = from_template("command", row, command="make release")
    assert case.moment == r"bash:make\ release" and case.required == ["workflows/release.md"]
    with pytest.raises(InputError) as err:
        from_template("command", row)
    assert err.value.field == "--command"


def test_required_defaults_and_negative_exceptions(ws_dir: Path) -> None:
    cases = ws_dir / "cases"
    (cases / "p.toml").write_text('target = "commit"\nkind = "positive"\nprompt = "Commit it"\nmoment = "commit"\n')
    (cases / "n.toml").write_text('target = "none"\nkind = "negative"\nprompt = "What is this?"\n'
                                  'moment = "end"\nexceptions = ["workflows/docs.md"]\n')
    (cases / "all.toml").write_text('target = "none"\nkind = "negative"\nprompt = "What is this?"\nmoment = "end"\n')
    by_id = {c.id: c for c in load_cases(cases)}
    assert by_id["p"].required == ["workflows/commit.md"]
    assert by_id["all"].required == ALL
    assert by_id["n"].required == [f for f in ALL if f != "workflows/docs.md"]


def test_case_errors_name_file_line_and_field(ws_dir: Path) -> None:
    path = ws_dir / "cases" / "bad.toml"
    path.write_text('target = "nope"\nkind = "positive"\nprompt = "p"\n')
    with pytest.raises(InputError) as err:
        load_case(path)
    assert (err.value.file, err.value.line, err.value.field) == (str(path), 1, "target")
    assert "no routing row" in str(err.value)
    path.write_text('target = "commit"\nkind = "positive"\nprompt = "p"\nexceptions = "x"\n')
    with pytest.raises(InputError) as err:
        load_case(path)
    assert (err.value.file, err.value.line, err.value.field) == (str(path), 4, "exceptions")


def test_workspace_errors_name_file_line_and_key(tmp_path: Path) -> None:
    file = tmp_path / "workbench.toml"
    file.write_text('name = "x"\n\n[plugin]\npath = "p"\nrouting = "SKILL.md"\n')
    with pytest.raises(InputError) as err:
        load_workspace(tmp_path)
    assert (err.value.file, err.value.line, err.value.field) == (str(file), 5, "plugin.routing")
    file.write_text('name = "x"\n[audit]\ntoken_cap = -1\n')
    with pytest.raises(InputError) as err:
        load_workspace(tmp_path / "sub" if (tmp_path / "sub").mkdir() is None else tmp_path)
    assert (err.value.line, err.value.field) == (3, "audit.token_cap")
    file.write_text('name = "x"\nbogus = 1\n')
    with pytest.raises(InputError) as err:
        load_workspace(tmp_path)
    assert (err.value.line, err.value.field) == (2, "bogus")
    file.write_text('name = \n')
    with pytest.raises(InputError) as err:
        load_workspace(tmp_path)
    assert (err.value.file, err.value.line) == (str(file), 1)


def test_init_writes_a_loadable_workspace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import shutil

    shutil.copytree(PLUGIN, tmp_path / "p")
    assert main(["init", str(tmp_path / "p")]) == 0
    ws = load_workspace(tmp_path / "p" / "skills")
    assert ws.file == (tmp_path / "p" / "workbench.toml").resolve() and not ws.demo
    assert ws.config.plugin.entry_skill == "ops"
    assert [p.name for p in ws.routing_files()] == ["SKILL.md"] and len(ws.procedure_files()) == 8
    assert main(["init", str(tmp_path / "p")]) == 2, "refuses to overwrite"


def test_naive_check_flags_prompts_naming_skill_or_file() -> None:
    def case(prompt: str, kind: str = "positive") -> Case:
        return Case(id="c", target="commit", kind=kind, prompt=prompt, required=["workflows/commit.md"])  # type: ignore[arg-type]

    assert naive_problems(case("Fix the typo and commit the fix."), ROWS) == []
    assert naive_problems(case("Use the ops skill, then commit."), ROWS) == ["the prompt names the Skill 'ops'"]
    assert naive_problems(case("Read commit.md and commit."), ROWS) == ["the prompt names the procedure file 'commit.md'"]
    assert naive_problems(case("Read commit.md", "negative"), ROWS) == []
    assert naive_problems(case("Attach ops.log and precommit.md to the ticket, then commit."), ROWS) == []
    assert naive_problems(case("Run /ops now."), ROWS) == ["the prompt names the Skill 'ops'"]


def test_demo_cases_are_naive() -> None:
    ws = load_workspace(PLUGIN)
    assert all(naive_problems(c, ROWS) == [] for c in load_cases(ws.cases_dir))


def test_non_discriminating_cases() -> None:
    def rec(case_id: str, arm: str, overall: str) -> RunRecord:
        return RunRecord(condition="confined", host="sim", target="t", kind="positive", case_id=case_id, arm=arm,
                         overall=overall)  # type: ignore[arg-type]

    records = [rec("same", "a", "fired"), rec("same", "b", "fired"), rec("diff", "a", "fired"),
               rec("diff", "b", "skip"), rec("one-arm", "a", "skip")]
    assert non_discriminating(records) == ["same"]


def test_import_routing_eval(tmp_path: Path) -> None:
    src = tmp_path / "fixtures.jsonl"
    src.write_text("\n".join(json.dumps(x) for x in [
        {"id": "pr-1", "prompt": "Open a PR for this", "expect": "workflows/pull-request.md", "distractor": "commit"},
        {"id": "q", "prompt": "What does app do?", "expect": None, "distractor": True},
        {"id": "x", "prompt": "Do it", "expect": ["incident", "nowhere.md"], "weight": 2},
    ]) + "\n")
    got = import_routing_eval(src, ROWS)
    assert [(i.case.id, i.case.kind, i.case.target, i.case.required) for i in got] == [
        ("pr-1", "positive", "ops/pull-request", ["workflows/pull-request.md"]),
        ("q", "negative", "none", []),
        ("x", "positive", "ops/incident", ["workflows/incident.md", "workflows/diagnosis.md", "nowhere.md"])]
    assert any("distractor 'commit'" in n for n in got[0].notes)
    assert got[2].unmapped == ["weight"] and got[0].unmapped == []
    assert any("nowhere.md" in n for n in got[2].notes)
    src.write_text('{"id": 1}\nnot json\n')
    with pytest.raises(InputError) as err:
        import_routing_eval(src, ROWS)
    assert (err.value.line, err.value.field) == (1, "prompt")


def test_import_skill_creator_via_cli(ws_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = ws_dir / "evals.json"
    src.write_text(json.dumps({"skill_name": "ops", "evals": [
        {"id": 1, "prompt": "Bump requests", "expected_output": "updated", "files": [], "expectations": ["ok"]},
        {"id": 2, "prompt": "Write a haiku", "should_trigger": False}]}))
    monkeypatch.chdir(ws_dir)
    assert main(["case", "import", str(src), "--format", "skill-creator"]) == 0
    first = (ws_dir / "cases" / "ops-1.toml").read_text()
    assert "Not mapped: expected_output" in first and "Not mapped: expectations" in first
    cases = {c.id: c for c in load_cases(ws_dir / "cases")}
    assert cases["ops-1"].required == ALL and cases["ops-1"].target == "ops"
    assert cases["ops-2"].kind == "negative" and cases["ops-2"].required == ALL
    assert import_skill_creator(src, ROWS)[1].case.kind == "negative"


def test_case_toml_round_trip(tmp_path: Path) -> None:
    case = Case(id="c", target="commit", kind="positive", prompt='say "hi"\nthen commit', required=["a.md"],
                moment="commit", extra_files={"x.txt": "1"})
    path = tmp_path / "c.toml"
    path.write_text(case_toml(case, comment="a\nb"))
    assert load_case(path, rows=[]) == case


IMPORTS = Path(__file__).resolve().parent / "data" / "importers" / "skill-creator"


def test_import_real_skill_creator_evals_reports_every_unmapped_field(
        ws_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(ws_dir)
    src = str(IMPORTS / "evals.json")
    assert main(["case", "import", src, "--format", "skill-creator"]) == 2, "skill_name matches no Skill here"
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'example-skill'" in err and "no Skill has that name" in err
    assert main(["case", "import", src, "--format", "skill-creator", "--target", "pull-request"]) == 0
    err = capsys.readouterr().err
    assert {line.split("'")[1] for line in err.splitlines()} == {"expected_output", "files", "expectations"}
    case = load_case(ws_dir / "cases" / "example-skill-1.toml")
    assert (case.target, case.kind, case.required) == ("ops/pull-request", "positive", ["workflows/pull-request.md"])
    text = (ws_dir / "cases" / "example-skill-1.toml").read_text()
    assert "# Not mapped: expected_output\n# Not mapped: files\n# Not mapped: expectations\n" in text
    assert load_workspace(ws_dir).config.rows == {"ops/pull-request": "Before opening or updating a PR -> "
                                                                      "workflows/pull-request.md"}


def test_import_real_trigger_eval_list_needs_a_target(ws_dir: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(ws_dir)
    src = str(IMPORTS / "trigger-eval.json")
    assert main(["case", "import", src, "--format", "trigger-eval"]) == 2
    assert "pass --target ROW|SKILL" in capsys.readouterr().err
    assert main(["case", "import", src, "--format", "skill-creator"]) == 2, "a list is not an evals.json"
    assert main(["case", "import", src, "--format", "trigger-eval", "--target", "nope"]) == 2
    assert "no routing row 'nope'" in capsys.readouterr().err
    assert main(["case", "import", src, "--format", "trigger-eval", "--target", "commit"]) == 0
    cases = {c.id: c for c in load_cases(ws_dir / "cases")}
    first = cases["trigger-eval-1"]
    assert (first.kind, first.target, first.required, first.moment) == ("positive", "ops/commit", ["ops/SKILL.md"],
                                                                         "end"), "a trigger eval measures activation"
    assert (cases["trigger-eval-2"].kind, cases["trigger-eval-2"].target) == ("negative", "none")
    assert first.prompt.startswith("commit the typo fix")
    assert main(["case", "import", src, "--format", "trigger-eval", "--target", "commit", "--measure", "procedures",
                 "--force"]) == 0
    first = {c.id: c for c in load_cases(ws_dir / "cases")}["trigger-eval-1"]
    assert (first.required, first.moment) == (["workflows/commit.md"], "edit")
