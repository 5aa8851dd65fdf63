"""The snapshot guard on real git checkouts: what it must see, and the workbench writes it must not."""

from __future__ import annotations

from pathlib import Path

import pytest
from batch_support import commit_all, make_world

from workbench.runner.batch import BatchAborted, run_folder, self_check_cleanup, self_check_guard
from workbench.runner.guard import FEW, Guard


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


LAYOUTS = {"pattern": (".venv/*\n", lambda i: f".venv/m{i}.py"), "flat": (".venv/\n", lambda i: f".venv/m{i}.py"),
           "scattered": ("*.pyc\n", lambda i: f"src/p{i % 3}/m{i}.pyc")}
"""Ignored files (more than guard.FEW to a folder) that git lists one by one (pattern, scattered) or
as one folder (flat)."""


def _layout(tmp: Path, layout: str) -> tuple[Guard, Path]:
    import subprocess

    guard, ws, _ = _guard(tmp)
    ignore, path_of = LAYOUTS[layout]
    (ws / ".gitignore").write_text(ignore)
    for i in range(3 * (FEW + 10)):
        (ws / path_of(i)).parent.mkdir(parents=True, exist_ok=True)
        (ws / path_of(i)).write_text("x = 1\n")
    (ws / "src" / "p0" / "kept.py").parent.mkdir(parents=True, exist_ok=True)
    (ws / "src" / "p0" / "kept.py").write_text("tracked = 1\n")  # a folder that holds a tracked file too
    subprocess.run(["git", "add", "."], cwd=ws, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "layout"], cwd=ws, check=True)
    return guard, ws


@pytest.mark.parametrize("change", ["none", "new-beside-ignored", "ignored-removed", "tracked-beside-ignored",
                                    "folder-removed"])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_many_ignored_files_are_stamped_by_their_folder_yet_changes_show(tmp_path: Path, layout: str,
                                                                        change: str) -> None:
    """A folder of many ignored files is one entry, and a later snapshot does not walk it; an entry
    added or removed in it, or an edit of a tracked file beside ignored ones, still shows."""
    guard, ws = _layout(tmp_path, layout)
    before = guard.snapshot()
    entries = before.checkouts[str(ws)].entries
    assert len([k for k in entries if k.startswith("!!")]) < 10, sorted(entries)  # grouped, not one per file
    assert guard.changes(before) == []  # a snapshot that skips the walk agrees with the one that learned
    folder = ws / LAYOUTS[layout][1](1)
    if change == "new-beside-ignored":
        (folder.parent / "evil.py").write_text("import os\n")
    elif change == "ignored-removed":
        folder.unlink()
    elif change == "tracked-beside-ignored":
        (ws / "src" / "p0" / "kept.py").write_text("tracked = 2\n")
    elif change == "folder-removed":
        import shutil
        shutil.rmtree(folder.parent)
    assert bool(guard.changes(before)) == (change != "none"), change


@pytest.mark.parametrize("change", ["new-pth", "edited-pth", "sitecustomize", "new-package", "pyvenv"])
@pytest.mark.parametrize("ignore", [".venv/\n", ".venv/*\n", ".venv/**\n"])
def test_a_planted_startup_hook_in_an_ignored_venv_shows(tmp_path: Path, ignore: str, change: str) -> None:
    """What makes Python run code at startup in a real venv (a `.pth` file, sitecustomize, a new
    package, pyvenv.cfg) is watched though the venv is ignored and not walked."""
    import subprocess
    import sys

    guard, ws, _ = _guard(tmp_path)
    (ws / ".gitignore").write_text(ignore)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(ws / ".venv")], check=True)
    [site] = (ws / ".venv" / "lib").glob("python*/site-packages")
    (site / "existing.pth").write_text("import sys\n")
    subprocess.run(["git", "add", ".gitignore"], cwd=ws, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "venv"], cwd=ws, check=True)
    before = guard.snapshot()
    assert guard.changes(before) == []
    if change == "new-pth":
        (site / "evil.pth").write_text("import os; os.system('id')\n")
    elif change == "edited-pth":
        with (site / "existing.pth").open("a") as f:  # in place: the folder's mtime does not move
            f.write("import os; os.system('id')\n")
    elif change == "sitecustomize":
        (site / "sitecustomize.py").write_text("import os\n")
    elif change == "new-package":
        (site / "evil").mkdir()
    else:
        with (ws / ".venv" / "pyvenv.cfg").open("a") as f:
            f.write("include-system-site-packages = true\n")
    assert guard.changes(before), change
