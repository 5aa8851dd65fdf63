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
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import settings

from workbench.cli import main

settings.register_profile("workbench", deadline=None)
settings.register_profile("workbench-fast", deadline=None, max_examples=20)
"""`--fast`: property tests keep running, on fewer examples (`make test` runs hypothesis' 100)."""
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
        "tests/test_rescore.py::test_listing_reads_a_view_that_judges_as_the_whole_record",
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
        "tests/test_tui_records_new_files.py::*",
        "tests/test_tui_snapshots_more.py::test_an_invalid_runs_card",
        "tests/test_tui_batch_form.py::test_abort_during_start_up_stops_before_any_run",
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
        "tests/test_tui_drafts_ask.py::test_a_draft_saved_after_its_canary_is_no_longer_called_unsaved",
        "tests/test_tui_postinstall_abort.py::test_post_install_check_on_sim_streams_calls_into_the_pane",
        "tests/test_tui_tune.py::test_tune_screen_decides_what_the_cli_decides",
        "tests/test_export_inspect.py::*",
        "tests/test_tui_whole_lines.py::test_rows_canary_postinstall_and_tune_lines_are_whole_at_80x24",
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

SLOW: tuple[str, ...] = (
    "tests/test_redact_transforms.py::test_a_stream_too_big_to_inflate_is_replaced_whole_never_passed",
    "tests/test_arms.py::test_batch_arms_name_a_workspace_arm_and_summary_shows_names_with_short_shas",
    "tests/test_authoring_ids.py::test_inserted_row_keeps_ids_and_renamed_row_fails_its_case_loudly",
    "tests/test_authoring_ids.py::test_marketplace_ids_are_namespaced_and_survive_edits_of_other_rows",
    "tests/test_authoring_reach.py::test_unindexed_finds_the_orphans_of_a_marketplace",
    "tests/test_batch.py::test_cli_refuses_a_case_whose_moment_is_impossible",
    "tests/test_batch.py::test_cli_refuses_without_bwrap_unless_unconfined",
    "tests/test_batch.py::test_unconfined_escape_stops_the_batch_by_the_guard[edit a guarded checkout]",
    "tests/test_batch.py::test_unconfined_escape_stops_the_batch_by_the_guard[write outside the repo]",
    "tests/test_cli_errors.py::test_bad_input_is_one_line_with_the_documented_exit_code[arm: unknown row]",
    "tests/test_cli_errors.py::test_bad_input_is_one_line_with_the_documented_exit_code"
    "[audit: workspace names a list field wrongly]",
    "tests/test_cli_errors.py::test_bad_input_is_one_line_with_the_documented_exit_code[batch: missing checkout to guard]",
    "tests/test_cli_errors.py::test_bad_input_is_one_line_with_the_documented_exit_code"
    "[canary: a delegating script on a host that cannot delegate]",
    "tests/test_cli_errors.py::test_bad_input_is_one_line_with_the_documented_exit_code[canary: missing script]",
    "tests/test_cli_errors.py::test_bad_input_is_one_line_with_the_documented_exit_code[case: missing records file]",
    "tests/test_cli_errors.py::test_bad_input_is_one_line_with_the_documented_exit_code[hosts: no binary under --dir]",
    "tests/test_cli_errors.py::test_bad_input_is_one_line_with_the_documented_exit_code[init: missing folder]",
    "tests/test_cli_errors.py::test_bad_input_is_one_line_with_the_documented_exit_code[lint: plugin folder missing]",
    "tests/test_cli_errors.py::test_bad_input_is_one_line_with_the_documented_exit_code[rescore: not UTF-8 mid-file]",
    "tests/test_cli_errors.py::test_bad_input_is_one_line_with_the_documented_exit_code[rows: truncated workspace TOML]",
    "tests/test_cli_errors.py::test_bad_input_is_one_line_with_the_documented_exit_code[schema: unknown name]",
    "tests/test_cli_errors.py::test_bad_input_is_one_line_with_the_documented_exit_code[score: stream is a folder]",
    "tests/test_cli_errors.py::test_bad_input_is_one_line_with_the_documented_exit_code[score: unknown host (argparse)]",
    "tests/test_cli_errors.py::test_bad_input_is_one_line_with_the_documented_exit_code[selftest: unknown scenario]",
    "tests/test_cli_errors.py::test_bad_input_is_one_line_with_the_documented_exit_code[summary: missing file]",
    "tests/test_cli_errors.py::test_debug_before_the_command_and_from_the_environment",
    "tests/test_control.py::test_control_arm_commit_and_per_case_verdicts",
    "tests/test_decide_batch.py::test_a_fixed_batch_records_its_rule",
    "tests/test_decide_batch.py::test_base_vs_base_runs_to_max_without_deciding",
    "tests/test_decide_batch.py::test_cli_refuses_until_decided_without_max_runs_or_with_one_arm",
    "tests/test_decide_batch.py::test_forecast_before_launch_and_a_token_budget_stops_with_whole_records",
    "tests/test_decide_batch.py::test_weak_vs_shipped_stops_early_and_resume_continues",
    "tests/test_doors.py::test_batch_cli_and_tui_give_the_same_config",
    "tests/test_doors.py::test_canary_cli_and_tui_give_the_same_request",
    "tests/test_doors.py::test_every_batch_door_stops_early_when_the_first_runs_all_fail_alike",
    "tests/test_doors.py::test_postinstall_cli_and_tui_give_the_same_request",
    "tests/test_doors_imports.py::test_host_names_are_listed_only_by_the_registry",
    "tests/test_effort.py::test_an_effort_the_host_cannot_take_is_refused_on_every_door"
    "[codex-bogus-codex takes minimal | low | medium | high | xhigh, not 'bogus']",
    "tests/test_effort.py::test_an_effort_the_host_cannot_take_is_refused_on_every_door"
    "[gemini-high-gemini takes no reasoning effort]",
    "tests/test_effort.py::test_an_effort_the_host_cannot_take_is_refused_on_every_door"
    "[grok-high-grok takes no reasoning effort]",
    "tests/test_effort.py::test_an_effort_the_host_cannot_take_is_refused_on_every_door"
    "[opencode-high-opencode takes no reasoning effort]",
    "tests/test_fast_subset.py::test_fast_fails_an_unmarked_test_that_starts_bwrap_and_leaves_out_a_marked_one",
    "tests/test_hosts_process.py::test_silence_timeout_kills_the_whole_group",
    "tests/test_hosts_process.py::test_term_ignored_then_killed",
    "tests/test_hosts_process.py::test_total_timeout_while_talking",
    "tests/test_offered_sim.py::test_a_sim_run_records_the_row_it_offered_and_its_listing_holds_the_description",
    "tests/test_listing_gates.py::test_the_tui_canary_form_gets_the_same_refusal",
    "tests/test_postinstall.py::test_guard_catches_an_unconfined_live_config_change",
    "tests/test_postinstall.py::test_guard_catches_an_unconfined_live_run_editing_a_checkout",
    "tests/test_postinstall_uid.py::test_control_an_unconfined_postinstall_reads_the_root_only_file",
    "tests/test_redteam_flood.py::test_a_flood_of_short_junk_lines_is_counted_not_kept",
    "tests/test_redteam_net.py::test_unconfined_control_reaches_the_listener",
    "tests/test_reliability_input.py::test_a_50_mb_line_is_cut_while_reading_and_memory_stays_bounded",
    "tests/test_reliability_input.py::test_bad_input_is_one_line_exit_2_and_nothing_written[case: binary garbage]",
    "tests/test_reliability_input.py::test_bad_input_is_one_line_exit_2_and_nothing_written"
    "[case: invalid regex in the moment]",
    "tests/test_reliability_input.py::test_bad_input_is_one_line_exit_2_and_nothing_written[case: truncated TOML]",
    "tests/test_reliability_input.py::test_bad_input_is_one_line_exit_2_and_nothing_written[case: unknown kind]",
    "tests/test_reliability_input.py::test_bad_input_is_one_line_exit_2_and_nothing_written[case: wrong type]",
    "tests/test_reliability_input.py::test_bad_input_is_one_line_exit_2_and_nothing_written[missing host binary]",
    "tests/test_reliability_input.py::test_bad_input_is_one_line_exit_2_and_nothing_written"
    "[plugin repo that is not a git repo]",
    "tests/test_reliability_input.py::test_bad_input_is_one_line_exit_2_and_nothing_written[ref that does not exist]",
    "tests/test_reliability_input.py::test_bad_input_is_one_line_exit_2_and_nothing_written[script JSON: truncated]",
    "tests/test_reliability_input.py::test_bad_input_is_one_line_exit_2_and_nothing_written[script JSON: wrong type]",
    "tests/test_reliability_input.py::test_bad_input_is_one_line_exit_2_and_nothing_written[script TOML: wrong type]",
    "tests/test_reliability_input.py::test_bad_input_is_one_line_exit_2_and_nothing_written[unknown host]",
    "tests/test_reliability_process.py::test_sim_hanging_command_is_stopped_by_the_silence_watchdog",
    "tests/test_script_identity.py::test_a_new_script_runs_the_whole_plan_again_and_tables_split",
    "tests/test_script_identity.py::test_older_scripted_records_migrate_with_the_script_unknown",
    "tests/test_script_identity.py::test_rescore_changes_nothing_on_written_records",
    "tests/test_script_identity.py::test_scripted_runs_are_priced_at_zero",
    "tests/test_script_identity.py::test_summary_and_report_titles_name_each_script",
    "tests/test_sim_offline.py::test_sim_canary_without_node_or_network",
    "tests/test_sim_policy.py::test_before_clause_read_more_often_than_state_or_bare_and",
    "tests/test_sim_process.py::test_writes_only_inside_the_repo",
    "tests/test_tiers.py::test_batch_tier_decide_on_base_vs_base_records_the_tier",
    "tests/test_tui_arm_name.py::test_an_invalid_arm_name_is_refused_in_the_dialog_without_a_cli_flag",
    "tests/test_tui_authoring.py::test_edit_lints_as_you_type_and_save_creates_an_arm",
    "tests/test_tui_authoring.py::test_promote_runs_a_batch_with_progress_and_results",
    "tests/test_tui_batch_decide.py::test_until_decided_form_shows_the_forecast_then_runs_with_the_rule",
    "tests/test_tui_batch_form.py::test_a_plan_above_the_threshold_asks_before_it_starts",
    "tests/test_tui_bounds.py::test_the_form_shows_the_caps_and_refuses_numbers_outside_them",
    "tests/test_tui_batch_form.py::test_runs_typed_as_a_fraction_or_exponent_is_refused_naming_the_field",
    "tests/test_tui_batch_numbers.py::test_raising_runs_shows_the_files_totals_for_the_plan",
    "tests/test_tui_callpane.py::test_a_burst_beyond_the_cap_keeps_the_newest_cards_and_counts_the_rest",
    "tests/test_tui_diff.py::test_d_shows_the_draft_word_diff_with_markers_not_colour_only",
    "tests/test_tui_draft.py::test_b_on_a_row_without_an_arm_says_so",
    "tests/test_tui_draft.py::test_q_asks_before_throwing_drafts_away",
    "tests/test_tui_draft.py::test_saving_warns_about_a_dangling_link_and_refuses_a_taken_name",
    "tests/test_tui_drafts_ask.py::test_c_asks_before_running_a_dangling_draft",
    "tests/test_tui_drafts_ask.py::test_ctrl_z_asks_before_dropping_a_draft",
    "tests/test_tui_editor.py::test_no_editor_set_or_no_terminal_to_hand_over_is_said_not_crashed",
    "tests/test_tui_effort.py::test_a_level_the_new_host_does_not_take_goes_back_to_the_default",
    "tests/test_tui_effort.py::test_each_host_is_offered_exactly_what_its_cli_takes",
    "tests/test_tui_effort.py::test_tune_screen_offers_exactly_what_the_tune_door_takes",
    "tests/test_tui_batch_form.py::test_one_estimate_the_clis_forecast_and_a_scripted_plan_costs_nothing",
    "tests/test_tui_glyphs.py::test_checked_and_unchecked_boxes_render_different_glyphs",
    "tests/test_tui_postinstall_abort.py::test_batch_abort_keeps_the_finished_records_and_stops_the_run_in_flight",
    "tests/test_tui_records.py::test_filter_then_enter_opens_the_runs_calls",
    "tests/test_tui_batch_form.py::test_switching_the_script_runs_the_new_plan_and_the_same_one_again_runs_nothing",
    "tests/test_tui_batch_form.py::test_at_80x24_the_results_show_the_interval_and_the_script_stays_on_one_line",
    "tests/test_tui_report_focus.py::test_h_writes_the_report_the_cli_writes",
    "tests/test_tui_row_search.py::test_a_search_keeps_the_cursor_on_its_row_and_the_drafts",
    "tests/test_tui_row_search.py::test_search_filters_rows_as_the_cli_does_and_typing_never_acts",
    "tests/test_tui_script_split.py::test_compare_and_records_split_by_script",
    "tests/test_tui_script_migrate.py::*",
    "tests/test_tui_whole_lines.py::*",
    "tests/test_tui_sessions.py::test_sessions_screen_shows_rows_beside_the_lab",
    "tests/test_tui_snapshots.py::test_every_screen[120x40]",
    "tests/test_tui_snapshots.py::test_every_screen[200x50]",
    "tests/test_tui_snapshots.py::test_every_screen[80x24]",
    "tests/test_tui_snapshots_more.py::*",
    "tests/test_tui_diff.py::test_d_on_a_row_with_an_arm_diffs_the_arms_wording_against_the_baseline",
    "tests/test_tui_tune.py::test_bad_form_is_one_line_naming_the_field",
    "tests/test_tui_tune.py::test_tune_screen_snapshots[120x40]",
    "tests/test_tui_tune.py::test_tune_screen_snapshots[200x50]",
    "tests/test_tui_tune.py::test_tune_screen_snapshots[80x24]",
    "tests/test_tui_worker_errors.py::test_a_worker_exception_is_one_error_line_not_a_crash",
)
"""Pure tests `--fast` leaves out for their length alone: each took 1 s or more (its call) on a quiet
2-core machine in `pytest --fast -n 2 --durations=0`, mostly sim batches and canaries through a door,
Pilot-driven screens and CLI subprocesses. Same patterns as NEEDS; `make test` runs them."""

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
    needs |= {part for part, patterns in NEEDS.items() if listed(item, patterns)}
    return needs


def listed(item: pytest.Item, patterns: tuple[str, ...]) -> bool:
    """ITEM matches one of PATTERNS (its exact nodeid, or a `*` pattern of its unparametrized nodeid)."""
    bare = item.nodeid.split("[")[0]
    return any(item.nodeid == p or fnmatch.fnmatchcase(bare, p) for p in patterns)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    kept, dropped = [], []
    for item in items:
        needs = needs_of(item)
        for part in sorted(needs):
            item.add_marker(part)
        if listed(item, SLOW):
            item.add_marker("slow")
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
        settings.load_profile("workbench-fast")


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


@pytest.fixture
def root_only() -> Iterator[tuple[Path, str]]:
    """For root-started runs: a root-owned mode-0600 file under no mask and outside /tmp (visible inside), and
    its content."""
    folder = Path("/var/tmp") / f"wb-root-only-{uuid.uuid4().hex[:8]}"
    folder.mkdir(mode=0o755)
    key, text = folder / "service.key", f"root-only-{uuid.uuid4().hex}"
    key.write_text(text + "\n", encoding="utf-8")
    os.chmod(key, 0o600)
    yield key, text
    key.unlink()
    folder.rmdir()


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
