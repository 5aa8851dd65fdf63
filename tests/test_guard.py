"""The snapshot guard on real git checkouts: what it must see, and the workbench writes it must not."""

from __future__ import annotations

from pathlib import Path

import pytest
from batch_support import commit_all, make_world

from workbench.runner.batch import BatchAborted, run_folder, self_check_cleanup, self_check_guard
from workbench.runner.guard import Guard


def _guard(tmp: Path) -> tuple[Guard, Path, Path]:
    w = make_world(tmp)
    return Guard.for_home(w.home, [w.ws / "plugin"], own=[w.record]), w.ws, w.home


def test_clean_checkout_has_no_changes(tmp_path: Path) -> None:
    guard, ws, _ = _guard(tmp_path)
    assert guard.checkouts == [ws]  # the plugin folder's repo root is what is guarded
    assert guard.changes(guard.snapshot()) == []


@pytest.mark.parametrize("change", ["ignored", "untracked", "tracked", "second-edit", "head", "config", "skill"])
def test_guard_sees_every_kind_of_change(tmp_path: Path, change: str) -> None:
    guard, ws, home = _guard(tmp_path)
    if change == "second-edit":
        (ws / "tracked.txt").write_text("first edit\n")
    before = guard.snapshot()
    if change == "ignored":
        (ws / "debug.log").write_text("x")
    elif change == "untracked":
        (ws / "plugin" / "new.md").write_text("x")
    elif change in ("tracked", "second-edit"):
        (ws / "tracked.txt").write_text("edited again\n")
    elif change == "head":
        (ws / "tracked.txt").write_text("committed\n")
        commit_all(ws, "an escaped commit")
    elif change == "config":
        (home / ".claude" / "settings.json").write_text('{"x": 1}\n')
    else:
        (home / ".claude" / "skills" / "evil").mkdir(parents=True)
        (home / ".claude" / "skills" / "evil" / "SKILL.md").write_text("x")
    assert guard.changes(before), change


def test_own_writes_do_not_trip_it(tmp_path: Path) -> None:
    guard, ws, _ = _guard(tmp_path)
    before = guard.snapshot()
    record = ws / "records" / "batch.jsonl"
    record.parent.mkdir()
    record.write_text("{}\n")
    (ws / "plugin" / "__pycache__").mkdir()
    (ws / "plugin" / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"\0")
    assert guard.changes(before) == []
    (ws / "records" / "other.jsonl").write_text("{}\n")  # not the workbench's own file: seen
    assert guard.changes(before) == [f"{ws}: new !! records/other.jsonl"]


def test_self_checks_pass_and_leave_nothing(tmp_path: Path) -> None:
    self_check_guard(tmp_path)
    self_check_cleanup(tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_cleanup_self_check_catches_a_leftover(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """If run folders were not removed on failure, the self-check must say so."""
    import contextlib
    import tempfile

    import workbench.runner.batch as batch

    @contextlib.contextmanager
    def leaky(root: Path, prefix: str = "run-"):  # type: ignore[no-untyped-def]
        yield Path(tempfile.mkdtemp(prefix=prefix, dir=root))

    monkeypatch.setattr(batch, "run_folder", leaky)
    with pytest.raises(BatchAborted, match="left"):
        batch.self_check_cleanup(tmp_path)


def test_run_folder_is_removed_on_failure_links_included(tmp_path: Path) -> None:
    target = tmp_path / "target"
    target.mkdir()
    (target / "keep.txt").write_text("keep")
    with pytest.raises(RuntimeError), run_folder(tmp_path) as rd:
        (rd / "link").symlink_to(target)
        raise RuntimeError("setup failed")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["target"]
    assert (target / "keep.txt").read_text() == "keep"  # the link was removed, not followed


@pytest.mark.parametrize("change", ["tracked", "new-in-ignored-folder", "new-ignored-file", "ignored-folder-removed"])
def test_guard_with_a_big_ignored_folder_still_sees_what_matters(tmp_path: Path, change: str) -> None:
    """The ignored folder is one stamped entry (no walk of its files), yet a change that matters shows."""
    guard, ws, _ = _guard(tmp_path)
    venv = ws / ".venv"
    (ws / ".gitignore").write_text((ws / ".gitignore").read_text() + "\n.venv/\n*.log\n"
                                   if (ws / ".gitignore").exists() else ".venv/\n*.log\n")
    for i in range(300):
        (venv / "lib" / f"p{i % 7}").mkdir(parents=True, exist_ok=True)
        (venv / "lib" / f"p{i % 7}" / f"m{i}.py").write_text("x = 1\n")
    import subprocess
    subprocess.run(["git", "add", ".gitignore"], cwd=ws, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "ignore"], cwd=ws, check=True)
    before = guard.snapshot()
    assert not any(".venv/lib" in k for k in before.checkouts[str(ws)].entries)  # not walked
    if change == "tracked":
        (ws / ".gitignore").write_text("changed\n")
    elif change == "new-in-ignored-folder":
        (venv / "sitecustomize.py").write_text("import os\n")
    elif change == "new-ignored-file":
        (ws / "debug.log").write_text("x\n")
    else:
        import shutil
        shutil.rmtree(venv)
    assert guard.changes(before), change
