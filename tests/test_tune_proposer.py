"""Tune with a proposer host: the real Claude Code CLI, driven by our scripted model server, proposes the
triggers; they are screened, committed as arms and measured on sim like any other candidate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_tune import tune_cli, workspace


def test_real_claude_cli_proposes_a_wording(tmp_path: Path, installed_hosts: Path,
                                            capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    ws = workspace(tmp_path, weak=True)
    script = tmp_path / "proposer.json"
    script.write_text(json.dumps({"steps": [{"say": "TRIGGER: Before tagging a release\n"
                                                    "TRIGGER: When ready to ship"}]}))
    monkeypatch.setenv("WORKBENCH_HOSTS_DIR", str(installed_hosts))
    code, out, err = tune_cli(ws, capsys, monkeypatch, "release", "--proposer", "claude",
                              "--proposer-script", str(script), "--max-runs", "6", "--json")
    data = json.loads(out)
    by_trigger = {c["trigger"]: c for c in data["candidates"]}
    assert set(by_trigger) == {"Before tagging a release", "When ready to ship"}, err
    assert all(c["source"] == "proposer" for c in data["candidates"])
    assert by_trigger["When ready to ship"]["status"] == "duplicate"  # the current text: never run
    proposed = by_trigger["Before tagging a release"]
    assert proposed["arm"] and proposed["selection"] is not None
    assert data["runs"] >= 1 + 2 * 7  # the proposer's run, then at least the pairs that can decide
    assert code in (0, 1) and (data["winner"] is None or data["winner"]["trigger"] == "Before tagging a release")
