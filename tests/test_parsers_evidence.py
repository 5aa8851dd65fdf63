"""unreadable_paths: the paths a tool output says could not be read, and only those."""

from __future__ import annotations

import pytest

from workbench.core.evidence import unreadable_paths


@pytest.mark.parametrize(
    ("output", "paths"),
    [
        ("cat: foo/bar.md: No such file or directory", ["foo/bar.md"]),
        ("head: cannot open 'x' for reading: Permission denied", ["x"]),
        ("sed: can't read x: No such file or directory", ["x"]),
        ("bash: line 1: x: Operation not permitted", ["x"]),
        ("x: Is a directory", ["x"]),
        ("ls: cannot access 'x': No such file or directory", ["x"]),
        ("FileNotFoundError: [Errno 2] No such file or directory: 'x'", ["x"]),
        ("grep: x: No such file or directory", ["x"]),
        ("rg: x: No such file or directory (os error 2)", ["x"]),
        ("python3: can't open file '/a/b.py': [Errno 2] No such file or directory", ["/a/b.py"]),
        ("Exit code 2\n# Demo\nls: cannot access 'missing': No such file or directory", ["missing"]),
        ("cat: a: No such file or directory\ncat: b: Permission denied\ncat: a: No such file or directory",
         ["a", "b"]),
    ],
)
def test_reports_unreadable_paths(output: str, paths: list[str]) -> None:
    assert unreadable_paths(output) == paths


@pytest.mark.parametrize(
    "output",
    [
        "/bin/bash: line 1: /tmp/outside/codex_escape.txt: Read-only file system",
        "# Demo repo\nHello from README.\n",
        "",
        "status: No such luck",
    ],
)
def test_write_refusals_and_plain_output_are_not_read_failures(output: str) -> None:
    assert unreadable_paths(output) == []
