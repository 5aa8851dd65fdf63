"""The throwaway git repo one run works in: base content, the case's extra files, and its branches.

Every run gets a fresh repo so no run sees another's edits. The base content (a fixture folder)
plus the case's `extra_files` are committed on `main`; each of the case's branches is then made
from `main` with exactly one real commit of its files. HEAD ends on the last branch listed (a
mid-task case is "on" its work branch), or on `main` when there are none.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

import git

from workbench.core.errors import InputError
from workbench.core.models import Case

IDENTITY = {"name": "workbench", "email": "workbench@localhost"}
"""The author of fixture commits; hosts that commit use their own or the run's git identity."""


NEUTRAL_GIT = ("-c", "core.fsmonitor=", "-c", "core.hooksPath=/dev/null", "-c", "core.sshCommand=false",
               "-c", "diff.external=", "-c", "core.pager=cat", "-c", "protocol.allow=never", "-c", "core.quotepath=off")
"""Every git command the workbench runs OUTSIDE the sandbox on a repo a run or a case could shape:
no fsmonitor, no hooks, no external helpers (a planted `.git/config` must not run anything)."""


def neutral_git_env(outer: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for those commands: no system or global config, no prompts, no GIT_* from outside."""
    base = {k: v for k, v in (os.environ if outer is None else outer).items() if not k.startswith("GIT_")}
    return {**base, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_TERMINAL_PROMPT": "0",
            "GIT_OPTIONAL_LOCKS": "0"}


def neutral_git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """`git ARGS` in REPO with the neutral config, `safe.directory` scoped to REPO alone."""
    argv = ["git", "-C", str(repo), *NEUTRAL_GIT, "-c", f"safe.directory={os.path.realpath(repo)}", *args]
    done = subprocess.run(argv, capture_output=True, text=True, check=False, env=neutral_git_env())
    if check and done.returncode != 0:
        raise RuntimeError(f"git {args[0]} failed in {repo}: {done.stderr.strip()[:200]}")
    return done


def git_internal(rel: str) -> bool:
    """Whether REL names something inside a `.git` folder (any case: `.GIT/config` too)."""
    return any(part.lower() == ".git" for part in Path(rel).parts)


def _safe_path(root: Path, rel: str, field: str) -> Path:
    """ROOT/REL, refusing absolute paths, `..` escapes and `.git/` (a case must not write outside its
    repo, nor the repo's git config or hooks, which git would then run outside the sandbox)."""
    if git_internal(rel):
        raise InputError(f"file path {rel!r} is inside .git (a case may not write git's config or hooks)", field=field)
    target = (root / rel).resolve()
    if Path(rel).is_absolute() or not target.is_relative_to(root.resolve()):
        raise InputError(f"file path {rel!r} leaves the repo", field=field)
    return target


def copy_tree(src: Path, dest: Path, skip: Sequence[str] = (".git",)) -> None:
    """Copy SRC into DEST without following links: a link that stays inside SRC is copied as a link, one
    that points out of it (or dangles) is refused, naming it; FIFOs and devices are refused too."""
    root = Path(os.path.realpath(src))
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        here = Path(dirpath)
        dirnames[:] = [d for d in dirnames if d not in skip]
        out = dest / here.relative_to(root)
        out.mkdir(parents=True, exist_ok=True)
        for name in [*filenames, *(d for d in dirnames if (here / d).is_symlink())]:
            path = here / name
            rel = path.relative_to(root)
            if path.is_symlink():
                target = Path(os.path.realpath(path))
                if not target.is_relative_to(root) or not target.exists():
                    raise InputError(f"{rel}: a link out of the fixture ({os.readlink(path)}) is not copied",
                                     file=str(src), field="fixture")
                os.symlink(os.readlink(path), out / name)
            elif path.is_file():
                shutil.copy2(path, out / name, follow_symlinks=False)
            else:
                raise InputError(f"{rel}: not a regular file, folder or link", file=str(src), field="fixture")
        dirnames[:] = [d for d in dirnames if not (here / d).is_symlink()]


def _write(root: Path, files: Mapping[str, str], field: str) -> list[str]:
    written = []
    for rel, text in files.items():
        path = _safe_path(root, rel, field)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.lstrip("\n"), encoding="utf-8")
        written.append(rel)
    return written


def _commit(repo: git.Repo, message: str) -> None:
    """Stage everything and commit with the neutral config (no hook, no fsmonitor runs)."""
    root = Path(repo.working_tree_dir or ".")
    neutral_git(root, "add", "-A")
    ident = ("-c", f"user.name={IDENTITY['name']}", "-c", f"user.email={IDENTITY['email']}", "-c", "commit.gpgsign=false")
    neutral_git(root, *ident, "commit", "-q", "--no-verify", "--allow-empty", "-m", message)


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
        copy_tree(base, dest)
    dest.mkdir(parents=True, exist_ok=True)
    _write(dest, files or {}, "files")
    if case is not None:
        _write(dest, case.extra_files, "extra_files")
    neutral_git(dest, "init", "-q", "--template=", "-b", "main")
    repo = git.Repo(dest)
    with repo.config_writer() as cfg:
        cfg.set_value("user", "name", IDENTITY["name"])
        cfg.set_value("user", "email", IDENTITY["email"])
        cfg.set_value("commit", "gpgsign", "false")
    if not any(p.name != ".git" for p in dest.iterdir()):
        (dest / ".gitkeep").write_text("", encoding="utf-8")
    _commit(repo, "fixture: base")
    for i, branch in enumerate(case.branches if case is not None else []):
        neutral_git(dest, "checkout", "-q", "main")
        neutral_git(dest, "checkout", "-q", "-b", branch.name)
        if not branch.files:
            raise InputError("a branch needs at least one file for its commit", field=f"branches[{i}].files")
        _write(dest, branch.files, f"branches[{i}].files")
        _commit(repo, branch.message)
    return repo
