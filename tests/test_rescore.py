"""`workbench rescore`: current rules, changes listed, input untouched, new file only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.cli import main
from workbench.core import importer, records
from workbench.core.models import Call, RunRecord
from workbench.core.rescore import rescore

DATA = Path(__file__).parent / "data" / "conformance"


def native(verdict: str) -> RunRecord:
    calls = [Call(index=0, tool="Read", kind="read", path="/p/skills/proc.md"),
             Call(index=1, tool="Edit", kind="edit", path="/r/src/x.py")]
    return RunRecord.model_validate({
        "condition": "confined", "host": "sim", "target": "row", "kind": "positive", "moment": "edit",
        "required": ["skills/proc.md"], "calls": [c.model_dump() for c in calls],
        "verdict": {"proc.md": verdict}, "overall": verdict, "scorer_rules": 0})


def test_rescore_lists_changes_and_never_touches_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "r.jsonl"
    records.append_record(path, native("skip"))
    records.append_record(path, native("fired"))
    before = path.read_bytes()
    out = tmp_path / "new.jsonl"
    assert main(["rescore", str(path), "--json", "--write", str(out)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["changed"] == 1 and data["records"] == 2
    (change,) = data["changes"]
    assert (change["line"], change["key"], change["old"], change["new"]) == (1, "proc.md", "skip", "fired")
    assert path.read_bytes() == before
    new = records.load_file(out).records
    assert [r.verdict for r in new] == [{"proc.md": "fired"}] * 2
    assert all(r.scorer_rules is not None and r.scorer_rules >= 1 for r in new)
    assert (new[0].model_extra or {})["rescored_from"]["verdict"] == {"proc.md": "skip"}
    assert main(["rescore", str(path), "--write", str(out)]) == 2  # never overwrites


def test_failed_read_is_not_a_read(tmp_path: Path) -> None:
    record = native("fired")
    record.calls[0].status = "error"
    assert rescore(record).verdict == {"proc.md": "skip"}


def test_imported_record_keeps_its_stored_moment() -> None:
    raw = {"host": "claude-code", "target": "row", "kind": "positive", "failed_calls": [],
           "calls": [["Bash", "git status"], ["Read", "<plugin>/x/proc.md"], ["Bash", "make release"]],
           "required_read_at": {"proc.md": None}, "verdict": {"proc.md": "skip"}, "moment_at": 2}
    new = rescore(importer.convert(raw))
    assert new.moment_at == 2 and new.moment is None
    assert new.verdict == {"proc.md": "fired"} and new.required_read_at == {"proc.md": 1}
    raw["moment_at"] = 1
    assert rescore(importer.convert(raw)).verdict == {"proc.md": "skip"}
    raw["moment_at"] = None
    assert rescore(importer.convert(raw)).verdict == {"proc.md": "read-noaction"}


def test_rescore_text_marks_records_without_call_status(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rescore", str(DATA / "164-trigger-audit/records.jsonl")]) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    changed = [line for line in lines[:-1] if "->" in line]
    assert lines[-1].startswith(f"{len(changed)} verdicts changed in 600 records")
    assert all("no call status" in line for line in changed)
    assert "600 records have no call status" in captured.err


@pytest.mark.parametrize("name", sorted(p.relative_to(DATA).as_posix() for p in DATA.glob("*/*.jsonl")))
def test_listed_old_verdicts_are_the_stored_ones(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rescore", str(DATA / name), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    loaded = records.load_file(DATA / name).records
    assert data["records"] == len(loaded) and data["changed"] == len(data["changes"])
    for change in data["changes"]:
        stored = loaded[change["line"] - 1]
        assert stored.verdict[change["key"]] == change["old"] != change["new"]
