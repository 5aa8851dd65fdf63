"""Report data from real sim records: funnel, sibling confusion, invalid runs, call marks; the
`report` command's page, its hashes and escaping, and bad input."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from report_support import PAYLOAD, fresh_records

from workbench.cli import main
from workbench.core import records
from workbench.core.report import build

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "records" / "demo-batch.jsonl"


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return fresh_records(tmp_path_factory.mktemp("fresh"))


def test_sibling_opened_instead_of_the_target_is_shown(fresh: Path) -> None:
    report = build(records.load_file(fresh).records)
    docs = [r for r in report.confusion if r["case"] == "docs-readme-section" and r["arm"] in ("A", "B")]
    assert len(docs) == 2
    for row in docs:
        assert row["targets"] == ["workflows/docs.md"]
        assert row["opened"] == {"workflows/docs.md": 0, "workflows/diagnosis.md": 2}
        assert (row["runs"], row["sibling_instead"], row["none"]) == (2, 2, 0)
    negative = [r for r in report.confusion if r["kind"] == "negative"]
    assert {r["when"] for r in negative} == {"at all"}
    assert all(r["opened"] == {"workflows/diagnosis.md": 2, "workflows/docs.md": 0} for r in negative)


def test_funnel_counts_each_stage_of_valid_positive_runs(fresh: Path) -> None:
    report = build(records.load_file(fresh).records)
    by_arm = {r["arm"]: r for r in report.funnel}
    assert set(by_arm) == {"A", "B"}  # the invalid canary has no valid positive run
    for row in by_arm.values():
        assert (row["runs"], row["offered"], row["offered_unknown"]) == (2, 2, 0)
        assert (row["loaded"], row["opened"], row["read_before"]) == (0, 0, 0)


def test_demo_funnel_agrees_with_the_summary_cells() -> None:
    report = build(records.load_file(DEMO).records)
    for row in report.funnel:
        cells = [c for c in report.summary["runs"] if c["kind"] == "positive" and c["source"] == row["source"]]
        assert row["runs"] == sum(c["valid"] for c in cells)
        assert row["read_before"] == sum(c["hits"] for c in cells)
        assert row["loaded"] == sum(c["entry_loaded"] for c in cells)
        assert row["read_before"] <= row["opened"] <= row["runs"]


def test_invalid_runs_are_grouped_by_reason(fresh: Path) -> None:
    report = build(records.load_file(fresh).records)
    assert list(report.invalid) == ["no-output"]
    (run,) = report.invalid["no-output"]
    assert (run["case"], run["kind"]) == ("docs-readme-section", "positive")


def test_call_marks_come_from_the_scorer_and_the_record(fresh: Path) -> None:
    report = build(records.load_file(fresh).records)
    docs = next(v for v in report.runs if v["case"] == "docs-readme-section" and v["valid"])
    assert [c["marks"] for c in docs["calls"]] == [["READ-OTHER"], [], ["MOMENT"]]
    assert docs["calls"][0]["reads"] == ["workflows/diagnosis.md"]
    negative = next(v for v in report.runs if v["kind"] == "negative")
    assert negative["calls"][0]["marks"] == ["READ"]


def test_report_summary_is_exactly_summary_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["summary", str(DEMO), "--format", "json", "--compare", "weak,shipped"]) == 0
    printed = json.loads(capsys.readouterr().out)
    printed.pop("problems")
    report = build(records.load_file(DEMO).records, [("weak", "shipped")])
    assert (printed.pop("funnel"), printed.pop("confusion")) == (report.funnel, report.confusion)
    assert report.summary == printed
    assert [r["sequential"]["e_value"] for r in report.comparisons] and all(
        {k: v for k, v in r.items() if k != "sequential"} == p for r, p in zip(report.comparisons,
                                                                            printed["comparisons"], strict=True))


def test_page_names_file_hashes_and_escapes_agent_output(fresh: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    assert main(["report", str(fresh), "-o", str(out), "--compare", "A,B"]) == 0
    page = out.read_text(encoding="utf-8")
    assert hashlib.sha256(fresh.read_bytes()).hexdigest() in page
    assert PAYLOAD not in page and "<img id=pwned" not in page
    assert "&lt;script&gt;document.body.dataset.pwned=" in page
    assert page.count("<script") == 1  # the page's own script only
    assert "http://" not in page and "https://" not in page


def test_bad_records_line_is_one_stderr_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.jsonl"
    lines = DEMO.read_text(encoding="utf-8").splitlines()[:2]
    obj = json.loads(lines[1])
    obj["calls"][0]["status"] = "maybe"
    bad.write_text(lines[0] + "\n" + json.dumps(obj) + "\n" + lines[0] + "\n", encoding="utf-8")
    out = tmp_path / "r.html"
    assert main(["report", str(bad), "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"{bad}:2" in err[0] and "calls.0.status" in err[0]
    assert not out.exists()
    assert main(["report", str(DEMO), "-o", str(out), "--compare", "weak"]) == 2
    assert not out.exists()


def test_export_without_the_inspect_extra_is_bad_input(tmp_path: Path) -> None:
    """The extra's absence, simulated by blocking the import (uninstalling it is not on demand)."""
    import subprocess
    import sys

    code = ("import sys; sys.modules['inspect_ai'] = None; from workbench.cli import main; "
            f"sys.exit(main(['export', 'inspect', {str(DEMO)!r}, '-o', {str(tmp_path / 'logs')!r}]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "trigger-workbench[inspect]" in done.stderr
    assert not (tmp_path / "logs").exists()


def test_evidence_conflicts_are_asked_of_the_scorer_and_shown(fresh: Path) -> None:
    """Batch records do not carry content evidence yet, so it is set on a real record's Read call
    (as `workbench.core.fingerprints` would for an output that holds none of the procedure)."""
    from workbench.report.html import render

    record = next(r for r in records.load_file(fresh).records if r.kind == "negative")
    read = record.calls[0].model_copy(update={"evidence": {"<plugin>/skills/ops/workflows/diagnosis.md": "absent"}})
    record = record.model_copy(update={"calls": [read, *record.calls[1:]]})
    view = next(v for v in build([record]).runs)
    assert view["conflicts"] == [{"call": 0, "required": "workflows/diagnosis.md", "command": "read",
                                  "content": "absent"}]
    assert view["calls"][0]["marks"] == ["CONFLICT"]
    page = render(build([record]))
    assert "1 evidence conflicts" in page and "the output shows it absent" in page
