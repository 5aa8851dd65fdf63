"""Reasoning effort: what a record says is what the host was given, on every door.

A host CLI that takes an effort gets it on its command line, and the scripted model server shows it
arrived in the model request (Claude Code `output_config.effort`, Codex `reasoning.effort`); a host
that takes none (Gemini CLI, Grok CLI; OpenCode's `--variant` changed nothing in its requests) is
refused with one line naming `--effort`, before anything runs."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from batch_support import make_world
from redteam_support import host_config

from workbench.core.cases import find_case
from workbench.core.errors import InputError
from workbench.hosts.install import find_binary
from workbench.modelstub import ModelServer, parse_script
from workbench.runner import hostrun
from workbench.runner.batch import check_plan, run_batch
from workbench.runner.execute import execute
from workbench.runner.request import build_request
from workbench.tui.fields import in_fields

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = {"steps": [{"calls": [{"shell": "ls"}]}, {"say": "Done."}]}
SENT = {"claude": lambda body: (body.get("output_config") or {}).get("effort"),
        "codex": lambda body: (body.get("reasoning") or {}).get("effort")}
"""Where each host's model request carries the effort (seen on the scripted server)."""


@pytest.fixture
def bodies(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Every request body the scripted model server receives during the test."""
    seen: list[dict[str, Any]] = []

    class Recording(ModelServer):
        def handle(self, path: str, body: dict[str, Any]) -> Any:
            seen.append(body)
            return super().handle(path, body)

    monkeypatch.setattr(hostrun, "ModelServer", Recording)
    return seen


def _scripted(bodies: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [b for b in bodies if b.get("messages") or b.get("input")]


@pytest.mark.parametrize("host", ["claude", "codex"])
def test_the_effort_reaches_the_model_through_the_canary_door(host: str, installed_hosts: Path,
                                                              bodies: list[dict[str, Any]]) -> None:
    request = build_request(find_case("docs-readme-section", ROOT / "cases"), host, door="canary",
                            plugin=ROOT / "plugin", fixture=ROOT / "fixtures" / "base", script=parse_script(SCRIPT),
                            binary=find_binary(host, installed_hosts), timeout=120.0, effort="high")
    record = execute(request).record
    assert record.valid and record.effort == "high", record.invalid_reason
    sent = {SENT[host](b) for b in _scripted(bodies)}
    assert sent == {"high"}, sent


def test_the_effort_reaches_the_model_through_the_batch_door(tmp_path: Path, installed_hosts: Path,
                                                            bodies: list[dict[str, Any]]) -> None:
    cfg = host_config(make_world(tmp_path), "codex", installed_hosts, script=SCRIPT, effort="low")
    result = run_batch(cfg)
    records = [json.loads(line) for line in cfg.record.read_text(encoding="utf-8").splitlines()]
    assert len(result.outcomes) == 1 and [r["effort"] for r in records] == ["low"] and records[0]["valid"]
    assert {SENT["codex"](b) for b in _scripted(bodies)} == {"low"}


@pytest.mark.parametrize(("host", "effort", "said"), [
    ("gemini", "high", "gemini takes no reasoning effort"),
    ("grok", "high", "grok takes no reasoning effort"),
    ("opencode", "high", "opencode takes no reasoning effort"),
    ("codex", "bogus", "codex takes minimal | low | medium | high | xhigh, not 'bogus'"),
])
def test_an_effort_the_host_cannot_take_is_refused_on_every_door(host: str, effort: str, said: str,
                                                                tmp_path: Path) -> None:
    case = find_case("docs-readme-section", ROOT / "cases")
    for door in ("canary", "batch", "postinstall"):
        with pytest.raises(InputError, match=said) as caught:
            build_request(case, host, door=door, plugin=ROOT / "plugin", script=parse_script(SCRIPT),  # type: ignore[arg-type]
                          effort=effort, unconfined=True)
        assert caught.value.field == "--effort"
    cfg = host_config(make_world(tmp_path), "sim", None, script=SCRIPT)
    with pytest.raises(InputError, match=said):  # the batch's pre-flight, for every host of the plan
        check_plan(replace(cfg, hosts=["sim", host], effort=effort, binaries={host: Path(sys.executable)}))
    script = tmp_path / "script.json"
    script.write_text(json.dumps(SCRIPT), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "workbench", "canary", "docs-readme-section", "--host", host,
                           "--script", str(script), "--effort", effort], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and f"--effort: {said}" in done.stderr, done.stderr
    assert in_fields(caught.value).startswith(f"effort: {said}")  # the TUI forms' words


def test_sim_takes_an_effort_and_records_it() -> None:
    request = build_request(find_case("docs-readme-section", ROOT / "cases"), "sim", door="canary",
                            plugin=ROOT / "plugin", fixture=ROOT / "fixtures" / "base", effort="medium", unconfined=True)
    assert execute(request).record.effort == "medium"


def test_the_forms_suggest_every_level_a_host_takes() -> None:
    from workbench.core.hostinfo import EFFORTS, NAMES
    from workbench.hosts import adapter

    assert set(EFFORTS) == {e for h in NAMES for e in adapter(h).efforts}


@pytest.mark.parametrize(("host", "effort"), [("gemini", "high"), ("sim", "medium")])
def test_the_tui_canary_form_gives_the_same_answer(host: str, effort: str, tmp_path: Path) -> None:
    """The TUI door: a host that takes none is offered none (the CLI refuses it: above); one that does records it."""
    import asyncio

    from textual.widgets import Select
    from tui_support import make_workspace, shown, wait_for

    from workbench.tui.app import make_app
    from workbench.tui.messages import RunScored
    from workbench.tui.screens.canary import CanaryScreen
    from workbench.tui.widgets.runform import LabelledSelect

    async def scenario() -> None:
        app = make_app(make_workspace(tmp_path))
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await shown(pilot, app, "canary", CanaryScreen)
            screen.query_one("#case", Select).value = "docs-readme-section"
            screen.query_one("#host", Select).value = host
            await pilot.pause()
            picker = screen.query_one("#effort", LabelledSelect)
            if host != "sim":  # the picker never offers what the door would refuse
                assert effort not in picker.offered() and picker.offered() == [""]
                assert screen.form(screen.case()).effort is None  # type: ignore[arg-type]
                return
            picker.value = effort
            await pilot.pause()
            screen.action_run()
            await wait_for(pilot, app, "RunScored")
            await pilot.pause()
            scored = next(m for m in app.journal if isinstance(m, RunScored))
            assert scored.record.effort == effort

    asyncio.run(scenario())
