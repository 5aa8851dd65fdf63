"""The instrument self-test: all green on sim and on every pinned real host; a wrong expectation fails."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from workbench.cli import main
from workbench.hosts import REAL_HOSTS
from workbench.hosts.install import ENV_DIR, find_binary
from workbench.runner.selftest import load_scenarios

ROOT = Path(__file__).resolve().parent.parent
REQUIRED_SCENARIOS = {"read-then-edit", "edit-then-read", "read-refused-then-edit", "cd-and-cat", "cat-brace",
                      "cat-then-failing-ls", "read-then-stop", "nothing", "cat-and-commit", "negative-read",
                      "negative-no-read", "no-output", "shell-read-missing"}


def test_every_scenario_of_the_issue_is_kept() -> None:
    assert {s.name for s in load_scenarios(ROOT / "canaries")} >= REQUIRED_SCENARIOS


def test_sim_is_all_green(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["selftest", "--host", "sim"]) == 0
    out = capsys.readouterr().out
    assert out.count("ok expected") == len(load_scenarios(ROOT / "canaries"))


def test_a_wrong_expectation_is_a_mismatch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "workbench.toml").write_text("")
    shutil.copytree(ROOT / "plugin", tmp_path / "plugin")
    (tmp_path / "canaries").mkdir()
    data = json.loads((ROOT / "canaries" / "edit-then-read.json").read_text())
    data["expect"] = "fired"  # a late read is a skip, so this must fail
    (tmp_path / "canaries" / "wrong.json").write_text(json.dumps(data))
    monkeypatch.chdir(tmp_path)
    assert main(["selftest", "--host", "sim"]) == 1
    assert "MISMATCH expected fired, got skip" in capsys.readouterr().out


def test_real_hosts_are_all_green(installed_hosts: Path, monkeypatch: pytest.MonkeyPatch,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv(ENV_DIR, str(installed_hosts))
    hosts = [h for h in REAL_HOSTS if find_binary(h, installed_hosts) is not None]
    assert hosts == list(REAL_HOSTS)
    argv = ["selftest", "--workers", "12"] + [a for h in hosts for a in ("--host", h)]
    code = main(argv)
    out = capsys.readouterr().out
    assert code == 0, out
    scenarios = len(load_scenarios(ROOT / "canaries"))
    assert out.count("ok expected") + out.count("n/a:") == scenarios * len(hosts)


def test_an_unknown_fault_is_refused_by_the_self_test_and_the_canary_door(tmp_path: Path) -> None:
    """A canary file's `fault` means the same on both doors that read it: `no-output` or refused, naming
    file and field (an unknown one is never run as a fault-free scenario)."""
    from workbench.core.errors import InputError
    from workbench.runner.doors import script_fault

    data = json.loads((ROOT / "canaries" / "no-output.json").read_text(encoding="utf-8"))
    (tmp_path / "odd.json").write_text(json.dumps({**data, "fault": "sometimes"}), encoding="utf-8")
    with pytest.raises(InputError) as by_selftest:
        load_scenarios(tmp_path)
    with pytest.raises(InputError) as by_canary:
        script_fault(tmp_path / "odd.json")
    for exc in (by_selftest.value, by_canary.value):
        assert exc.file == str(tmp_path / "odd.json") and exc.field == "fault", exc
    assert script_fault(ROOT / "canaries" / "no-output.json") == "no-output"
    assert {s.fault for s in load_scenarios(ROOT / "canaries") if s.name == "no-output"} == {"no-output"}
