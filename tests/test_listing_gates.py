"""The canary and batch doors refuse a row the listing model says the host would not offer, with the
same model `audit` reports: CLI canary, CLI batch and the TUI canary door agree, one line each."""

from __future__ import annotations

from pathlib import Path

import pytest
from tui_support import make_workspace, run_async

from workbench.cli import main
from workbench.core.audit import audit
from workbench.core.cases import find_case
from workbench.core.errors import InputError
from workbench.core.routing import parse_files
from workbench.core.workspace import Workspace, load_workspace
from workbench.runner.doors import CanaryForm, canary_request

SCRIPT = "canaries/cat-brace.json"
LONG = "Reference notes on paper forms of many kinds. " * 40 + "Use before filling a PDF form."
"""A description over both hosts' per-description caps (1,536 and 1,024): its trigger is cut off."""


def long_skill_workspace(tmp_path: Path) -> Workspace:
    ws = make_workspace(tmp_path)
    skill = ws.plugin_dir / "skills" / "forms" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text(f"---\nname: forms\ndescription: {LONG}\n---\n\n# Forms\n", encoding="utf-8")
    (ws.cases_dir / "fill-form.toml").write_text(
        'target = "forms/description"\nkind = "positive"\nprompt = "Fill in the intake form in form.pdf."\n'
        'required = ["skills/forms/SKILL.md"]\nmoment = "end"\n', encoding="utf-8")
    return load_workspace(ws.root)


def test_canary_batch_and_tui_refuse_a_row_the_host_would_not_offer(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    ws = long_skill_workspace(tmp_path)
    monkeypatch.chdir(ws.root)
    report = audit(ws, parse_files(ws.routing_files(), plugin=ws.plugin_dir))
    flagged = {(f.row, f.message.split(":")[0]) for f in report.findings if f.rule == "NOT-OFFERED"}
    assert ("forms/description", "claude 2.1.197") in flagged and ("forms/description", "codex 0.171.0") in flagged
    assert main(["canary", "fill-form", "--host", "claude", "--script", SCRIPT, "--unconfined"]) == 2
    canary_line = capsys.readouterr().err.strip().splitlines()[-1]
    assert main(["batch", "--arms", "baseline", "--cases", "fill-form", "--hosts", "claude", "--script", SCRIPT,
                 "--unconfined", "--record", str(ws.records_dir / "b.jsonl")]) == 2
    batch_line = capsys.readouterr().err.strip().splitlines()[-1]
    with pytest.raises(InputError) as tui:
        canary_request(ws, CanaryForm(find_case("fill-form", ws.cases_dir), "claude",
                                      script=ws.canaries_dir / "cat-brace.json", unconfined=True))
    assert "row forms/description (case fill-form) would not be offered" in tui.value.message
    assert "description of forms cut to 1536 of" in tui.value.message
    assert tui.value.message in canary_line and tui.value.message in batch_line, (canary_line, batch_line)
    assert not (ws.records_dir / "canary.jsonl").exists(), "nothing ran"
    # the same case on a host the model does not cover, and a row that is offered, pass the gate
    canary_request(ws, CanaryForm(find_case("fill-form", ws.cases_dir), "sim",
                                  script=ws.canaries_dir / "cat-brace.json", unconfined=True))
    canary_request(ws, CanaryForm(find_case("docs-readme-section", ws.cases_dir), "claude",
                                  script=ws.canaries_dir / "cat-brace.json", unconfined=True))


@run_async
async def test_the_tui_canary_form_gets_the_same_refusal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from textual.widgets import Select
    from tui_support import shown

    from workbench.tui.app import make_app
    from workbench.tui.screens.canary import CanaryScreen

    ws = long_skill_workspace(tmp_path)
    monkeypatch.chdir(ws.root)
    app = make_app(ws)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await shown(pilot, app, "canary", CanaryScreen)
        screen.query_one("#host", Select).value = "claude"
        screen.query_one("#script", Select).value = str(ws.canaries_dir / "cat-brace.json")
        await pilot.pause()
        screen.query_one("#case", Select).value = "fill-form"
        await pilot.pause()
        case = screen.case()
        assert case is not None and case.id == "fill-form"
        with pytest.raises(InputError) as tui:
            canary_request(ws, screen.form(case))
    assert tui.value.message.startswith("row forms/description (case fill-form) would not be offered: claude 2.1.197")
