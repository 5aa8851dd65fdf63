"""Red team, environment: secrets in the batch's own environment never reach the agent's shell.

A hostile scripted model dumps its whole environment into the repo; the dump is copied out after the
run and judged from outside (it must exist and hold the run's HOME, and hold no planted value). The
stream and the record must not hold them either."""

from __future__ import annotations

from pathlib import Path

import pytest
from batch_support import make_world
from redteam_support import HOSTS, capturing, everything_written, host_config, shell_script

from workbench.runner.batch import run_batch

pytestmark = pytest.mark.bwrap  # runs go through a door confined (the default); see docs/testing.md

PLANTED = {"GITHUB_TOKEN": "ghp_PLANTED0a1b2c", "AWS_SECRET_ACCESS_KEY": "AWSPLANTED9z8y7x",
           "AZURE_OPENAI_API_KEY": "AZUREPLANTED5d6e", "OPENROUTER_API_KEY": "sk-or-PLANTED3f4g",
           "ANTHROPIC_API_KEY": "sk-ant-PLANTED1h2i", "OPENAI_API_KEY": "sk-PLANTED7j8k"}



@pytest.mark.parametrize("host", HOSTS)
def test_env_secrets_do_not_reach_the_agent_shell(tmp_path: Path, host: str, hosts_dir: Path | None,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in PLANTED.items():
        monkeypatch.setenv(name, value)
    w = make_world(tmp_path)
    into = tmp_path / "left"
    cfg = host_config(w, host, hosts_dir, script=shell_script("env > env.txt", "printenv > printenv.txt"))
    result = run_batch(cfg, run_host_fn=capturing(into))
    assert result.aborted is None and len(result.outcomes) == 1
    dump = (into / "repo" / "env.txt").read_text()
    assert "HOME=" in dump and "PATH=" in dump  # the attack ran
    seen = everything_written(into) + (into / "stdout.jsonl").read_text() + w.record.read_text()
    leaked = [name for name, value in PLANTED.items() if value in seen]
    assert not leaked, leaked
