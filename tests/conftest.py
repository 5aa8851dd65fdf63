"""Shared test settings and fixtures, and the marks that split off the fast subset.

No test is timed (performance lives in bench/), so hypothesis has no deadline. `installed_hosts`
lives here, not in a module the tests import, so pytest knows ONE session fixture and `workbench
hosts install` runs once per session (once per machine under xdist: a file lock serialises the
workers). It never skips: without npm or the registry the install fails and so do the tests that
need it, because a CI run that silently skipped every real host would prove nothing.

Every test that needs a heavy part is marked here, automatically (`pytest_collection_modifyitems`):
`hosts` (the pinned npm CLIs), `bwrap` (runs confined), `pty` (a pseudo-terminal or tmux), `browser`
(headless chromium), `ray` (a Ray cluster). `pytest --fast` (`make test-fast`) deselects them and
turns on sentinels: `bwrap`, `node`, `npm`, `npx`, `tmux` and `chromium` on PATH become stubs that
fail, a pty or a Ray import fails the test, so a test that needs a heavy part and is not marked
fails loudly in the fast subset instead of slowing it down or passing by luck.
"""

from __future__ import annotations

import contextlib
import fcntl
import fnmatch
import os
import pty
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import settings

from workbench.cli import main

settings.register_profile("workbench", deadline=None)
settings.load_profile("workbench")

REPO_ROOT = Path(__file__).resolve().parent.parent
HOSTS_CACHE = REPO_ROOT / ".cache" / "hosts"
"""The pinned CLIs, installed through `workbench hosts install` into the repo's .cache/."""

HEAVY = ("hosts", "bwrap", "pty", "browser", "ray")
"""The heavy parts: set here, deselected by `--fast`, guarded by its sentinels (registered in pyproject.toml)."""

LEFT_OUT = (*HEAVY, "slow")
"""What `--fast` deselects: the heavy parts, and `slow` (pure but long: hypothesis with many examples)."""

