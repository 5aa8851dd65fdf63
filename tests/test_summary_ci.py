"""`summary` for CI and for the funnel/confusion views: JUnit validated against the JUnit XML
schema, the GitHub step summary, and the funnel and confusion tables in md, json and csv."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from lxml import etree
from report_support import fresh_records

from workbench.cli import main

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "records" / "demo-batch.jsonl"
SCHEMA = Path(__file__).parent / "data" / "junit" / "junit.xsd"


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return fresh_records(tmp_path_factory.mktemp("fresh"))


def summary(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(["summary", *argv]) == 0
    return capsys.readouterr().out


def as_json(capsys: pytest.CaptureFixture[str], path: Path) -> dict[str, Any]:
    return dict(json.loads(summary(capsys, str(path), "--format", "json")))


@pytest.mark.parametrize("which", ["demo", "fresh"])
def test_junit_is_valid_and_fails_cells_without_a_strict_majority(which: str, fresh: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    path = DEMO if which == "demo" else fresh
    cells = as_json(capsys, path)["runs"]
    xml = summary(capsys, str(path), "--format", "junit")
    doc = etree.fromstring(xml.encode())
    schema = etree.XMLSchema(etree.parse(str(SCHEMA)))
    assert schema.validate(doc), schema.error_log
    cases = doc.findall(".//testcase")
    assert len(cases) == len(cells)
    failing = sum(1 for c in cells if c["valid"] and not c["hits"] * 2 > c["valid"])
    empty = sum(1 for c in cells if not c["valid"])
    assert len(doc.findall(".//testcase/failure")) == failing == int(doc.get("failures"))
    assert len(doc.findall(".//testcase/skipped")) == empty
    assert failing > 0  # both record sets have failing cells: the rule is exercised
    if which == "fresh":
        assert empty == 1  # the no-output canary's cell


def test_an_even_split_fails_in_junit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = [json.loads(x) for x in DEMO.read_text(encoding="utf-8").splitlines()]
    release = [x for x in lines if x["case_id"] == "release-ship" and x["arm"] == "weak"]
    hit = next(x for x in release if x["overall"] == "fired")
    miss = next(x for x in release if x["overall"] != "fired")
    path = tmp_path / "split.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in (hit, miss)), encoding="utf-8")
    doc = etree.fromstring(summary(capsys, str(path), "--format", "junit").encode())
    assert [f.get("type") for f in doc.findall(".//failure")] == ["below-majority"]


def test_gh_summary_marks_each_cell_and_names_sibling_wins(fresh: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cells = as_json(capsys, fresh)["runs"]
    text = summary(capsys, str(fresh), "--format", "gh-summary", "--compare", "A,B")
    assert text.count("❌") == sum(1 for c in cells if c["valid"] and c["hits"] * 2 <= c["valid"])
    assert text.count("⚪") == sum(1 for c in cells if not c["valid"])
    assert "## Comparisons" in text and "## Activation funnel" in text
    assert "A sibling procedure opened instead" in text and "workflows/diagnosis.md (sibling) 2/2" in text


def test_funnel_and_confusion_in_md_json_and_csv(fresh: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = as_json(capsys, fresh)
    assert {r["arm"] for r in data["funnel"]} == {"A", "B"}
    md = summary(capsys, str(fresh))
    assert "## Activation funnel" in md and "## Which procedure opened" in md
    for r in data["funnel"]:
        assert f"| {r['runs']} | {r['offered']} | {r['loaded']} | {r['opened']} | {r['read_before']} |" in md
    funnel = list(csv.DictReader(io.StringIO(summary(capsys, str(fresh), "--format", "csv", "--table", "funnel"))))
    assert [(r["arm"], int(r["runs"]), int(r["read_before"])) for r in funnel] == [
        (r["arm"], r["runs"], r["read_before"]) for r in data["funnel"]]
    rows = list(csv.DictReader(io.StringIO(summary(capsys, str(fresh), "--format", "csv", "--table", "confusion"))))
    expected = [(r["case"], r["arm"], f, n) for r in data["confusion"] for f, n in r["opened"].items()]
    assert [(r["case"], r["arm"] or None, r["procedure"], int(r["opened"])) for r in rows] == expected
    assert {r["role"] for r in rows if r["procedure"] == "workflows/diagnosis.md" and r["kind"] == "positive"} == {
        "sibling"}
