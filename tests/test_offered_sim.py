"""`offered` on sim: the sim keeps its listing as Claude Code does (a `skill_listing` transcript under
the run's HOME), so its records say whether the row reached its model, through the same reader."""

from __future__ import annotations

from pathlib import Path

from workbench.core.cases import find_case
from workbench.runner.api_bodies import transcript_entries
from workbench.runner.execute import entry_description, execute, reached_model
from workbench.runner.request import build_request

ROOT = Path(__file__).resolve().parent.parent
CASE = find_case("docs-readme-section", ROOT / "cases")


def test_a_sim_run_records_the_row_it_offered_and_its_listing_holds_the_description(tmp_path: Path) -> None:
    req = build_request(CASE, "sim", door="canary", plugin=ROOT / "plugin", fixture=ROOT / "fixtures" / "base",
                        timeout=60.0, keep=True, workdir=tmp_path)
    result = execute(req)
    assert result.record.offered == {CASE.target: True}, result.record.entry
    entries = transcript_entries(result.run_dir)
    assert [e["source"] for e in entries] == ["transcript"] and len(entries[0]["sha256"]) == 64
    description = entry_description(ROOT / "plugin", "ops")
    assert description and description in entries[0]["rows"]["demo-ops:ops"]
    result.run.entry_description = description + " plus words the sim never listed"
    assert reached_model(result.run, "ops") is False