NEEDS: dict[str, tuple[str, ...]] = {
    "bwrap": (
        "tests/test_confine.py::*",
        "tests/test_batch.py::test_a_workspace_arm_by_bare_name_brings_its_ref_and_env",
        "tests/test_batch.py::test_confined_sim_batch_records_every_run_once",
        "tests/test_batch.py::test_failed_proof_refuses_to_start",
        "tests/test_batch.py::test_kill_9_then_resume_gives_one_valid_record_per_run",
        "tests/test_batch.py::test_quota_error_stops_launching_and_is_named",
        "tests/test_batch.py::test_sim_escape_is_refused_by_the_sandbox",
        "tests/test_batch.py::test_todo_resume_and_retry_invalid",
        "tests/test_canary.py::test_ad_hoc_script_run_is_scored_and_anonymized",
        "tests/test_canary.py::test_arm_builds_the_plugin_from_its_commit",
        "tests/test_canary.py::test_calls_after_the_moment_are_dropped_for_positives",
        "tests/test_canary.py::test_json_prints_only_the_record_and_appends_it",
        "tests/test_canary.py::test_no_output_is_invalid",
        "tests/test_canary_confined.py::test_canary_is_confined_by_default_and_proven_once",
        "tests/test_cli_errors.py::test_bad_input_is_one_line_with_the_documented_exit_code"
        "[canary: records device is full]",
        "tests/test_cli_errors.py::test_bad_input_is_one_line_with_the_documented_exit_code"
        "[canary: records file is a folder]",
        "tests/test_cli_errors.py::test_bad_input_is_one_line_with_the_documented_exit_code"
        "[postinstall: records file is a folder]",
        "tests/test_cli_errors.py::test_init_then_canary_in_the_new_workspace_records_the_run",
        "tests/test_postinstall.py::test_confined_live_run_cannot_edit_a_checkout_or_the_live_config",
        "tests/test_postinstall.py::test_live_run_uses_the_real_home_and_records_live_install",
        "tests/test_redteam_files.py::test_shadow_class_files_are_not_readable_inside",
        "tests/test_watcher.py::test_the_shell_write_is_attributed_to_its_call_on_sim",
        "tests/test_watcher.py::test_writes_inside_bubblewrap_are_seen_from_outside",
        "tests/test_redteam_login.py::test_login_cannot_be_changed_from_a_confined_run",
        "tests/test_redteam_net.py::test_outside_listener_is_unreachable",
        "tests/test_reliability_hostile.py::test_background_process_confined_dies_with_the_run",
        "tests/test_reliability_hostile.py::test_live_config_change_is_refused_when_confined",
        "tests/test_reliability_hostile.py::test_login_read_through_the_temp_home_is_refused_or_redacted",
        "tests/test_redteam_files.py::test_files_the_run_writes_belong_to_the_sandbox_uid",
        "tests/test_redteam_files.py::test_root_only_file_outside_the_masks_is_refused",
        "tests/test_effort.py::test_the_tui_canary_form_gives_the_same_answer",
        "tests/test_rescore.py::test_a_record_just_written_rescores_unchanged",
        "tests/test_rescore.py::test_a_read_after_the_moment_is_kept_though_its_call_is_not",
        "tests/test_control.py::test_two_scripts_are_never_paired_into_one_control_cell",
        "tests/test_rescore.py::test_failed_read_is_not_a_read",
        "tests/test_rescore.py::test_no_output_record_stays_no_output_everywhere",
        "tests/test_rescore.py::test_rescore_lists_changes_and_never_touches_input",
        "tests/test_reliability_process.py::test_records_disk_full_stops_the_batch_with_a_clear_error_and_no_torn_line",
        "tests/test_reliability_process.py::test_sim_killed_mid_stream_is_invalid_host_crashed",
        "tests/test_report.py::test_call_marks_come_from_the_scorer_and_the_record",
        "tests/test_report.py::test_evidence_conflicts_are_asked_of_the_scorer_and_shown",
        "tests/test_report.py::test_funnel_counts_each_stage_of_valid_positive_runs",
        "tests/test_report.py::test_invalid_runs_are_grouped_by_reason",
        "tests/test_report.py::test_page_names_file_hashes_and_escapes_agent_output",
        "tests/test_report.py::test_sibling_opened_instead_of_the_target_is_shown",
        "tests/test_schema_v2.py::test_the_schema_lists_every_field_a_written_record_carries",
        "tests/test_tui_records.py::test_a_record_appended_by_a_cli_canary_shows_up_without_a_reload",
        "tests/test_tui_real_hosts.py::test_the_first_runs_all_invalid_for_one_reason_stop_the_batch",
        "tests/test_selftest.py::test_a_wrong_expectation_is_a_mismatch",
        "tests/test_selftest.py::test_sim_is_all_green",
        "tests/test_summary.py::test_summary_counts_evidence_conflicts_per_cell",
        "tests/test_summary_ci.py::test_funnel_and_confusion_in_md_json_and_csv",
        "tests/test_summary_ci.py::test_gh_summary_marks_each_cell_and_names_sibling_wins",
        "tests/test_summary_ci.py::test_junit_is_valid_and_fails_cells_without_a_strict_majority",
        "tests/test_tui_draft.py::test_c_runs_the_unsaved_draft_in_the_runs_copy_only",
        "tests/test_control.py::test_two_scripts_are_never_paired_into_one_control_cell",
        "tests/test_tui_drafts_ask.py::test_an_invalid_run_shows_its_reason_never_a_verdict",
        "tests/test_tui_postinstall_abort.py::test_post_install_check_on_sim_streams_calls_into_the_pane",
        "tests/test_tui_tune.py::test_tune_screen_decides_what_the_cli_decides",
        "tests/test_export_inspect.py::*",
    ),
    "pty": (
        "tests/test_tui_e2e.py::*",
    ),
    "ray": (
        "tests/test_ray_executor.py::*",
    ),
}
"""Tests that need a heavy part no fixture or import shows (mostly a door run confined, the default), in files
where most tests do not (a whole file says `pytestmark = pytest.mark.bwrap` instead). A pattern is a nodeid with
`*` wildcards and no parameters, or one exact parametrized nodeid. The `--fast` sentinels name what to add."""

MODULE_NEEDS = {"browser_support": "browser", "pexpect": "pty", "ptyprocess": "pty", "ray": "ray",
                "workbench.runner.ray_executor": "ray"}
"""A test module that imports one of these (or a name from it) needs the part."""

SPAWN_STUBS = {"bwrap": "bwrap", "node": "hosts", "npm": "hosts", "npx": "hosts", "tmux": "pty",
               "chromium": "browser"}
"""Programs the fast subset must never start -> the mark a test that starts one is missing."""


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--fast", action="store_true",
                     help="leave out tests marked " + ", ".join(LEFT_OUT)
                          + " (and fail any unmarked test that reaches a heavy part)")


def _module_needs(module: ModuleType | None) -> set[str]:
    found: set[str] = set()
    for value in vars(module).values() if module is not None else ():
        name = value.__name__ if isinstance(value, ModuleType) else getattr(value, "__module__", None)
        if isinstance(name, str) and name in MODULE_NEEDS:
            found.add(MODULE_NEEDS[name])
    return found


