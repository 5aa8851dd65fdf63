"""`workbench export inspect`: the logs read back with inspect_ai's own reader and agree with
`summary --format json` (skipped cleanly without the `inspect` extra; `make test` installs it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from report_support import fresh_records

from workbench.cli import main
from workbench.core import records

inspect_log = pytest.importorskip("inspect_ai.log")

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "records" / "demo-batch.jsonl"


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return fresh_records(tmp_path_factory.mktemp("fresh"))


def exported(path: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> list[Any]:
    assert main(["export", "inspect", str(path), "-o", str(out)]) == 0
    printed = capsys.readouterr().out.split()
    assert sorted(printed) == sorted(str(p) for p in out.glob("*.eval")) and printed
    return [inspect_log.read_eval_log(p) for p in printed]


@pytest.mark.parametrize("which", ["demo", "fresh"])
def test_logs_read_back_and_agree_with_summary(which: str, fresh: Path, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    path = DEMO if which == "demo" else fresh
    assert main(["summary", str(path), "--format", "json"]) == 0
    cells = json.loads(capsys.readouterr().out)["runs"]
    logs = exported(path, tmp_path / "logs", capsys)
    loaded = records.load_file(path).records
    assert sum(len(log.samples) for log in logs) == len(loaded)
    for log in logs:
        source = log.eval.metadata["source"]
        mine = [c for c in cells if (c["source"] or c["arm"]) == source]
        assert log.eval.task == (mine[0]["arm"] or "unnamed")
        hits, valid = sum(c["hits"] for c in mine), sum(c["valid"] for c in mine)
        scored = [s for s in log.samples if s.scores]
        assert len(scored) == valid == log.results.completed_samples
        assert sum(s.scores["trigger"].value == "C" for s in scored) == hits
        if valid:
            assert log.results.scores[0].metrics["accuracy"].value == pytest.approx(hits / valid)
        ids = [(s.id, s.epoch) for s in log.samples]
        assert len(set(ids)) == len(ids)


def test_calls_are_the_transcript_with_marks(fresh: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    logs = exported(fresh, tmp_path / "logs", capsys)
    sample = next(s for log in logs for s in log.samples if s.id == "docs-readme-section" and s.scores)
    tools = [m for m in sample.messages if m.role == "tool"]
    assert [m.function for m in tools] == ["Read", "Bash", "Write"]
    assert [m.metadata["marks"] for m in tools] == [["READ-OTHER"], [], ["MOMENT"]]
    assert sample.scores["trigger"].answer == "skip"
    invalid = [s for log in logs for s in log.samples if not s.scores]
    assert len(invalid) == 1 and "no-output" in invalid[0].error.message
