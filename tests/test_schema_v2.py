"""Record schema v2: every field the workbench writes is declared (and shown by `workbench schema
record`), and the bundled version-1 records read as version 2 through the one migration."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from workbench.cli import main
from workbench.core.cases import find_case
from workbench.core.migrate import migrate
from workbench.core.models import SCHEMA_VERSION, RunRecord
from workbench.core.records import load_file, parse_line
from workbench.runner.execute import execute
from workbench.runner.request import build_request

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "tests" / "data" / "records" / "demo-batch-v1.jsonl"
"""The demo batch as the runner wrote it in schema v1 (tests/data/records/README.md)."""
V1_LOOSE = {"entry_skill", "entry_file", "entry_offered", "skill_error", "offered_skills", "guard_changes",
            "call_status_unknown", "rescored_from", "imported_from"}


def schema(capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(["schema", "record"]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_the_schema_lists_every_field_a_written_record_carries(capsys: pytest.CaptureFixture[str]) -> None:
    out = schema(capsys)
    props, defs = out["properties"], out["$defs"]
    case = find_case("commit-typo-fix", ROOT / "cases")
    record = execute(build_request(case, "sim", door="canary", plugin=ROOT / "plugin",
                                   fixture=ROOT / "fixtures" / "base")).record
    written = json.loads(record.model_dump_json())
    assert set(written) <= set(props) and not record.model_extra
    assert record.schema_version == SCHEMA_VERSION == 3
    for name in ("entry", "guard", "provenance", "batch", "batch_planned", "exit_code", "run_error"):
        assert props[name].get("description"), name
    undocumented = [n for n, p in props.items() if not p.get("description")]
    assert not undocumented, undocumented
    for sub in ("EntryGate", "GuardReport", "Provenance", "RescoredFrom"):
        assert all(p.get("description") for p in defs[sub]["properties"].values()), sub
    assert set(written["entry"]) == set(defs["EntryGate"]["properties"])


def test_bundled_v1_records_load_as_v2() -> None:
    raw = [json.loads(line) for line in DEMO.read_text().splitlines() if line.strip()]
    assert {r["schema_version"] for r in raw} == {1}
    loaded = load_file(DEMO)
    assert len(loaded.records) == len(raw) and not loaded.problems
    for old, record in zip(raw, loaded.records, strict=True):
        assert record.schema_version == SCHEMA_VERSION and not (set(record.model_extra or {}) & V1_LOOSE)
        assert record.entry is not None and record.entry.skill == old["entry_skill"]
        assert record.entry.offered == old["entry_offered"] and record.entry.offered_skills == old["offered_skills"]
        assert record.verdict == old["verdict"] and record.batch_planned == old["batch_planned"]


def test_v1_loose_fields_move_into_their_sub_models() -> None:
    line = json.loads(DEMO.read_text().splitlines()[0])
    old = {**line, "guard_changes": ["~/.claude/settings.json changed"], "call_status_unknown": True,
           "rescored_from": {"verdict": {"commit.md": "skip"}, "overall": "skip", "scorer_rules": 1}}
    new = migrate(old)
    assert old["schema_version"] == 1 and "guard_changes" in old, "the input is not changed"
    record = RunRecord.model_validate(new)
    assert record.guard is not None and record.guard.changes == ["~/.claude/settings.json changed"]
    assert record.status_unknown and record.provenance and record.provenance.rescored_from
    assert record.provenance.rescored_from.verdict == {"commit.md": "skip"}
    assert not (set(record.model_extra or {}) & V1_LOOSE)
    again = parse_line(record.model_dump_json(), file="x", line=1)
    assert again == record, "a v2 line reads back as written (fast path)"


def test_unknown_fields_of_other_tools_are_kept() -> None:
    line = {**json.loads(DEMO.read_text().splitlines()[0]), "their_field": {"x": 1}}
    record = parse_line(json.dumps(line), file="x", line=1)
    assert (record.model_extra or {})["their_field"] == {"x": 1}
