"""The sessions door against sessions the pinned real CLIs write now: a kept canary of each script,
then `workbench sessions` on that run's temp HOME must give the canary's verdict, and its record
must hold no path of the run folder."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from capture_scripts import sessions as capture

from workbench.cli import main
from workbench.core.records import load_file

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("scenario", sorted(capture.SCRIPTS))
@pytest.mark.parametrize("host", ["claude", "codex", "gemini", "opencode"])
def test_live_session_gives_the_canary_verdict(host: str, scenario: str, tmp_path: Path, installed_hosts: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    _, result = capture.canary(host, scenario, installed_hosts, tmp_path)
    try:
        home = result.run_dir / "home"
        out_file = tmp_path / "sessions.jsonl"
        code = main(["sessions", "--host", host, "--home", str(home), "--require", capture.REQUIRED,
                     "--moment", capture.MOMENT, "--json", "--record", str(out_file)])
        out = json.loads(capsys.readouterr().out)
        assert code == 0
        assert [s["verdicts"] for s in out["sessions"]] == [result.record.verdict]
        assert result.record.overall == ("fired" if scenario == "reads-then-commits" else "skip")
        written = load_file(out_file).records
        assert [(c.tool, c.kind, c.status) for c in written[0].calls] == \
            [(c.tool, c.kind, c.status) for c in result.record.calls], "the session's calls are the stream's"
        assert written[0].moment_at == result.record.moment_at
        raw = out_file.read_text()
        assert str(result.run_dir) not in raw and '"condition":"sessions"' in raw.replace(" ", "")
    finally:
        shutil.rmtree(result.run_dir, ignore_errors=True)
