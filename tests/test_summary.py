"""Summary cells, votes, intervals, paired test and the `summary` command's three formats."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import binomtest

from workbench.cli import main
from workbench.core import records, stats
from workbench.core.importer import overall_of
from workbench.core.models import RunRecord
from workbench.core.summary import summarize, to_json


def rec(verdicts: dict[str, str], *, kind: str = "positive", run: int = 0, arm: str = "main",
        source: str | None = None, target: str = "t", **extra: Any) -> RunRecord:
    return RunRecord.model_validate({
        "condition": "confined", "host": "sim", "model": "m", "effort": "low", "arm": arm, "source": source,
        "target": target, "kind": kind, "run": run, "verdict": verdicts,
        "overall": overall_of(kind, verdicts), **extra})


def only_cell(records_: list[RunRecord]) -> dict[str, Any]:
    cells = to_json(summarize(records_))["runs"]
    assert len(cells) == 1
    return dict(cells[0])


@pytest.mark.parametrize(("kind", "verdicts", "expected"), [
    ("positive", {"a": "fired", "b": "fired"}, "fired"),
    ("positive", {"a": "fired", "b": "skip"}, "skip"),
    ("positive", {"a": "read-noaction", "b": "read-noaction"}, "read-noaction"),
    ("positive", {"a": "read-noaction", "b": "skip-noaction"}, "skip-noaction"),
    ("negative", {"a": "clean", "b": "opened"}, "opened"),
    ("negative", {"a": "clean", "b": "clean"}, "clean"),
])
def test_overall_verdict_rule(kind: str, verdicts: dict[str, str], expected: str) -> None:
    assert overall_of(kind, verdicts) == expected


def test_cell_counts_hits_invalid_and_exclusions_apart() -> None:
    cell = only_cell([
        rec({"a": "fired"}, run=0), rec({"a": "read-noaction"}, run=1), rec({"a": "skip"}, run=2),
        rec({"a": "skip-noaction"}, run=3),
        rec({"a": "fired"}, run=4, valid=False, invalid_reason="no-output"),
        rec({"a": "fired"}, run=5, discarded={"reason": "escaped"}),
    ])
    assert (cell["total"], cell["valid"], cell["invalid"], cell["excluded"]) == (5, 4, 1, 1)
    assert (cell["fired"], cell["read_noaction"], cell["skip"], cell["skip_noaction"]) == (1, 1, 1, 1)
    assert cell["hits"] == 2
    ci = binomtest(2, 4).proportion_ci(method="wilson")
    assert cell["wilson95"] == pytest.approx([ci.low, ci.high], abs=1e-4)
    assert cell["flaky"] == ["t:positive"]


def test_even_split_is_a_majority_miss() -> None:
    assert stats.majority([True, False]) is False
    assert stats.majority([True, True, False]) is True
    cell = only_cell([rec({"a": "fired"}, run=0), rec({"a": "skip"}, run=1)])
    assert cell["majority_cases"] == 0 and cell["cases"] == 1


@given(st.lists(st.booleans(), min_size=1, max_size=30))
def test_majority_and_flaky_agree_with_counts(hits: list[bool]) -> None:
    assert stats.majority(hits) == (sum(hits) > len(hits) - sum(hits))
    assert stats.flaky(hits) == (len(set(hits)) == 2)


def test_unknown_usage_is_not_zero() -> None:
    cell = only_cell([rec({"a": "fired"}, run=0, usage={"input_tokens": 100, "cost_usd": 0.5}),
                      rec({"a": "fired"}, run=1)])
    assert cell["mean_input_tokens"] == 100 and cell["usage_known"] == 1
    assert cell["mean_cost_usd"] == 0.5 and cell["mean_output_tokens"] is None


def test_arms_are_told_apart_by_source_then_name() -> None:
    cells = to_json(summarize([rec({"a": "fired"}, arm="fix", source="aaa"),
                               rec({"a": "fired"}, arm="fix", source="bbb"),
                               rec({"a": "fired"}, arm="other")]))["runs"]
    assert [(c["arm"], c["source"]) for c in cells] == [("fix", "aaa"), ("fix", "bbb"), ("other", None)]


def test_unverified_records_are_never_pooled() -> None:
    summary = summarize([rec({"a": "fired"}), rec({"a": "fired"}, run=1, provenance={"status_unknown": True})])
    cells = to_json(summary)["runs"]
    assert sorted(c["reads_verified"] for c in cells) == [False, True]
    assert summary.unverified == 1


def test_paired_comparison_uses_exact_mcnemar() -> None:
    a = [rec({"x": "fired" if i < 2 else "skip"}, run=i, source="A") for i in range(8)]
    b = [rec({"x": "fired" if i < 7 else "skip"}, run=i, source="B") for i in range(8)]
    rows = to_json(summarize(a + b), [("A", "B")])["comparisons"]
    assert len(rows) == 1
    row = rows[0]
    assert (row["only_a"], row["only_b"], row["pairs"]) == (0, 5, 8)
    assert row["delta_pp"] == pytest.approx((7 / 8 - 2 / 8) * 100, abs=0.1)
    assert row["mcnemar_p"] == pytest.approx(binomtest(0, 5, 0.5).pvalue, abs=1e-6)


def write(tmp_path: Path, recs: list[RunRecord]) -> Path:
    path = tmp_path / "r.jsonl"
    for r in recs:
        records.append_record(path, r)
    return path


def test_summary_command_formats(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, [rec({"a": "fired"}, run=0), rec({"a": "read-noaction"}, run=1),
                            rec({"a": "clean"}, kind="negative", target="n")])
    assert main(["summary", str(path), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    cell = data["runs"][0]
    assert set(cell) >= {"host", "model", "effort", "arm", "source", "target", "kind", "total", "valid",
                         "fired", "read_noaction", "skip", "skip_noaction", "opened", "clean", "wilson95"}
    assert main(["summary", str(path), "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [r["target"] for r in rows] == ["t", "n"]
    assert main(["summary", str(path)]) == 0
    out = capsys.readouterr().out
    assert "| t | 2/2 (1 read, no action) |" in out and "1/1 clean" in out


def test_summary_warns_on_stderr_about_unverified_and_torn(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, [rec({"a": "fired"}, provenance={"status_unknown": True})])
    with path.open("a") as fh:
        fh.write('{"half": ')
    assert main(["summary", str(path), "--format", "json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["unverified_runs"] == 1
    assert "no call status" in captured.err and "torn" in captured.err


def test_summary_bad_input_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"x": 1}\n{"x": 2}\n')
    assert main(["summary", str(path)]) == 2
    assert str(path) + ":1" in capsys.readouterr().err


def test_compare_accepts_arm_names_and_sha_prefixes() -> None:
    """Arms are told apart by sha; people name them by arm name or a short sha."""
    a, b = "a" * 40, "b" * 40
    runs = [rec({"f.md": "skip"}, arm="weak", source=a, run=i) for i in range(4)]
    runs += [rec({"f.md": "fired"}, arm="fixed", source=b, run=i) for i in range(4)]
    summary = summarize(runs)
    for left, right in (("weak", "fixed"), (a[:7], b[:9]), (a, b)):
        [row] = summary.compare(left, right)
        assert (row["hits_a"], row["hits_b"], row["delta_pp"]) == (0, 4, 100)
    assert summary.compare("weak", "nope") == []


@given(st.integers(1, 2000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_closed_form_equals_scipy(hits_n: tuple[int, int]) -> None:
    hits, n = hits_n
    ci = binomtest(hits, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert stats.wilson95(hits, n) == (round(float(ci.low), 4), round(float(ci.high), 4))


def test_summary_counts_evidence_conflicts_per_cell(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Records from the real pipeline (sim): a shell write no pattern knows is a conflict; a plain edit is not."""
    from workbench.core.cases import find_case
    from workbench.modelstub import parse_script
    from workbench.runner.execute import execute
    from workbench.runner.request import build_request

    root = Path(__file__).resolve().parent.parent
    case = find_case("docs-readme-section", root / "cases")
    write = ("python3 -c \"import os; os.write(os.open('{repo}/README.md', os.O_WRONLY | os.O_APPEND), b'x')\"")
    edit = {"edit": {"path": "{repo}/README.md", "old": "# greeter", "new": "# greeter!"}}
    out = tmp_path / "runs.jsonl"
    for i, call in enumerate([{"shell": write}, edit, {"shell": write}]):
        script = parse_script({"steps": [{"calls": [call]}, {"say": "Done."}]})
        request = build_request(case, "sim", door="canary", plugin=root / "plugin", fixture=root / "fixtures" / "base",
                                script=script)
        record = execute(request).record.model_copy(update={"run": i})
        records.append_record(out, record)
    assert main(["summary", str(out), "--format", "json"]) == 0
    shell, plain = json.loads(capsys.readouterr().out)["runs"]  # two scripts: two cells, never one
    assert shell["script_digest"] != plain["script_digest"]
    assert (shell["evidence_conflicts"], shell["conflicted_runs"], shell["valid"]) == (2, 2, 2)
    assert (plain["evidence_conflicts"], plain["conflicted_runs"], plain["valid"]) == (0, 0, 1)
    assert main(["summary", str(out)]) == 0
    assert "| 2 in 2/2 runs |" in capsys.readouterr().out
    assert main(["summary", str(out), "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [(r["evidence_conflicts"], r["conflicted_runs"]) for r in rows] == [("2", "2"), ("0", "0")]
