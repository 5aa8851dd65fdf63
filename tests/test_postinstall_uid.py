"""Post-install as the sandbox uid (root outside): the live host is an unprivileged uid like every other
door. A hostile scripted model tries to copy a root-only file under no mask, into its repo and into a
writable live folder; judged from outside (the repo copied out after the run, the live home, the record),
nothing of it arrives. The live config is handed in as the sandbox uid's copies; what the host writes into
a writable copy reaches the live home after the run, never through a link, never a login."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from batch_support import World, make_world
from redteam_support import capturing, everything_written, shell_script

from workbench.core.cases import find_case
from workbench.core.records import append_record
from workbench.hosts.install import find_binary
from workbench.modelstub import parse_script
from workbench.runner.confine import SANDBOX_UID, Confinement, live_copy, write_back
from workbench.runner.execute import execute
from workbench.runner.hostrun import HostRun, run_host
from workbench.runner.proof import prove
from workbench.runner.request import build_request, confinement_for

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the unprivileged sandbox uid is for root-started runs")


def postinstall(w: World, host: str, installed: Path | None, script: dict[str, Any], into: Path, owners: list[int],
                unconfined: bool = False) -> str:
    """SCRIPT once through the post-install door on HOST; the repo is copied to INTO after the run and the
    owner of the file the run wrote is noted in OWNERS. Returns the records file's text."""
    def owner(host: str, prompt: str, repo: Path, run_dir: Path, **kw: Any) -> HostRun:
        run = run_host(host, prompt, repo, run_dir, **kw)
        if (repo / "stolen.txt").exists():
            owners.append((repo / "stolen.txt").stat().st_uid)
        return run

    binary = find_binary(host, installed) if installed is not None else None
    if host == "claude":  # the worst live user: Bash allowed without asking
        (w.home / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"allow": ["Bash"]}}))
    req = build_request(find_case("docs-readme-section", w.ws / "cases"), host, door="postinstall",
                        plugin=w.ws / "plugin", script=parse_script(script), fixture=w.ws / "fixtures" / "base",
                        home=w.home, checkouts=[w.ws], guarded=[w.ws], binary=binary, timeout=240,
                        unconfined=unconfined)
    assert (req.confinement is None) == unconfined
    append_record(w.record, execute(req, run_host_fn=capturing(into, owner)).record)
    return w.record.read_text()


@pytest.mark.bwrap
@pytest.mark.parametrize("host", ["sim", "claude"])
def test_a_postinstall_run_is_refused_a_root_only_file_outside_the_masks(
        tmp_path: Path, host: str, hosts_dir: Path | None, root_only: tuple[Path, str]) -> None:
    key, text = root_only
    w = make_world(tmp_path)
    projects = w.home / ".claude" / "projects"  # a live folder Claude writes (bound writable)
    attack = (f"cat {key} >> stolen.txt; cp {key} key.copy; cp {key} {projects}/key.copy; "
              "echo attacked >> stolen.txt")
    into, owners = tmp_path / "left", list[int]()
    text_written = postinstall(w, host, hosts_dir, shell_script(attack), into, owners)
    assert "attacked" in (into / "repo" / "stolen.txt").read_text()  # the attack ran
    assert owners == [SANDBOX_UID]  # judged from outside: the live host ran as the sandbox uid
    seen = everything_written(into) + text_written
    assert text not in seen and not (into / "repo" / "key.copy").exists()
    assert not (projects / "key.copy").exists()


def test_control_an_unconfined_postinstall_reads_the_root_only_file(tmp_path: Path,
                                                                    root_only: tuple[Path, str]) -> None:
    key, text = root_only
    w = make_world(tmp_path)
    into, owners = tmp_path / "left", list[int]()
    postinstall(w, "sim", None, shell_script(f"cat {key} >> stolen.txt"), into, owners, unconfined=True)
    assert text in (into / "repo" / "stolen.txt").read_text() and owners == [0]


@pytest.mark.bwrap
def test_the_postinstall_proof_checks_the_root_only_file(tmp_path: Path) -> None:
    w = make_world(tmp_path)
    conf = confinement_for("postinstall", home=w.home, checkouts=[w.ws], host="claude", plugin=w.ws / "plugin")
    assert conf is not None and conf.live and conf.run_as == SANDBOX_UID
    (tmp_path / "proof").mkdir()
    results = {r.name: r.passed for r in prove(conf, tmp_path / "proof", {"PATH": os.environ["PATH"]})}
    assert results["read a root-only file outside the masks"] is True, results


def test_write_back_takes_new_and_changed_files_never_a_link_or_a_login(tmp_path: Path) -> None:
    live = tmp_path / "home" / ".tool"
    live.mkdir(parents=True)
    (live / "kept.txt").write_text("kept\n")
    (live / "login.json").write_text("{}\n")
    outside = tmp_path / "outside.txt"
    outside.write_text("outside\n")
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    copy = live_copy(live, run_dir, SANDBOX_UID, writable=True)
    assert copy.stat().st_uid == SANDBOX_UID and (copy / "kept.txt").stat().st_uid == SANDBOX_UID
    (copy / "new").mkdir()
    (copy / "new" / "log.jsonl").write_text("written\n")
    (copy / "login.json").write_text('{"token": "refreshed"}\n')
    (copy / "link.txt").symlink_to(outside)
    (live / "via").symlink_to(tmp_path)  # a link in the live folder is never written through
    (copy / "via").mkdir()
    (copy / "via" / "outside.txt").write_text("through a link\n")
    written = write_back(run_dir, never=[live / "login.json"])
    assert written == [live / "new" / "log.jsonl"]
    assert (live / "new" / "log.jsonl").read_text() == "written\n" and (live / "new" / "log.jsonl").stat().st_uid == 0
    assert (live / "login.json").read_text() == "{}\n" and not (live / "link.txt").exists()
    assert outside.read_text() == "outside\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home", "outside.txt", "run"]


def test_a_live_copy_lets_the_sandbox_uid_read_what_only_the_caller_could(tmp_path: Path) -> None:
    live = tmp_path / "home" / ".claude"
    (live / "projects").mkdir(parents=True)
    (live / "projects" / "old.jsonl").write_text("history\n")
    (live / "settings.json").write_text("{}\n")
    os.chmod(live / "settings.json", 0o600)
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    copy = live_copy(live, run_dir, SANDBOX_UID, skip=[live / "projects"])
    assert (copy / "settings.json").stat().st_uid == SANDBOX_UID
    assert (copy / "projects").is_dir() and not any((copy / "projects").iterdir())  # a mount point only
    assert Confinement(tmp_path / "home", live=True).run_as == SANDBOX_UID
