"""Pilot: records written before the script was recorded (version 2: made here by the pipeline's own
batches, then stripped of the fields version 3 added, as `test_script_identity` does) are split on
Records, Compare and the Batch results exactly as `workbench summary` splits them: a migrated scripted
run's script is unknown, a group of its own, never pooled with a known script nor counted in a plan."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from test_tui_script_split import column, two_script_records
from textual.widgets import DataTable, Select, Static
from tui_support import fill_batch_form, make_workspace, run_async, shown, wait_for

from workbench.authoring.arms import create_arm
from workbench.cli import main
from workbench.core.records import load_file
from workbench.modelstub import load_script
from workbench.tui.app import make_app
from workbench.tui.screens.batch import BatchScreen
from workbench.tui.screens.compare import CompareScreen
from workbench.tui.screens.records import RecordsScreen
from workbench.tui.widgets.bars import rate_text

V3_ONLY = ("script", "faults", "case_digest", "arm_env")
"""The fields version 3 added: a version-2 line is the record without them."""


def downgrade(lines: list[str]) -> str:
    """The records' lines as version 2 wrote them."""
    out = []
    for line in lines:
        data = {k: v for k, v in json.loads(line).items() if k not in V3_ONLY}
        out.append(json.dumps({**data, "schema_version": 2}) + "\n")
    return "".join(out)


def cli_summary(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["summary", *argv, "--format", "json"]) == 0
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


def shown_script(cell: dict[str, Any]) -> str:
    """The CLI cell's script as a record row names it: name and short digest, `unknown script (?)`."""
    digest = cell["script_digest"]
    return f"{cell['script'] or 'unknown script'} ({'?' if digest == 'unknown' else digest[:7]})"


@run_async
async def test_older_records_split_by_script_on_records_and_compare_as_the_cli_does(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = two_script_records(tmp_path)  # edit-first.json then say-only.json, arms A and B
    lines = record.read_text(encoding="utf-8").splitlines()
    first = [line for line in lines if json.loads(line)["script"]["name"] == "edit-first.json"]
    ws = make_workspace(tmp_path)
    ws.records_dir.mkdir()
    older, current = ws.records_dir / "older.jsonl", ws.records_dir / "batch.jsonl"
    older.write_text(downgrade(first), encoding="utf-8")
    current.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert all(r.script is not None and r.script.digest is None for r in load_file(older).records)

    app = make_app(ws)
    async with app.run_test(size=(200, 50)) as pilot:
        await app.action_show("compare")
        await wait_for(pilot, app, "ComparisonRead")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        a, b = (str(screen.query_one(sel, Select).value) for sel in ("#arm-a", "#arm-b"))
        table = screen.query_one("#compare-table", DataTable)
        tui = sorted((str(row[0]), str(row[1]), str(row[3]), str(row[5]), str(row[6]))
                     for row in (table.get_row_at(i) for i in range(table.row_count)) if str(row[0]))

        await app.action_show("records")
        await wait_for(pilot, app, "RecordsRead")
        await pilot.pause()
        records = app.screen
        assert isinstance(records, RecordsScreen)
        rows = Counter(h.split(" · ", 1)[1] for h in column(records.query_one(DataTable), 0))

    data = cli_summary(capsys, str(older), str(current), "--compare", f"{a},{b}")
    names = {c["script_digest"]: f"{c['script']} ({c['script_digest'][:7]})" for c in data["runs"]}
    names["unknown"] = "unknown script"  # Compare names a group; Records, above, a record
    cli = sorted((f"{r['host']} · {names[r['script_digest']]}",
                  r["target"], "-" if r["delta_pp"] is None else f"{r['delta_pp']:+.1f}",
                  rate_text(r["hits_a"], r["valid_a"]), rate_text(r["hits_b"], r["valid_b"]))
                 for r in data["comparisons"])
    assert len({row[0] for row in cli}) == 3, cli  # unknown, edit-first and say-only: three measurements
    assert tui == cli
    expected: Counter[str] = Counter()
    for cell in data["runs"]:
        expected[shown_script(cell)] += cell["total"]
    assert rows == expected and rows["unknown script (?)"] == len(first), rows


CASE = "docs-readme-section"


@run_async
async def test_the_batch_results_never_count_an_older_record_of_the_plan(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A plan run, its records made version 2, the same plan again: every run runs again (a run of an
    unknown script is never this plan's), the table counts this plan's runs only, and the CLI's
    summary of the file has the older runs in a group of their own."""
    ws = make_workspace(tmp_path)
    create_arm(ws, "docs", "docs-weak", trigger="Documentation")
    script = tmp_path / "say-only.json"
    script.write_text(json.dumps({"steps": [{"say": "Nothing to do."}]}), encoding="utf-8")
    batch = ws.records_dir / "batch.jsonl"
    app = make_app(ws)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await shown(pilot, app, "batch", BatchScreen)
        screen.script = load_script(script)
        fill_batch_form(screen, CASE, jobs="1", runs="1")
        await pilot.pause()
        await pilot.press("ctrl+r")
        await wait_for(pilot, app, "BatchFinished", cap=300)
        first = batch.read_text(encoding="utf-8").splitlines()
        assert len(first) == 2
        batch.write_text(downgrade(first), encoding="utf-8")
        await pilot.press("ctrl+r")
        await wait_for(pilot, app, "BatchFinished", count=2, cap=300)
        await pilot.pause(0.2)
        table = screen.query_one("#batch-results", DataTable)
        counts = sorted(str(table.get_row_at(i)[2]).split()[0] for i in range(table.row_count))
        status = str(screen.query_one("#batch-status", Static).render())

    assert len(load_file(batch).records) == 4, "the older runs were not counted as done: both ran again"
    data = cli_summary(capsys, str(batch))
    by_script = Counter((c["script_digest"] == "unknown", c["total"]) for c in data["runs"])
    assert by_script == {(True, 1): 2, (False, 1): 2}, data["runs"]
    assert [c.split("/")[1] for c in counts] == ["1", "1"], counts  # this plan's run per arm, the older not pooled
    assert "2 record(s) of this plan in" in status, status
