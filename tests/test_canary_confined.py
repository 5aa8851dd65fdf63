"""Every door confined by default: the canary (CLI) runs inside bubblewrap with the proof, and
`--unconfined` is explicit, loud (stderr) and recorded (condition unconfined plus the reason)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.cli import main
from workbench.core.records import load_file
from workbench.runner import proof


def _canary(tmp_path: Path, shell: str, *extra: str) -> tuple[int, str, Path]:
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"steps": [{"calls": [{"shell": shell}]}, {"say": "done"}]}))
    records = tmp_path / "r.jsonl"
    code = main(["canary", "--host", "sim", "--prompt", "p", "--require", "workflows/commit.md", "--moment", "end",
                 "--script", str(script), "--record", str(records), *extra])
    return code, shell, records


def test_canary_is_confined_by_default_and_proven_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    outside = tmp_path / "outside-of-run.txt"
    proof._CACHE.clear()
    code, _, records = _canary(tmp_path, f"echo escaped > {outside}; echo done")
    err = capsys.readouterr().err
    assert code == 0 and "UNCONFINED" not in err
    assert not outside.exists()  # judged from outside: the write was refused
    [record] = load_file(records).records
    assert record.condition == "canary" and record.unconfined_reason is None
    shell = [c for c in record.calls if c.kind == "shell"][0]
    assert shell.result is not None and "No such file or directory" in shell.result  # /tmp inside is its own
    assert len(proof._CACHE) == 1  # the canary proved its confinement (once per session and configuration)


def test_unconfined_canary_is_loud_and_recorded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    outside = tmp_path / "outside-of-run.txt"
    code, _, records = _canary(tmp_path, f"echo escaped > {outside}", "--unconfined")
    err = capsys.readouterr().err
    assert code == 0
    assert "WARNING: running UNCONFINED (canary)" in err
    assert outside.read_text() == "escaped\n"  # no sandbox: that is what the warning says
    [record] = load_file(records).records
    assert record.condition == "unconfined" and record.unconfined_reason == "--unconfined given (canary)"
