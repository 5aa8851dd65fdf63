"""Small fresh records files from the real producers for the report tests: a confined sim batch
whose scripted model opens a SIBLING procedure and prints markup, plus one no-output canary; and
confined sim canaries whose main agent delegates (scripts/capture_delegation.py's scripts)."""

from __future__ import annotations

from pathlib import Path

from batch_support import config, make_world

from workbench.core.cases import find_case
from workbench.core.records import append_record
from workbench.modelstub import parse_script
from workbench.runner.batch import run_batch
from workbench.runner.execute import execute
from workbench.runner.request import build_request

ROOT = Path(__file__).resolve().parent.parent
PAYLOAD = ("<script>document.body.dataset.pwned='script'</script>"
           "<img id=pwned src=x onerror=\"document.body.dataset.pwned='img'\">")
"""Agent output that would run if the report did not escape it."""

SIBLING_SCRIPT = {"steps": [
    {"say": "looking around", "calls": [{"read": "{plugin}/skills/ops/workflows/diagnosis.md"}]},
    {"calls": [{"shell": "printf '%s\\n' '" + PAYLOAD.replace("'", "'\\''") + "'"}]},
    {"calls": [{"write": {"path": "{repo}/TESTING.md", "content": "run pytest\n"}}]},
    {"say": "done"}]}
"""Reads diagnosis.md (a sibling of the docs case's target, a scored procedure of the negative case),
prints the payload, then edits: the docs case skips, the negative case opens diagnosis.md."""


def fresh_records(tmp: Path, runs: int = 2) -> Path:
    """2 cases x 2 arms x RUNS confined sim runs, then a no-output canary appended: one records file."""
    w = make_world(tmp)
    run_batch(config(w, runs=runs, script=SIBLING_SCRIPT))
    silent = execute(build_request(find_case("docs-readme-section", ROOT / "cases"), "sim", door="canary",
                                   plugin=ROOT / "plugin", no_output=True)).record
    append_record(w.record, silent)
    return w.record


def delegated_records(tmp: Path, repeats: int = 2) -> Path:
    """Confined sim canaries of `commit-typo-fix`, REPEATS of each delegation script (the subagent reads
    the procedure; the main agent reads it beside a delegation; nobody does): one records file."""
    from capture_scripts import delegation as capture

    out = tmp / "delegated.jsonl"
    case = find_case(capture.CASE, ROOT / "cases")
    for scenario in sorted(capture.SCRIPTS):
        for _ in range(repeats):
            request = build_request(case, "sim", door="canary", plugin=ROOT / "plugin",
                                    fixture=ROOT / "fixtures" / "base",
                                    script=parse_script(capture.SCRIPTS[scenario]).named(f"{scenario}.json"))
            append_record(out, execute(request).record)
    return out
