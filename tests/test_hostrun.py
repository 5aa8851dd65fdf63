"""run_host on the offline sim (a registered adapter like any host), its fault mapping, and version lookup."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import make_repo

from workbench.core.errors import InputError
from workbench.modelstub import Fault, parse_script
from workbench.runner import run_host
from workbench.runner.hostrun import _cli_version

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = parse_script({"steps": [{"calls": [{"skill": "ops"}]}, {"calls": [{"read": "{plugin}/README.md"}]},
                                 {"calls": [{"edit": {"path": "{repo}/notes.txt", "old": "todo", "new": "done"}}]},
                                 {"say": "Done."}]})


@pytest.fixture
def plugin(tmp_path: Path) -> Path:
    return Path(shutil.copytree(ROOT / "plugin", tmp_path / "plugin"))


def test_sim_runs_through_run_host_with_the_plugin(tmp_path: Path, plugin: Path) -> None:
    repo = make_repo(tmp_path)
    run = run_host("sim", "Mark the notes as done.", repo, tmp_path, script=SCRIPT, plugin=plugin)
    assert [(c.kind, c.status) for c in run.parsed.calls] == [("skill", "ok"), ("read", "ok"), ("edit", "ok")]
    assert run.parsed.calls[1].path == str(plugin / "README.md")  # {plugin} is the run's plugin copy
    assert (repo / "notes.txt").read_text() == "status: done\n"
    assert run.skill_offered("ops") and run.offered_plugins == ["demo-ops"]
    assert run.host_version and run.host_version.startswith("sim-") and run.served_model == "sim-script"
    assert run.exit_code == 0 and run.duration > 0 and run.launch.argv[1:3] == ["-m", "workbench.sim"]
    assert json.loads((tmp_path / "script.json").read_text())["steps"][1]["calls"][0]["read"] == str(
        plugin / "README.md")


def test_sim_without_script_runs_its_policy(tmp_path: Path, plugin: Path) -> None:
    run = run_host("sim", "Commit the notes change", make_repo(tmp_path), tmp_path, plugin=plugin, model="m-9")
    assert run.served_model == "m-9" and run.parsed.calls[0].kind == "skill"


def test_an_error_on_every_request_is_the_sims_own_no_output_fault(tmp_path: Path) -> None:
    run = run_host("sim", "x", make_repo(tmp_path), tmp_path, script=SCRIPT, faults=[Fault("status", status=529)])
    assert run.exit_code == 1 and not run.parsed.model_output and run.parsed.calls == []
    with pytest.raises(InputError, match="no-output"):
        run_host("sim", "x", tmp_path / "repo", tmp_path / "b", script=SCRIPT, faults=[Fault("status", step=1)])


def test_version_of_an_npm_install_comes_from_its_package_json(tmp_path: Path) -> None:
    modules = tmp_path / "node_modules"
    (modules / "@google" / "gemini-cli").mkdir(parents=True)
    (modules / "@google" / "gemini-cli" / "package.json").write_text('{"version": "9.8.7"}')
    binary = modules / ".bin" / "gemini"  # never run: it does not even exist
    assert _cli_version("gemini", str(binary)) == "9.8.7 (@google/gemini-cli)"  # the package names the client
    assert _cli_version("gemini", str(tmp_path / "elsewhere" / "gemini")) is None  # --version of nothing
