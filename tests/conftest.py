"""Shared test settings and fixtures.

No test is timed (performance lives in bench/), so hypothesis has no deadline. `installed_hosts`
lives here, not in a module the tests import, so pytest knows ONE session fixture and `workbench
hosts install` runs once per session. It never skips: without npm or the registry the install
fails and so do the tests that need it, because a CI run that silently skipped every real host
would prove nothing.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import settings

from workbench.cli import main

settings.register_profile("workbench", deadline=None)
settings.load_profile("workbench")

REPO_ROOT = Path(__file__).resolve().parent.parent
HOSTS_CACHE = REPO_ROOT / ".cache" / "hosts"
"""The pinned CLIs, installed through `workbench hosts install` into the repo's .cache/."""


@pytest.fixture(scope="session")
def installed_hosts() -> Path:
    """Install (or refresh) the pinned CLIs once per session; return the install dir."""
    code = main(["hosts", "install", "--dir", str(HOSTS_CACHE)])
    if code != 0:
        pytest.fail(f"`workbench hosts install` exited {code}: the real-host tests need npm and its registry")
    return HOSTS_CACHE


@pytest.fixture
def hosts_dir(request: pytest.FixtureRequest) -> Path | None:
    """The installed real hosts for a test parametrized by `host`; None for `sim` (nothing to install)."""
    if request.node.callspec.params.get("host", "sim") == "sim":
        return None
    installed: Path = request.getfixturevalue("installed_hosts")
    return installed


def make_repo(root: Path) -> Path:
    """A throwaway git repo with README.md and notes.txt ("status: todo"), committed."""
    repo = root / "repo"
    repo.mkdir(parents=True)
    (repo / "README.md").write_text("# Demo\nhello from the readme\n", encoding="utf-8")
    (repo / "notes.txt").write_text("status: todo\n", encoding="utf-8")
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    for argv in (["git", "init", "-q"], ["git", "add", "."], ["git", "commit", "-qm", "fixture"]):
        subprocess.run(argv, cwd=repo, env=env, check=True)
    return repo
