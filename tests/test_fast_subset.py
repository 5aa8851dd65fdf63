"""`pytest --fast` stays honest: an unmarked test that starts bubblewrap fails (the sentinel names the
missing marker), the same test marked `bwrap` is left out, and a plain test still runs."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

CONFTEST = Path(__file__).with_name("conftest.py")
SAMPLE = """
import subprocess
import pytest

def test_starts_bwrap_unmarked():
    subprocess.run(["bwrap", "--version"], capture_output=True)

@pytest.mark.bwrap
def test_starts_bwrap_marked():
    subprocess.run(["bwrap", "--version"], capture_output=True)

def test_plain():
    assert 1 + 1 == 2
"""


def test_fast_fails_an_unmarked_test_that_starts_bwrap_and_leaves_out_a_marked_one(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST.read_text(encoding="utf-8"))
    pytester.makepyfile(test_sample=SAMPLE)
    result = pytester.runpytest_subprocess("--fast", "-p", "no:randomly", "-p", "no:xdist", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1, deselected=1)
    result.stdout.fnmatch_lines(["*test_starts_bwrap_unmarked is in the fast subset but needs: bwrap (started bwrap)*"])
