"""Bounds: a user's numbers above their caps are refused with one line before any memory is spent,
through the runner's planning (every door) and the CLI; peak memory measured with tracemalloc."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest
from batch_support import config, make_world

from workbench.cli import main
from workbench.core.errors import InputError
from workbench.runner.batch import check_plan, plan
from workbench.runner.bounds import CAPS, MAX_PLANNED, check_batch


def test_a_million_runs_is_refused_in_flat_memory(tmp_path: Path) -> None:
    cfg = config(make_world(tmp_path), runs=10**6)
    tracemalloc.start()
    try:
        with pytest.raises(InputError, match="above the cap") as err:
            plan(cfg)
        with pytest.raises(InputError, match="above the cap"):
            check_plan(cfg)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000, peak  # planning the million would hold ~3 GB
    assert "\n" not in err.value.message and "1,000" in err.value.message


def test_the_product_is_capped_not_only_each_number() -> None:
    with pytest.raises(InputError, match="planned runs, above the cap"):
        check_batch(runs=CAPS["--runs"], jobs=1, cases=50, hosts=5, arms=2)
    assert check_batch(runs=10, jobs=4, cases=3, hosts=2, arms=2) == 120
    with pytest.raises(InputError, match="at least 1"):
        check_batch(runs=1, jobs=0, cases=1, hosts=1, arms=1)
    assert CAPS["planned"] == MAX_PLANNED


def test_cli_batch_refuses_a_million_runs_with_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    w = make_world(tmp_path)
    monkeypatch.chdir(w.ws)
    code = main(["batch", "--hosts", "sim", "--arms", "A=HEAD", "--record", str(w.record), "--runs", "1000000",
                 "--unconfined"])
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "--runs" in lines[0] and "cap" in lines[0], lines
    assert not w.record.exists() or w.record.read_text() == ""
