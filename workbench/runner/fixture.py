"""The throwaway git repo one run works in: base content, the case's extra files, and its branches.

Every run gets a fresh repo so no run sees another's edits. The base content (a fixture folder)
plus the case's `extra_files` are committed on `main`; each of the case's branches is then made
from `main` with exactly one real commit of its files. HEAD ends on the last branch listed (a
mid-task case is "on" its work branch), or on `main` when there are none.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Mapping
from pathlib import Path

import git

from workbench.core.errors import InputError
from workbench.core.models import Case

IDENTITY = {"name": "workbench", "email": "workbench@localhost"}
"""The author of fixture commits; hosts that commit use their own or the run's git identity."""


def _safe_path(root: Path, rel: str, field: str) -> Path:
    """ROOT/REL, refusing absolute paths and `..` escapes (a case must not write outside its repo)."""
    target = (root / rel).resolve()
    if Path(rel).is_absolute() or not target.is_relative_to(root.resolve()):
        raise InputError(f"file path {rel!r} leaves the repo", field=field)
    return target


def _write(root: Path, files: Mapping[str, str], field: str) -> list[str]:
    written = []
    for rel, text in files.items():
        path = _safe_path(root, rel, field)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.lstrip("\n"), encoding="utf-8")
        written.append(rel)
    return written


def _commit(repo: git.Repo, message: str) -> None:
    actor = git.Actor(IDENTITY["name"], IDENTITY["email"])
    repo.git.add(A=True)
    repo.index.commit(message, author=actor, committer=actor)


_BRANCH_WORD = re.compile(r"(?<![\w./-])((?:feature|feat|fix|bugfix|hotfix|release|topic|chore|wip)/[\w.-]*[\w-])")


def check_possible(case: Case) -> None:
    """Refuse a case whose moment its fixture makes impossible, before any run is spent on it.

    A branch the prompt names must exist and carry a commit (with nothing to merge or open a PR
    from, a careful agent rightly stops: a published sweep lost its delivery runs that way); a
    `merge` moment needs a branch to merge.
    """
    branches = {b.name for b in case.branches}
    for name in _BRANCH_WORD.findall(case.prompt):
        if name not in branches:
            raise InputError(f"the prompt names branch {name!r} but the fixture has no such branch "
                             "(add it under [[branches]] with the files of its commit)", field="branches")
    if "merge" in [alt.strip() for alt in case.moment.split(",")] and not branches:
        raise InputError("moment 'merge' needs a branch to merge: the fixture has none", field="moment")


def make_fixture(dest: Path, case: Case | None = None, base: Path | None = None,
                 files: Mapping[str, str] | None = None) -> git.Repo:
    """Create DEST as a git repo: BASE folder (or FILES) + the case's extra files on `main`, then branches."""
    if case is not None:
        check_possible(case)
    if dest.exists() and any(dest.iterdir()):
        raise InputError(f"fixture destination is not empty: {dest}", field="fixture")
    if base is not None:
        if not base.is_dir():
            raise InputError(f"fixture folder not found: {base}", field="fixture")
        shutil.copytree(base, dest, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".git"))
    dest.mkdir(parents=True, exist_ok=True)
    _write(dest, files or {}, "files")
    if case is not None:
        _write(dest, case.extra_files, "extra_files")
    repo = git.Repo.init(dest, initial_branch="main")
    with repo.config_writer() as cfg:
        cfg.set_value("user", "name", IDENTITY["name"])
        cfg.set_value("user", "email", IDENTITY["email"])
        cfg.set_value("commit", "gpgsign", "false")
    if not any(p.name != ".git" for p in dest.iterdir()):
        (dest / ".gitkeep").write_text("", encoding="utf-8")
    _commit(repo, "fixture: base")
    for i, branch in enumerate(case.branches if case is not None else []):
        repo.git.checkout("main")
        repo.git.checkout("-b", branch.name)
        if not branch.files:
            raise InputError("a branch needs at least one file for its commit", field=f"branches[{i}].files")
        _write(dest, branch.files, f"branches[{i}].files")
        _commit(repo, branch.message)
    return repo
