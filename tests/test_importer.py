"""The AgentsMD importer: every published file loads, fields map as documented, originals are kept."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from workbench.core import importer, records
from workbench.core.errors import InputError

DATA = Path(__file__).parent / "data" / "conformance"
ALL_FILES = sorted(DATA.glob("*/*.jsonl"))


def first_line(name: str) -> dict[str, Any]:
    with (DATA / name).open() as fh:
        return dict(json.loads(fh.readline()))


def published_lines(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (DATA / name).read_text().splitlines() if line.strip()]


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_published_file_loads_without_problems(path: Path) -> None:
    loaded = records.load_file(path)
    assert loaded.problems == []
    assert len(loaded.records) == len(published_lines(str(path.relative_to(DATA))))
    assert all(r.imported_from == "agentsmd" and r.moment is None for r in loaded.records)


def test_sweep_record_maps_fields() -> None:
    raw = first_line("182-routing-sweep/records.jsonl")
    rec = importer.convert(raw)
    assert rec.host == "claude" and rec.model == raw["model"] and rec.effort == raw["effort"]
    assert [c.tool for c in rec.calls] == [c[0] for c in raw["calls"]]
    assert rec.calls[1].kind == "read" and rec.calls[1].path == raw["calls"][1][1]
    assert rec.calls[0].kind == "shell" and rec.calls[0].command == raw["calls"][0][1]
    assert rec.moment_at == raw["moment_at"] and rec.source == raw["source"] and rec.batch == raw["batch"]
    assert rec.usage.input_tokens == raw["usage"]["input"] and rec.usage.cost_usd == raw["usage"]["cost_usd"]
    assert rec.stored_verdict == raw["verdict"] and rec.verdict == raw["verdict"]
    assert rec.required == list(raw["required_read_at"])
    assert rec.published and rec.published["host"] == "claude-code"
    assert not rec.status_unknown and rec.imported_from == "agentsmd"


def test_failed_call_indexes_become_error_status_even_past_the_kept_calls() -> None:
    raw = next(r for r in published_lines("182-routing-sweep/records.jsonl")
               if r["failed_calls"] and max(r["failed_calls"]) >= len(r["calls"]))
    rec = importer.convert(raw)
    errors = [c.index for c in rec.calls if c.status == "error"]
    assert errors == [i for i in raw["failed_calls"] if i < len(raw["calls"])]
    assert rec.failed_calls == raw["failed_calls"]


def test_moment_index_is_the_kept_last_call_or_the_end() -> None:
    for path in ALL_FILES:
        for rec in records.load_file(path).records:
            if rec.moment_at is not None:
                assert rec.moment_at in (len(rec.calls) - 1, len(rec.calls)), (path, rec.target, rec.run)


def test_old_verdict_names_are_mapped_and_kept() -> None:
    raw = {"host": "claude-code", "target": "t", "kind": "positive", "calls": [["Read", "a.md"]],
           "verdict": {"a.md": "read-noedit", "b.md": "skip-nomoment"}, "first_edit": None}
    rec = importer.convert(raw)
    assert rec.verdict == {"a.md": "read-noaction", "b.md": "skip-noaction"}
    assert rec.stored_verdict == raw["verdict"]
    assert rec.overall == "skip-noaction"
    assert rec.status_unknown is True


def test_no_output_is_invalid_and_discarded_is_a_marking() -> None:
    raw = {"host": "codex", "target": "t", "kind": "positive", "calls": [], "verdict": {"a.md": "no-output"},
           "discarded": "escaped its repository", "failed_calls": []}
    rec = importer.convert(raw)
    assert rec.valid is False and rec.invalid_reason == "no-output"
    assert rec.discarded is not None and rec.discarded.reason == "escaped its repository"


def test_canary_shape_keeps_its_own_fields() -> None:
    raw = first_line("174-routing-injection/canary.jsonl")
    rec = importer.convert(raw)
    assert rec.model is not None and rec.effort is not None
    assert f"{rec.model} {rec.effort}" == raw["model"]
    assert rec.moment_at == raw["first_edit"] and rec.run == 0
    extra = rec.model_extra or {}
    assert extra["date"] == raw["date"] and extra["version"] == raw["version"]
    assert rec.calls[0].kind == "skill" and rec.calls[0].skill is None


def test_prefix_batches_are_marked_unverified() -> None:
    for name in ("174-routing-injection/records-prefix.jsonl", "174-routing-injection/midtask-prefix.jsonl",
                 "164-trigger-audit/records.jsonl"):
        recs = records.load_file(DATA / name).records
        assert all(r.status_unknown for r in recs), name
    fixed = records.load_file(DATA / "174-routing-injection/midtask.jsonl").records
    assert not any(r.status_unknown for r in fixed)


def test_imported_record_round_trips_through_the_store(tmp_path: Path) -> None:
    raw = first_line("174-routing-injection/canary.jsonl")
    rec = importer.convert(raw)
    out = tmp_path / "r.jsonl"
    records.append_record(out, rec)
    back = records.load_file(out).records[0]
    assert back.model_dump() == rec.model_dump()


def test_bad_field_names_file_line_and_field(tmp_path: Path) -> None:
    raw = first_line("182-routing-sweep/records.jsonl")
    raw["failed_calls"] = "three"
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(first_line("182-routing-sweep/records.jsonl")) + "\n" + json.dumps(raw) + "\n")
    with pytest.raises(InputError) as info:
        records.load_file(path)
    assert (info.value.line, info.value.field) == (2, "failed_calls")
    raw["failed_calls"] = []
    raw["kind"] = "sideways"
    path.write_text(json.dumps(raw) + "\n" + json.dumps(raw) + "\n")
    with pytest.raises(InputError) as info:
        records.load_file(path)
    assert (info.value.line, info.value.field) == (1, "kind")


def test_detection_tells_shapes_apart() -> None:
    assert importer.is_agentsmd({"calls": [["Read", "x"]]})
    assert not importer.is_agentsmd({"schema_version": 1, "calls": []})
    assert not importer.is_agentsmd({"calls": [{"index": 0, "tool": "Read", "kind": "read"}]})


def test_trigger_eval_should_trigger_is_boolean_only(tmp_path: Path) -> None:
    """"false" (a string), null or 0 is no boolean: exit-2 error naming file, item and field, never a positive."""
    import json as _json

    from workbench.core.case_import import import_trigger_eval
    from workbench.core.errors import InputError
    from workbench.core.routing import Link, Row

    link = Link("a", "a.md", tmp_path / "a.md", "before-action")
    rows = [Row("s", "Before x", (link,), 1, id="s/a", kind="table")]
    for bad in ("false", None, 0):
        path = tmp_path / "set.json"
        path.write_text(_json.dumps([{"query": "q1", "should_trigger": True}, {"query": "q2", "should_trigger": bad}]))
        try:
            import_trigger_eval(path, rows, target="s")
        except InputError as exc:
            assert "[1].should_trigger" in str(exc.field) and exc.file == str(path)
        else:
            raise AssertionError(f"should_trigger {bad!r} was accepted")


def test_skill_creator_dangling_required_is_warned_and_left_out(tmp_path: Path) -> None:
    """A link to a missing file never becomes `required` (no run could read it); the case says so."""
    from workbench.core.case_import import import_skill_creator
    from workbench.core.routing import Link, Row

    (tmp_path / "here.md").write_text("# here\n")
    links = (Link("h", "here.md", tmp_path / "here.md", "before-action"),
             Link("g", "gone.md", tmp_path / "gone.md", "before-action"))
    rows = [Row("s", "Before x", links, 1, id="s/x", kind="table")]
    path = tmp_path / "evals.json"
    path.write_text(json.dumps({"skill_name": "s", "evals": [{"id": 1, "prompt": "do x"}]}))
    [imported] = import_skill_creator(path, rows)
    assert imported.case.required == ["here.md"]
    assert any("'gone.md' is dangling" in note for note in imported.notes)


def _skill_rows(tmp_path: Path) -> list[Any]:
    """Skill `pdf` (entry skills/pdf/SKILL.md) with one table row linking forms.md, and a dangling link."""
    from workbench.core.routing import Link, Row

    skill = tmp_path / "skills" / "pdf" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: pdf\ndescription: Use before filling a PDF form.\n---\n")
    (skill.parent / "forms.md").write_text("# forms\n")
    links = (Link("f", "forms.md", skill.parent / "forms.md", "before-action"),)
    gone = (Link("g", "gone.md", skill.parent / "gone.md", "before-action"),)
    return [Row("pdf", "Use before filling a PDF form.", (), 3, id="pdf/description", kind="description", file=skill),
            Row("pdf", "Before filling a form", links, 8, id="pdf/forms", kind="table", file=skill),
            Row("pdf", "Before merging", gone, 9, id="pdf/merge", kind="table", file=skill)]


def test_a_missing_should_trigger_is_an_error_naming_the_item(tmp_path: Path) -> None:
    from workbench.core.case_import import import_trigger_eval

    path = tmp_path / "set.json"
    path.write_text(json.dumps([{"query": "fill the form", "should_trigger": True}, {"query": "merge them"}]))
    with pytest.raises(InputError) as err:
        import_trigger_eval(path, _skill_rows(tmp_path), target="pdf")
    assert (err.value.file, err.value.field) == (str(path), "[1].should_trigger") and "missing" in err.value.message


def test_a_trigger_eval_positive_measures_activation_unless_told_otherwise(tmp_path: Path) -> None:
    from workbench.core.case_import import import_trigger_eval

    path = tmp_path / "set.json"
    path.write_text(json.dumps([{"query": "fill in the intake form", "should_trigger": True}]))
    rows = _skill_rows(tmp_path)
    [item] = import_trigger_eval(path, rows, target="pdf")
    assert (item.case.required, item.case.moment) == (["pdf/SKILL.md"], "end")
    [old] = import_trigger_eval(path, rows, target="pdf", measure="procedures")
    assert old.case.required == ["forms.md"] and old.case.moment == "edit"


def test_routing_eval_distractor_is_boolean_or_text_and_dangling_expect_is_warned(tmp_path: Path) -> None:
    from workbench.core.case_import import import_routing_eval

    rows = _skill_rows(tmp_path)
    path = tmp_path / "eval.jsonl"
    path.write_text(json.dumps({"id": "a", "prompt": "fill it", "expect": "pdf/forms"}) + "\n"
                    + json.dumps({"id": "b", "prompt": "merge them", "expect": ["forms.md", "gone.md"]}) + "\n"
                    + json.dumps({"id": "c", "prompt": "a near miss", "expect": "forms.md", "distractor": 1}) + "\n")
    with pytest.raises(InputError) as err:
        import_routing_eval(path, rows)
    assert (err.value.file, err.value.line, err.value.field) == (str(path), 3, "distractor")
    path.write_text("\n".join(path.read_text().splitlines()[:2]) + "\n")
    a, b = import_routing_eval(path, rows)
    assert a.case.required == ["forms.md"] and b.case.required == ["forms.md"]
    assert any("'gone.md' is dangling" in n for n in b.notes)


def test_case_check_reads_a_skill_name_only_as_a_whole_word(tmp_path: Path) -> None:
    """"application.pdf" names a file, not Skill `pdf`; "use the pdf skill" names it."""
    from workbench.core.case_templates import naive_problems
    from workbench.core.models import Case

    rows = _skill_rows(tmp_path)
    plain = Case(id="a", target="pdf/forms", kind="positive", prompt="Fill in application.pdf for me.",
                 required=["forms.md"])
    named = plain.model_copy(update={"prompt": "Use the pdf skill to fill in the form."})
    assert naive_problems(plain, rows) == []
    assert naive_problems(named, rows), "a prompt naming the Skill is not naive"


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_lean_view_gets_its_fields_as_the_whole_record_does(path: Path) -> None:
    """`convert_fields(only=...)` (what `records.parse_as` passes) converts a view's fields exactly as
    the whole conversion does, and leaves out the others."""
    from workbench.core.rescore import JudgeView
    from workbench.core.summary import RecordView

    for view in (JudgeView, RecordView):
        for obj in published_lines(str(path.relative_to(DATA))):
            whole = importer.convert_fields(obj)
            lean = importer.convert_fields(obj, only=importer.view_fields(view))
            got, want = view.model_validate(lean), view.model_validate(whole)
            assert got == want and got.model_fields_set == want.model_fields_set
            assert view is RecordView or not {"published", "usage", "host"} & lean.keys()