def needs_of(item: pytest.Item) -> set[str]:
    """The heavy parts ITEM needs: its fixtures, its module's imports, the NEEDS list, its own marks."""
    needs = {m.name for m in item.iter_markers() if m.name in HEAVY}
    fixtures = set(getattr(item, "fixturenames", ()))
    callspec = getattr(item, "callspec", None)
    host = callspec.params.get("host", "sim") if callspec is not None else "sim"
    if "installed_hosts" in fixtures or ("hosts_dir" in fixtures and host != "sim"):
        needs.add("hosts")
    needs |= _module_needs(getattr(item, "module", None))
    bare = item.nodeid.split("[")[0]
    needs |= {part for part, patterns in NEEDS.items()
              if any(item.nodeid == p or fnmatch.fnmatchcase(bare, p) for p in patterns)}
    return needs


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    kept, dropped = [], []
    for item in items:
        needs = needs_of(item)
        for part in sorted(needs):
            item.add_marker(part)
        left_out = needs or any(item.iter_markers("slow"))
        (dropped if left_out and config.getoption("--fast") else kept).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


class Sentinels:
    """In `--fast` mode: stubs on PATH for SPAWN_STUBS (each logs its name and fails), and traps for a
    pty and a Ray import; `tripped()` says what the current test reached."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="wb-fast-"))
        self.log = self.root / "spawned.log"
        self.log.touch()
        stubs = self.root / "bin"
        stubs.mkdir()
        for program, part in SPAWN_STUBS.items():
            stub = stubs / program
            stub.write_text(f"#!/bin/sh\necho {program} >> '{self.log}'\n"
                            f"echo 'fast subset: a test not marked `{part}` started {program}; "
                            f"mark it (tests/conftest.py NEEDS)' >&2\nexit 97\n", encoding="utf-8")
            stub.chmod(0o755)
        original = os.environ.setdefault("WORKBENCH_FAST_ORIGINAL_PATH", os.environ.get("PATH", ""))
        os.environ["PATH"] = f"{stubs}{os.pathsep}{original}"
        os.environ["WORKBENCH_HOSTS_DIR"] = str(self.root / "no-hosts")
        self.ptys: list[str] = []
        for owner, name in ((os, "openpty"), (os, "forkpty"), (pty, "fork"), (pty, "openpty")):
            setattr(owner, name, self._trap(name))

    def _trap(self, name: str) -> Any:
        def trapped(*_: object, **__: object) -> Any:
            self.ptys.append(name)
            raise RuntimeError(f"fast subset: a test not marked `pty` called {name}(); mark it (tests/conftest.py NEEDS)")
        return trapped

    def mark(self) -> tuple[int, bool]:
        return self.log.stat().st_size, "ray" in sys.modules

    def tripped(self, since: tuple[int, bool]) -> list[str]:
        size, had_ray = since
        with self.log.open(encoding="utf-8") as f:
            f.seek(size)
            spawned = sorted(set(f.read().split()))
        found = [f"{SPAWN_STUBS[p]} (started {p})" for p in spawned] + [f"pty ({p})" for p in self.ptys]
        self.ptys.clear()
        if "ray" in sys.modules and not had_ray:
            found.append("ray (imported ray)")
        return found


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--fast"):
        config.stash[SENTINELS] = Sentinels()


def pytest_unconfigure(config: pytest.Config) -> None:
    sentinels = config.stash.get(SENTINELS, None)
    if sentinels is not None:
        shutil.rmtree(sentinels.root, ignore_errors=True)


SENTINELS = pytest.StashKey[Sentinels]()


SINCE = pytest.StashKey[tuple[int, bool]]()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    sentinels = item.config.stash.get(SENTINELS, None)
    if sentinels is not None:
        item.stash[SINCE] = sentinels.mark()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """Under `--fast`, a test that reached a heavy part (setup or call; teardown too) FAILS, naming its mark."""
    report: pytest.TestReport = yield
    sentinels = item.config.stash.get(SENTINELS, None)
    if sentinels is None or call.when == "setup" or SINCE not in item.stash:
        return report
    reached = sentinels.tripped(item.stash[SINCE])
    item.stash[SINCE] = sentinels.mark()
    if reached:
        report.outcome = "failed"
        report.longrepr = (f"{item.nodeid} is in the fast subset but needs: {', '.join(reached)}; "
                           "mark it (tests/conftest.py NEEDS, or pytestmark in its module)")
    return report


@contextlib.contextmanager
def machine_lock(path: Path) -> Iterator[None]:
    """An exclusive lock on PATH across processes (xdist workers, parallel sessions)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def installed_hosts() -> Path:
    """Install the pinned CLIs once per session unless every one is there and runs; return the install dir.

    The lock sits beside the resolved folder: worktrees that link one install share one lock."""
    from workbench.core.hostinfo import NPM_HOSTS
    from workbench.hosts.install import status

    with machine_lock(HOSTS_CACHE.resolve().parent / "hosts.lock"):
        ready = all((s := status(h, HOSTS_CACHE)).usable and s.installed == s.pinned for h in NPM_HOSTS)
        code = 0 if ready else main(["hosts", "install", "--dir", str(HOSTS_CACHE)])
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
