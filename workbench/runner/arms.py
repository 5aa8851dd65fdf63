"""Arms: `NAME=REF` names a committed version of the plugin; each run gets its own copy of it.

`resolve` is the one resolver every front end uses: `NAME=REF`, `NAME=@worktree`, a workspace arm's
bare NAME (`workbench arm list`), or `NAME=ARM` (another name for a workspace arm), each with the env
the workspace file sets for NAME.

The copy is made from `git archive` of REF (GitPython), never from the working tree, so a run
measures exactly the resolved commit and the record keeps its sha (`source`). `NAME=@worktree`
copies the folder as it is, uncommitted edits included: allowed for canaries only, since a batch
would then measure something no sha names.
"""

from __future__ import annotations

import hashlib
import io
import tarfile
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

import git

from workbench.core.errors import InputError

if TYPE_CHECKING:
    from workbench.core.workspace import Workspace

WORKTREE = "@worktree"
DRAFT = "draft"
"""The arm name of an unsaved draft: the folder as it is with the draft's files applied in the run's copy."""


@dataclass(frozen=True)
class Arm:
    """One arm: its name, the ref as given, the resolved sha (None for @worktree), and the plugin folder."""

    name: str
    ref: str
    sha: str | None
    repo_root: Path
    subdir: str
    """The plugin folder relative to the repo root ('' when the plugin is the whole repo)."""
    env: Mapping[str, str] = field(default_factory=dict)
    """Environment the host gets for this arm (e.g. a hook's off-switch, `EVAL_INJECTION_OFF=1`)."""
    cases: frozenset[str] | None = None
    """The case ids this arm runs in a batch (None: every case); a no-row control runs only its row's cases."""
    edits: Mapping[str, str] = field(default_factory=dict)
    """A draft's files (path inside the plugin folder -> full text), written into the run's copy only."""

    @property
    def worktree(self) -> bool:
        return self.sha is None

    @property
    def source(self) -> str | None:
        """What the record names as the arm's source: the sha, or a draft's content hash (`draft-…`)."""
        if self.sha is not None or not self.edits:
            return self.sha
        digest = hashlib.sha256()
        for path in sorted(self.edits):
            digest.update(path.encode() + b"\0" + self.edits[path].encode() + b"\0")
        return f"draft-{digest.hexdigest()[:16]}"


def parse_arms(spec: str) -> list[tuple[str, str]]:
    """`A=REF,B` -> [(A, REF), (B, "")]; a bare name is an arm of the workspace (`workbench arm list`),
    resolved by the caller. Names must be unique and non-empty."""
    out: list[tuple[str, str]] = []
    for part in (p.strip() for p in spec.split(",") if p.strip()):
        name, sep, ref = part.partition("=")
        if not name.strip() or (sep and not ref.strip()):
            raise InputError(f"expected NAME=REF or an arm name, got {part!r}", field="--arms")
        if name.strip() in (n for n, _ in out):
            raise InputError(f"arm {name.strip()!r} given twice", field="--arms")
        out.append((name.strip(), ref.strip()))
    if not out:
        raise InputError("no arm given", field="--arms")
    return out


def plugin_repo(plugin: Path) -> tuple[git.Repo, str]:
    """The git repo holding the plugin folder and the folder's path inside it."""
    try:
        repo = git.Repo(plugin, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise InputError(f"plugin folder is not inside a git repo: {plugin}", field="--arms") from None
    root = Path(repo.working_tree_dir or plugin).resolve()
    sub = plugin.resolve().relative_to(root).as_posix()
    return repo, "" if sub == "." else sub


def resolve_arm(plugin: Path, name: str, ref: str, *, allow_worktree: bool = False) -> Arm:
    """Resolve REF to a commit sha in the plugin's repo; @worktree only when ALLOW_WORKTREE."""
    repo, sub = plugin_repo(plugin)
    root = Path(repo.working_tree_dir or plugin).resolve()
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


def split_spec(spec: str) -> tuple[str, str]:
    """`NAME=REF` -> (NAME, REF); a bare NAME -> (NAME, "")."""
    name, _, ref = spec.partition("=")
    return name.strip(), ref.strip()


def resolve(ws: Workspace, name: str, ref: str = "", *, plugin: Path | None = None,
            allow_worktree: bool = False) -> Arm:
    """THE arm resolver: NAME=REF in the plugin's repo, NAME=@worktree (the folder as it is, when
    ALLOW_WORKTREE), a workspace arm's bare NAME, or NAME=ARM where ARM is a workspace arm's name (it
    wins over a git ref of that name); with the env `[arms.NAME]` sets (over ARM's). PLUGIN (default
    the workspace's) is the folder a ref is resolved in."""
    from workbench.authoring.arms import list_arms
    from workbench.authoring.arms import resolve_arm as named_arm

    folder = plugin or ws.plugin_dir
    env = dict(ws.config.arms[name].env) if name in ws.config.arms else {}
    if ref == WORKTREE:
        return replace(resolve_arm(folder, name, ref, allow_worktree=allow_worktree), env=env)
    if ref and folder.resolve() != ws.plugin_dir.resolve():  # another plugin folder: its own repo's ref
        return replace(resolve_arm(folder, name, ref), env=env)
    if not ref or any(a.name == ref for a in list_arms(ws)):
        info = named_arm(ws, ref or name)
        ref, env = info.ref, ({**info.env, **env} if ref else dict(info.env))
    return replace(resolve_arm(ws.plugin_dir, name, ref), env=env)


def draft_arm(ws: Workspace, edits: Mapping[Path, str]) -> Arm:
    """The unsaved draft as an arm: the plugin folder as it is, each file of EDITS (absolute path in
    the plugin -> new full text) replaced in the run's copy only; the user's files are never written."""
    base = resolve(ws, DRAFT, WORKTREE, allow_worktree=True)
    folder = ws.plugin_dir.resolve()
    rel: dict[str, str] = {}
    for path, text in edits.items():
        try:
            rel[path.resolve().relative_to(folder).as_posix()] = text
        except ValueError:
            raise InputError(f"draft file {path} is outside the plugin folder {folder}", field="draft") from None
    return replace(base, ref="@draft", edits=rel)


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
