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
from workbench.runner.bounds import CAPS, MAX_PLANNED, MAX_RUNS, check_batch


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
        check_batch(runs=MAX_RUNS, jobs=1, cases=50, hosts=5, arms=2)
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


BATCH = ["batch", "--hosts", "sim", "--arms", "A=HEAD", "--unconfined"]


REFUSED = [
    (["--runs", "0"], "--runs", "1,000"),
    (["--runs", "-2"], "--runs", "1,000"),
    (["--jobs", "0"], "--jobs", "64"),
    (["--timeout", "99999999999"], "--timeout", "86,400"),
    (["--timeout", "0"], "--timeout", "86,400"),
    (["--timeout", "nan"], "--timeout", "86,400"),
    (["--silence-timeout", "inf"], "--silence-timeout", "86,400"),
    (["--budget-tokens", str(10**23)], "--budget-tokens", "1,000,000,000,000"),
    (["--budget-tokens", "-5"], "--budget-tokens", "1,000,000,000,000"),
    (["--budget-usd", "nan"], "--budget-usd", "1,000,000"),
    (["--budget-usd", "-1"], "--budget-usd", "1,000,000"),
    (["--budget-usd", "1e23"], "--budget-usd", "1,000,000"),
    (["--infra-retries", "100000000"], "--infra-retries", "10"),
    (["--infra-retries", "-1"], "--infra-retries", "10"),
    (["--until-decided", "--max-runs", "1000000"], "--max-runs", "1,000"),
]
"""Batch flags outside their caps: (flags, the flag the one line must name, the cap it must name)."""


def test_cli_batch_refuses_each_number_outside_its_cap_naming_the_flag(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    w = make_world(tmp_path)
    monkeypatch.chdir(w.ws)
    for flags, flag, cap in REFUSED:
        code = main([*BATCH, "--record", str(w.record), *flags])
        lines = capsys.readouterr().err.strip().splitlines()
        assert code == 2 and len(lines) == 1, (flags, lines)
        assert f" {flag}: " in lines[0] and any(f"{w} {cap}" in lines[0] for w in ("cap of", "cap", "at most")), \
            (flags, lines)
    assert not w.record.exists()


def test_cli_selftest_refuses_workers_outside_the_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(make_world(tmp_path).ws)
    for workers in ("100000", "0", "-3"):
        assert main(["selftest", "--host", "sim", "--workers", workers]) == 2
        lines = capsys.readouterr().err.strip().splitlines()
        assert len(lines) == 1 and " --workers: " in lines[0] and "64" in lines[0], lines


@pytest.mark.parametrize("door", ["canary", "postinstall"])
def test_cli_single_runs_refuse_a_timeout_outside_the_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str], door: str) -> None:
    w = make_world(tmp_path)
    monkeypatch.chdir(w.ws)
    for timeout in ("0", "99999999999", "nan"):
        args = [door, *(["docs-readme-section"] if door == "canary" else []), "--host", "sim", "--timeout", timeout,
                "--record", str(w.record), "--unconfined"]
        assert main(args) == 2, timeout
        lines = capsys.readouterr().err.strip().splitlines()
        assert len(lines) == 1 and "--timeout" in lines[0] and "86,400" in lines[0], lines
    assert not w.record.exists()


def sparse(path: Path, size: int) -> Path:
    """A file of SIZE bytes that takes no disk (its size is what a stat sees; reading it would fill memory)."""
    with path.open("wb") as fh:
        fh.truncate(size)
    return path


@pytest.mark.parametrize("suffix", [".json", ".toml"])
def test_a_huge_script_is_refused_by_its_size_in_flat_memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str], suffix: str) -> None:
    w = make_world(tmp_path)
    monkeypatch.chdir(w.ws)
    script = sparse(tmp_path / f"big{suffix}", 200 * 1024 * 1024)
    tracemalloc.start()
    try:
        code = main([*BATCH, "--record", str(w.record), "--script", str(script)])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "big" in lines[0] and "above the cap of" in lines[0], lines
    assert peak < 20_000_000, peak  # reading it would hold 200 MB and more
    assert not w.record.exists()


def test_a_huge_case_file_scenario_or_import_is_refused_by_its_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    w = make_world(tmp_path)
    monkeypatch.chdir(w.ws)
    big = sparse(tmp_path / "evals.json", 200 * 1024 * 1024)
    tracemalloc.start()
    try:
        assert main(["case", "import", str(big), "--format", "skill-creator", "--out", str(tmp_path / "out")]) == 2
        sparse(w.ws / "cases" / "huge.toml", 200 * 1024 * 1024)
        assert main([*BATCH, "--record", str(w.record)]) == 2
        (w.ws / "canaries").mkdir(exist_ok=True)
        sparse(w.ws / "canaries" / "huge-scenario.json", 200 * 1024 * 1024)
        assert main(["selftest", "--host", "sim"]) == 2
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 3 and "evals.json" in lines[0] and "huge.toml" in lines[1], lines
    assert "huge-scenario.json" in lines[2], lines
    assert all("above the cap of" in line for line in lines), lines
    assert peak < 20_000_000, peak
    assert not (tmp_path / "out").exists() and not w.record.exists()
