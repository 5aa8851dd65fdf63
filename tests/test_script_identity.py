"""The script a run was given is part of what the run measured: in the batch plan key (a new script
runs the plan again), in the record (name and digest), and in every table (two scripts are two cells);
records written before scripts were recorded migrate with the script unknown, in a group of their own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from batch_support import make_world

from workbench.cli import main
from workbench.core.forecast import PlannedRun, forecast
from workbench.core.records import load_file
from workbench.core.summary import summarize
from workbench.report.tables import group_label
from workbench.runner.batch import RunKey

ROOT = Path(__file__).resolve().parent.parent


def script_file(folder: Path, name: str, steps: list[dict[str, object]]) -> Path:
    path = folder / name
    path.write_text(json.dumps({"steps": steps}), encoding="utf-8")
    return path


def batch(ws: Path, record: Path, home: Path, script: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """The CLI batch door: the docs cases on the sim, one arm, unconfined (the guard still watches)."""
    argv = [sys.executable, "-m", "workbench", "batch", "--cases", "docs-*", "--hosts", "sim", "--arms", "A=HEAD",
            "--record", str(record), "--home", str(home), "--unconfined", "--script", str(script), *extra]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(argv, cwd=ws, env=env, capture_output=True, text=True, check=False)


@pytest.fixture
def two_scripts(tmp_path: Path) -> tuple[Path, Path, Path, Path, Path]:
    w = make_world(tmp_path)
    edit = {"edit": {"path": "{repo}/README.md", "old": "# greeter", "new": "# greeter!"}}
    a = script_file(tmp_path, "edit-first.json", [{"calls": [edit]}, {"say": "Done."}])
    b = script_file(tmp_path, "say-only.json", [{"say": "Nothing to do."}])
    return w.ws, w.record, w.home, a, b


def test_a_new_script_runs_the_whole_plan_again_and_tables_split(two_scripts: tuple[Path, ...]) -> None:
    ws, record, home, a, b = two_scripts
    done = batch(ws, record, home, a)
    assert done.returncode == 0, done.stderr
    first = load_file(record).records
    assert first and {r.script.name for r in first if r.script} == {"edit-first.json"}
    again = batch(ws, record, home, a, "--resume")
    assert again.returncode == 0, again.stderr
    assert len(load_file(record).records) == len(first), "the same script is the same plan: nothing to run"
    other = batch(ws, record, home, b, "--resume")
    assert other.returncode == 0, other.stderr
    every = load_file(record).records
    assert len(every) == 2 * len(first), "another script is another measurement: every run again"
    assert len({r.script.digest for r in every if r.script}) == 2
    assert len({RunKey.of(r) for r in every}) == len(every)

    summary = summarize(every)
    by_script: dict[str | None, int] = {}
    for cell in summary.cells.values():
        by_script[cell.group.script] = by_script.get(cell.group.script, 0) + cell.total
    assert sorted(by_script.values()) == [len(first), len(first)]


def test_summary_and_report_titles_name_each_script(two_scripts: tuple[Path, ...],
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    ws, record, home, a, b = two_scripts
    assert batch(ws, record, home, a).returncode == 0
    assert batch(ws, record, home, b, "--resume").returncode == 0
    capsys.readouterr()
    assert main(["summary", str(record), "--format", "json"]) == 0
    cells = json.loads(capsys.readouterr().out)["runs"]
    assert {c["script"] for c in cells} == {"edit-first.json", "say-only.json"}
    assert len({group_label(c) for c in cells}) == 2
    assert main(["summary", str(record)]) == 0
    text = capsys.readouterr().out
    assert "script edit-first.json (" in text and "script say-only.json (" in text


def test_older_scripted_records_migrate_with_the_script_unknown(two_scripts: tuple[Path, ...],
                                                                 tmp_path: Path) -> None:
    """A record as version 2 wrote it (the pipeline's own line without the fields v3 added)."""
    ws, record, home, a, _b = two_scripts
    assert batch(ws, record, home, a).returncode == 0
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    old = tmp_path / "old.jsonl"
    with old.open("w", encoding="utf-8") as fh:
        for data in lines:
            v2 = {k: v for k, v in data.items() if k not in ("script", "faults", "case_digest", "arm_env")}
            fh.write(json.dumps({**v2, "schema_version": 2}) + "\n")
    migrated = load_file(old).records
    assert all(r.schema_version == 3 and r.script is not None for r in migrated)
    assert all(r.script.name is None and r.script.digest is None for r in migrated if r.script)
    assert all(RunKey.of(r).script == "unknown" for r in migrated)
    summary = summarize([*migrated, *load_file(record).records])
    groups = {cell.group.script for cell in summary.cells.values()}
    assert "unknown" in groups and len(groups) == 2, "unknown is never pooled with a known script"
    done = batch(ws, old, home, a, "--resume")  # a plan never counts a record of an unknown script as done
    assert done.returncode == 0, done.stderr
    assert len(load_file(old).records) == 2 * len(lines)


def test_rescore_changes_nothing_on_written_records(two_scripts: tuple[Path, ...],
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    ws, record, home, a, b = two_scripts
    assert batch(ws, record, home, a).returncode == 0
    assert batch(ws, record, home, b, "--resume").returncode == 0
    capsys.readouterr()
    assert main(["rescore", str(record)]) == 0
    assert capsys.readouterr().out.startswith("0 verdicts changed")


def test_scripted_runs_are_priced_at_zero(two_scripts: tuple[Path, ...]) -> None:
    ws, record, home, a, _b = two_scripts
    assert batch(ws, record, home, a).returncode == 0
    paid = [r.model_copy(update={"usage": r.usage.model_copy(update={"cost_usd": 1.5})})
            for r in load_file(record).records]
    plan = [PlannedRun("sim", "scripted", r.case_id) for r in paid]
    assert forecast(plan, paid).cost_usd.total == 0.0
    assert forecast([PlannedRun("claude", "scripted", "x")], []).cost_usd.total == 0.0
    real = [r.model_copy(update={"host": "claude", "model": "opus", "script": None}) for r in paid]
    assert forecast([PlannedRun("claude", "opus", paid[0].case_id)], real).cost_usd.total == 1.5
