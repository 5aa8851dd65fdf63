"""Arms resolved in git: `NAME=REF` names a committed version of the plugin; each run gets its own copy.

`resolve` is the ONE arm resolver every door uses: `NAME=REF`, `NAME=@worktree`, a workspace arm's
bare NAME (`workbench arm list`), or `NAME=ARM` (another name for a workspace arm), each with the env
the workspace file sets for NAME. The arm itself is pure data (`core.arms.Arm`).

The copy is made from `git archive` of REF (GitPython), never from the working tree, so a run
measures exactly the resolved commit and the record keeps its sha (`source`). `NAME=@worktree`
copies the folder as it is, uncommitted edits included: allowed for canaries only, since a batch
would then measure something no sha names.
"""

from __future__ import annotations

import io
import tarfile
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import git

from workbench.authoring.arms import list_arms, open_repo, plugin_place
from workbench.core.arms import DRAFT, WORKTREE, Arm, ref_name
from workbench.core.errors import InputError

if TYPE_CHECKING:
    from workbench.core.workspace import Workspace


def resolve_ref(plugin: Path, name: str, ref: str, *, allow_worktree: bool = False) -> Arm:
    """Resolve REF to a commit sha in the plugin's repo; @worktree only when ALLOW_WORKTREE."""
    repo = open_repo(plugin, field="--arms")
    root, sub = plugin_place(repo, plugin)
    if ref == WORKTREE:
        if not allow_worktree:
            raise InputError(f"arm {name}: {WORKTREE} (uncommitted edits) is for canaries only; "
                             "commit the edits and name the ref", field="--arms")
        return Arm(name, ref, None, root, sub)
    try:
        sha = repo.rev_parse(f"{ref}^{{commit}}").hexsha
    except (git.BadName, ValueError, git.GitCommandError):
        raise InputError(f"arm {name}: unknown git ref {ref!r} in {root}", field="--arms") from None
    if sub:
        try:
            repo.commit(sha).tree[sub]
        except KeyError:
            raise InputError(f"arm {name}: {ref} ({sha[:12]}) has no {sub}/", field="--arms") from None
    return Arm(name, ref, sha, root, sub)


def _listed(arms: list[Arm], name: str) -> Arm:
    """The workspace arm called NAME among ARMS (`workbench arm list`) with an existing ref, else an InputError."""
    for arm in arms:
        if arm.name == name:
            if arm.sha is None:
                raise InputError(f"arm {name!r}: ref {arm.ref!r} does not exist", field="--arms")
            return arm
    raise InputError(f"no arm {name!r} (see `workbench arm list`)", field="--arms")


def resolve(ws: Workspace, name: str, ref: str = "", *, plugin: Path | None = None,
            allow_worktree: bool = False) -> Arm:
    """THE arm resolver: NAME=REF in the plugin's repo, NAME=@worktree (the folder as it is, when
    ALLOW_WORKTREE), a workspace arm's bare NAME, or NAME=ARM where ARM is a workspace arm's name (it
    wins over a git ref of that name); with the env `[arms.NAME]` sets (over ARM's). PLUGIN (default
    the workspace's) is the folder a ref is resolved in."""
    folder = plugin or ws.plugin_dir
    env = dict(ws.config.arms[name].env) if name in ws.config.arms else {}
    if ref == WORKTREE:
        return replace(resolve_ref(folder, name, ref, allow_worktree=allow_worktree), env=env)
    if ref and folder.resolve() != ws.plugin_dir.resolve():  # another plugin folder: its own repo's ref
        return replace(resolve_ref(folder, name, ref), env=env)
    arms = list_arms(ws)
    if not ref or any(a.name == ref for a in arms):
        listed = _listed(arms, ref or name)
        env = {**listed.env, **env} if ref else dict(listed.env)
        return replace(resolve_ref(ws.plugin_dir, name, listed.ref), env=env, row=listed.row)
    return replace(resolve_ref(ws.plugin_dir, name, ref), env=env)


def draft_arm(ws: Workspace, edits: Mapping[Path, str]) -> Arm:
    """The unsaved draft as an arm: the plugin folder as it is, each file of EDITS (absolute path in
    the plugin -> new full text) replaced in the run's copy only; the user's files are never written."""
    base = resolve(ws, ref_name(DRAFT), WORKTREE, allow_worktree=True)
    folder = ws.plugin_dir.resolve()
    rel: dict[str, str] = {}
    for path, text in edits.items():
        try:
            rel[path.resolve().relative_to(folder).as_posix()] = text
        except ValueError:
            raise InputError(f"draft file {path} is outside the plugin folder {folder}", field="draft") from None
    return replace(base, ref=DRAFT, edits=rel)


def archive(arm: Arm) -> bytes:
    """The tar of the plugin folder at the arm's sha (`git archive SHA -- SUBDIR`)."""
    if arm.sha is None:
        raise ValueError("a worktree arm has no archive")
    repo = git.Repo(arm.repo_root)
    buf = io.BytesIO()
    if arm.subdir:
        repo.archive(buf, arm.sha, format="tar", path=arm.subdir)
    else:
        repo.archive(buf, arm.sha, format="tar")
    return buf.getvalue()


def build_copy(arm: Arm, dest: Path, tar: bytes | None = None) -> Path:
    """Write the arm's plugin into DEST (must not exist): from the archive TAR (made when not given)."""
    if arm.sha is None:
        from workbench.runner.fixture import copy_tree  # no link followed out of the plugin

        copy_tree(arm.repo_root / arm.subdir, dest)
        for rel, text in arm.edits.items():
            (dest / rel).write_text(text, encoding="utf-8")
        return dest
    data = tar if tar is not None else archive(arm)
    dest.mkdir(parents=True)
    prefix = f"{arm.subdir}/" if arm.subdir else ""
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as tf:
        members = []
        for member in tf.getmembers():
            if not member.name.startswith(prefix) or member.name == prefix.rstrip("/"):
                continue
            member.name = member.name[len(prefix):]
            members.append(member)
        tf.extractall(dest, members=members, filter="data")
    return dest
