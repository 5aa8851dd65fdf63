"""Tiers: the built-in presets, a workspace's overrides key by key, bad values named by file, line
and field, and `batch --tier` on the sim host writing the tier into every record's stop rule."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from batch_support import ROOT, make_demo_arms_world

from workbench.core.errors import InputError
from workbench.core.records import load_file
from workbench.core.workspace import parse_workspace


def test_builtin_tiers_and_a_key_by_key_override(tmp_path: Path) -> None:
    cfg = parse_workspace('name = "x"\n\n[tiers.smoke]\nruns = 2\n\n[tiers.nightly]\nruns = 3\nhosts = ["sim"]\n',
                          file=tmp_path / "workbench.toml")
    assert set(cfg.tiers) == {"smoke", "decide", "publish", "nightly"}
    assert cfg.tiers["smoke"].runs == 2 and cfg.tiers["smoke"].description.startswith("1 run")
    decide = cfg.tiers["decide"]
    assert decide.until_decided and decide.alpha == 0.05 and decide.max_runs == 20
    publish = cfg.tiers["publish"]
    assert publish.runs == 5 and publish.min_runs == 5 and publish.negatives and not publish.until_decided
    assert cfg.tiers["nightly"].hosts == ["sim"]


@pytest.mark.parametrize(("text", "line", "field"), [
    ('name = "x"\n\n[tiers.publish]\nruns = 3\n', 3, "tiers.publish"),
    ('name = "x"\n[tiers.decide]\nalpha = 1.5\n', 3, "tiers.decide.alpha"),
    ('name = "x"\n[tiers.smoke]\nrunz = 1\n', 3, "tiers.smoke.runz"),
])
def test_a_bad_tier_names_file_line_and_field(tmp_path: Path, text: str, line: int, field: str) -> None:
    with pytest.raises(InputError) as err:
        parse_workspace(text, file=tmp_path / "workbench.toml")
    assert err.value.line == line and err.value.field == field and err.value.file == str(tmp_path / "workbench.toml")


def test_batch_tier_decide_on_base_vs_base_records_the_tier(tmp_path: Path) -> None:
    w = make_demo_arms_world(tmp_path, cases=("release-ship", "negative-explain-app"))
    toml = w.ws / "workbench.toml"
    toml.write_text(toml.read_text() + "\n[tiers.decide]\nmax_runs = 2\n")
    argv = [sys.executable, "-m", "workbench", "batch", "--tier", "decide", "--cases", "release-ship", "--arms",
            "base=HEAD~1,again=HEAD", "--record", str(w.record), "--home", str(w.home), "--unconfined"]
    out = subprocess.run(argv, cwd=w.ws, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "stop rule: until decided (alpha 0.05, base vs again) or 2 runs [tier decide]" in out.stderr
    loaded = load_file(w.record).records
    assert len(loaded) == 4 and {r.case_id for r in loaded} == {"release-ship"}
    assert all(r.stop_rule and r.stop_rule.tier == "decide" and r.stop_rule.rule == "until-decided" for r in loaded)

    publish = subprocess.run([*argv[:5], "publish", *argv[6:], "--runs", "2"], cwd=w.ws,
                             env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True)
    assert publish.returncode == 2 and "at least 5 runs" in publish.stderr
