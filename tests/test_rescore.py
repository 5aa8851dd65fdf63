"""`workbench rescore`: current rules, changes listed, input untouched, new file only."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from workbench.cli import main
from workbench.core import importer, records
from workbench.core.cases import find_case
from workbench.core.models import SCHEMA_VERSION, RunRecord
from workbench.core.rescore import changes, rescore
from workbench.modelstub.script import parse_script
from workbench.runner.execute import execute
from workbench.runner.request import build_request

DATA = Path(__file__).parent / "data" / "conformance"
ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "cases"
FIRES = {"steps": [{"calls": [{"read": "{plugin}/skills/ops/workflows/commit.md"}]},
                   {"calls": [{"edit": {"path": "{repo}/src/app.py", "old": "Helo", "new": "Hello"}}]},
                   {"calls": [{"shell": "git commit -qam 'app: fix typo'"}]}]}
READS_AFTER = {"steps": [FIRES["steps"][1], FIRES["steps"][2], FIRES["steps"][0]]}
"""Edit, commit (the moment), then read the procedure: a read the record counts but keeps no call of."""


def canary(case_id: str, **request: Any) -> RunRecord:
    """A record written by the real producer: the sim canary."""
    request.setdefault("fixture", ROOT / "fixtures" / "base")
    return execute(build_request(find_case(case_id, CASES), "sim", door="canary", plugin=ROOT / "plugin",
                                 **request)).record


@pytest.fixture(scope="module")
def produced() -> dict[str, RunRecord]:
    """Sim canaries: a scripted fired run, a run that reads only after its moment, policy runs of a
    positive, a two-file case and a negative, and a run whose model produced nothing."""
    return {
        "fired": canary("commit-typo-fix", script=parse_script(FIRES)),
        "reads-after": canary("commit-typo-fix", script=parse_script(READS_AFTER)),
        "policy": canary("commit-typo-fix"),
        "two-files": canary("incident-outage"),
        "negative": canary("negative-rename-variable"),
        "no-output": canary("docs-readme-section", no_output=True),
    }


@pytest.mark.parametrize("name", ["fired", "reads-after", "policy", "two-files", "negative", "no-output"])
def test_a_record_just_written_rescores_unchanged(produced: dict[str, RunRecord], name: str) -> None:
    record = produced[name]
    new = rescore(record)
    assert changes(record, new, "r.jsonl", 1) == []
    assert (new.verdict, new.required_read_at, new.overall, new.moment_at) == (
        record.verdict, record.required_read_at, record.overall, record.moment_at)
    assert list(new.verdict) == record.required  # keyed by the required files as the case names them


def test_a_read_after_the_moment_is_kept_though_its_call_is_not(produced: dict[str, RunRecord]) -> None:
    record = produced["reads-after"]
    assert record.verdict == {"workflows/commit.md": "skip"} and record.moment_at == len(record.calls) - 1
    assert record.required_read_at == {"workflows/commit.md": len(record.calls)}  # past the kept calls
    assert rescore(record).required_read_at == record.required_read_at  # the funnel's "opened" stays


def test_no_output_record_stays_no_output_everywhere(produced: dict[str, RunRecord]) -> None:
    new = rescore(produced["no-output"])
    assert new.overall == "no-output" and set(new.verdict.values()) == {"no-output"}
    assert (new.valid, new.invalid_reason) == (False, "no-output")


def older_rules(record: RunRecord, verdict: str) -> RunRecord:
    """The record as an older scorer would have stored it: same keys, another verdict."""
    return record.model_copy(update={"verdict": dict.fromkeys(record.verdict, verdict), "overall": verdict,
                                     "scorer_rules": 0})


def test_rescore_lists_changes_and_never_touches_input(produced: dict[str, RunRecord], tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    key = "workflows/commit.md"
    path = tmp_path / "r.jsonl"
    records.append_record(path, older_rules(produced["fired"], "skip"))
    records.append_record(path, produced["fired"])
    before = path.read_bytes()
    out = tmp_path / "new.jsonl"
    assert main(["rescore", str(path), "--json", "--write", str(out)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["changed"] == 1 and data["records"] == 2
    (change,) = data["changes"]
    assert (change["line"], change["key"], change["old"], change["new"]) == (1, key, "skip", "fired")
    assert path.read_bytes() == before
    new = records.load_file(out).records
    assert [r.verdict for r in new] == [{key: "fired"}] * 2
    assert all(r.scorer_rules is not None and r.scorer_rules >= 1 for r in new)
    provenance = new[0].provenance
    assert provenance and provenance.rescored_from and provenance.rescored_from.verdict == {key: "skip"}
    assert main(["rescore", str(path), "--write", str(out)]) == 2  # never overwrites


def test_failed_read_is_not_a_read(produced: dict[str, RunRecord]) -> None:
    record = produced["fired"].model_copy(deep=True)
    (read,) = [c for c in record.calls if c.kind == "read"]
    read.status = "error"
    read.evidence = dict.fromkeys(read.evidence, "absent")  # what an error result shows of the file
    assert rescore(record).verdict == {"workflows/commit.md": "skip"}


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


def test_the_bundled_demo_records_are_current_and_rescore_gives_their_tables_back(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    demo = ROOT / "records" / "demo-batch.jsonl"
    raw = [json.loads(line) for line in demo.read_text(encoding="utf-8").splitlines()]
    assert {r["schema_version"] for r in raw} == {SCHEMA_VERSION} and len(raw) == 100
    out = tmp_path / "rescored.jsonl"
    assert main(["rescore", str(demo), "--json", "--write", str(out)]) == 0
    assert json.loads(capsys.readouterr().out)["changed"] == 0

    def tables(path: Path) -> tuple[str, str]:
        assert main(["summary", str(path), "--compare", "weak,shipped"]) == 0
        text = capsys.readouterr().out
        assert main(["summary", str(path), "--compare", "weak,shipped", "--confusion", "--format", "json"]) == 0
        return text, capsys.readouterr().out

    assert tables(out) == tables(demo)


def test_listing_reads_a_view_that_judges_as_the_whole_record(produced: dict[str, RunRecord], tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """Listing changes judges the same lines as `--write` (the view carries what the scorer reads); a
    field the scorer never reads is checked only where the whole record is stored."""
    path = tmp_path / "r.jsonl"
    records.append_record(path, older_rules(produced["fired"], "skip"))
    published = DATA / "182-routing-sweep" / "records.jsonl"
    assert main(["rescore", str(path), str(published), "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert main(["rescore", str(path), str(published), "--json", "--write", str(tmp_path / "new.jsonl")]) == 0
    assert json.loads(capsys.readouterr().out) == listed and listed["changed"] >= 1
    line = json.loads(path.read_text())
    line["usage"] = {"input_tokens": "many"}
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(line, separators=(",", ":")) + "\n")
    assert main(["rescore", str(bad), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["changed"] == 1
    assert main(["rescore", str(bad), "--write", str(tmp_path / "bad-new.jsonl")]) == 2
    assert "usage" in capsys.readouterr().err
