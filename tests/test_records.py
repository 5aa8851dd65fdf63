"""The records store: atomic appends, torn last lines, bad lines named by file, line and field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.core import records
from workbench.core.errors import InputError
from workbench.core.models import Call, RunRecord


def make(run: int = 0, **extra: object) -> RunRecord:
    calls = [Call(index=0, tool="Read", kind="read", path="a/proc.md"),
             Call(index=1, tool="Edit", kind="edit", path="src/x.py")]
    return RunRecord.model_validate({"condition": "confined", "host": "sim", "target": "t",
                                     "kind": "positive", "run": run,
                                     "calls": [c.model_dump() for c in calls], **extra})


def test_append_writes_one_line_per_record_and_never_rewrites(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    records.append_record(path, make(0))
    first = path.read_bytes()
    records.append_record(path, make(1))
    data = path.read_bytes()
    assert data.startswith(first)
    assert data.count(b"\n") == 2 and data.endswith(b"\n")
    loaded = records.load_file(path)
    assert [r.run for r in loaded.records] == [0, 1]
    assert loaded.problems == []


def test_unknown_fields_survive_round_trip(tmp_path: Path) -> None:
    record = make(0, my_note="kept", nested={"a": [1, 2]})
    record.calls[0] = Call.model_validate({**record.calls[0].model_dump(), "host_extra": 7})
    path = tmp_path / "r.jsonl"
    records.append_record(path, record)
    back = records.load_file(path).records[0]
    assert back.model_extra == {"my_note": "kept", "nested": {"a": [1, 2]}}
    assert (back.calls[0].model_extra or {})["host_extra"] == 7
    assert back.model_dump() == record.model_dump()


def test_torn_last_line_is_reported_and_skipped(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    records.append_record(path, make(0))
    with path.open("ab") as fh:
        fh.write(records.encode(make(1))[:40])
    loaded = records.load_file(path)
    assert [r.run for r in loaded.records] == [0]
    assert len(loaded.problems) == 1 and loaded.problems[0].line == 2
    assert "torn" in loaded.problems[0].message


@settings(max_examples=100)
@given(cut=st.integers(min_value=1, max_value=10_000))
def test_any_crash_mid_append_leaves_a_loadable_file(tmp_path_factory: pytest.TempPathFactory,
                                                     cut: int) -> None:
    path = tmp_path_factory.mktemp("torn") / "r.jsonl"
    records.append_record(path, make(0))
    line = records.encode(make(1))
    partial = line[: cut % len(line)] or line[:1]
    with path.open("ab") as fh:
        fh.write(partial)
    loaded = records.load_file(path)
    complete = partial == line[:-1]  # everything but the newline: still a whole record
    assert len(loaded.records) == (2 if complete else 1)
    assert len(loaded.problems) == (0 if complete else 1)


def test_bad_line_in_the_middle_names_file_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    good = json.loads(records.encode(make(0)))
    bad = json.loads(records.encode(make(1)))
    bad["calls"][1]["status"] = "exploded"
    path.write_text("\n".join(json.dumps(x) for x in (good, bad, good)) + "\n")
    with pytest.raises(InputError) as info:
        records.load_file(path)
    err = info.value
    assert (err.file, err.line, err.field) == (str(path), 2, "calls.1.status")
    assert str(path) in str(err) and "calls.1.status" in str(err)


def test_invalid_json_in_the_middle_is_fatal_unless_lenient(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    line = records.encode(make(0)).decode()
    path.write_text(line + "{not json\n" + line)
    with pytest.raises(InputError) as info:
        records.load_file(path)
    assert info.value.line == 2
    loaded = records.load_file(path, lenient=True)
    assert len(loaded.records) == 2
    assert [p.line for p in loaded.problems] == [2]


def test_lenient_reports_invalid_record_with_field(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    bad = json.loads(records.encode(make(0)))
    del bad["target"]
    path.write_text(json.dumps(bad) + "\n" + records.encode(make(1)).decode())
    loaded = records.load_file(path, lenient=True)
    assert [r.run for r in loaded.records] == [1]
    assert loaded.problems[0].field == "target" and loaded.problems[0].line == 1


def test_write_records_refuses_to_overwrite(tmp_path: Path) -> None:
    path = tmp_path / "out.jsonl"
    records.write_records(path, [make(0), make(1)])
    assert len(records.load_file(path).records) == 2
    with pytest.raises(FileExistsError):
        records.write_records(path, [make(2)])


def test_missing_file_is_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError):
        records.load_file(tmp_path / "absent.jsonl")


DEMO = Path(__file__).resolve().parent.parent / "records" / "demo-batch.jsonl"
"""Records written by the real batch runner (the bundled demo)."""


def test_stream_yields_each_record_before_reading_the_next_line(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    first, second = DEMO.read_text().splitlines()[:2]
    path.write_text(f"{first}\nnot json\n{second}\n")
    lines = records.stream_records([path])
    record, file, line = next(lines)
    assert (record.case_id, file, line) == (json.loads(first)["case_id"], str(path), 1)
    with pytest.raises(InputError) as err:
        next(lines)
    assert str(err.value).startswith(f"{path}:2")


def test_stream_reports_skipped_lines_as_they_come(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    first, second = DEMO.read_text().splitlines()[:2]
    path.write_text(f"{first}\n[1]\n{second}\n{{\"torn\": ")
    seen: list[str] = []
    lines = records.stream_records([path], lenient=True, on_problem=lambda p: seen.append(str(p)))
    got = [(line, len(seen)) for _, _, line in lines]
    assert got == [(1, 0), (3, 1)]  # line 2 was reported before line 3 was yielded
    assert seen[0].startswith(f"{path}:2") and "torn" in seen[1]


def test_rescore_write_leaves_no_half_written_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from workbench.cli import main

    path, out = tmp_path / "r.jsonl", tmp_path / "new.jsonl"
    first, second = DEMO.read_text().splitlines()[:2]
    path.write_text(f"{first}\n{second}\nnot json\n{first}\n")
    assert main(["rescore", str(path), "--write", str(out)]) == 2
    assert f"{path}:3" in capsys.readouterr().err
    assert not out.exists()
