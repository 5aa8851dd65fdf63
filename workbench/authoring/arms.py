"""Arms as commits: one routing row's new text committed on `workbench/arm/NAME` of the plugin repo.

The commit is built from HEAD's tree in a temporary index (GitPython), so it holds exactly that
row's change, and the user's working tree, index and current branch are never touched. The plugin
may be a subfolder of a larger repo: the commit is made on the enclosing repo. The new text is
checked first (`core.wording.row_problems`: still a row, every link exists at HEAD); `force`
commits it anyway. An arm's environment variables and row id go under `[arms.NAME]` in
`workbench.toml` (`workbench.authoring.workspace_file`).
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from pathlib import Path

import git
from git.index.typ import BaseIndexEntry
from gitdb.base import IStream

from workbench.authoring.workspace_file import record_rows, store_arm
from workbench.core.audit import link_exists
from workbench.core.control import CONTROL
from workbench.core.errors import InputError
from workbench.core.routing import Link, Row, assign_ids, find_row, parse_text, unknown_row_message
from workbench.core.wording import BASELINE, BRANCH_PREFIX, ArmInfo, check_arm_name, edit_row, row_problems, without_row
from workbench.core.workspace import Workspace

__all__ = ["ArmInfo", "create_arm", "head_rows", "list_arms", "open_repo", "resolve_arm"]


def open_repo(plugin: Path) -> git.Repo:
    """The git repo holding the plugin folder (the plugin may be a subfolder)."""
    try:
        return git.Repo(plugin, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise InputError(f"plugin folder is not inside a git repo: {plugin}", field="plugin.path") from None


def _rel(repo: git.Repo, path: Path) -> str:
    return path.resolve().relative_to(Path(str(repo.working_tree_dir)).resolve()).as_posix()


def head_rows(ws: Workspace, repo: git.Repo, commit: git.Commit | None = None) -> tuple[list[Row], dict[Path, str]]:
    """Routing rows of the routing files as committed at HEAD (or COMMIT), and those files' texts there."""
    try:
        tree = (commit or repo.head.commit).tree
    except ValueError:
        raise InputError("the plugin repo has no commit yet", field="plugin.path") from None
    rows: list[Row] = []
    texts: dict[Path, str] = {}
    for path in ws.routing_files():
        try:
            blob = tree / _rel(repo, path)
        except KeyError:
            continue  # not committed: no arm can edit it
        text = blob.data_stream.read().decode("utf-8", errors="replace")
        texts[path] = text
        rows += parse_text(text, path, plugin=ws.plugin_dir)
    return assign_ids(rows), texts


def _exists_at_head(repo: git.Repo, tree: git.Tree) -> Callable[[Link], bool]:
    def exists(link: Link) -> bool:
        if any(c in link.target for c in "{<*"):
            return link_exists(link.target, link.path)  # a templated path: any matching file will do
        try:
            return (tree / _rel(repo, link.path)).type == "blob"
        except (KeyError, ValueError):
            return False
    return exists


def create_arm(ws: Workspace, row_id: str, name: str, *, text: str | None = None, trigger: str | None = None,
               env: dict[str, str] | None = None, force: bool = False) -> ArmInfo:
    """Commit ROW's new wording on `workbench/arm/NAME` (parent: HEAD) and return the arm.

    Refused unless FORCE: an existing arm branch, text that is no routing row, a link to a file
    missing at HEAD."""
    check_arm_name(name)
    repo = open_repo(ws.plugin_dir)
    rows, texts = head_rows(ws, repo)
    row = find_row(rows, row_id)
    if row is None or row.file is None:
        raise InputError(unknown_row_message(rows, row_id) + " at HEAD", field="ROW")
    old = texts[row.file]
    new = edit_row(old, row, text=text, trigger=trigger)
    if new == old:
        raise InputError("the new text is the row's current text", field="--text")
    base = repo.head.commit
    problems = row_problems(new, row, _exists_at_head(repo, base.tree), plugin=ws.plugin_dir)
    if problems and not force:
        raise InputError(f"{'; '.join(problems)}; pass --force to commit it anyway", field="--text")
    branch = BRANCH_PREFIX + name
    if branch in [h.name for h in repo.heads] and not force:
        raise InputError(f"arm {name!r} exists ({branch}); pass --force to replace it", field="--name")
    rel = _rel(repo, row.file)
    data = new.encode("utf-8")
    stream = repo.odb.store(IStream("blob", len(data), io.BytesIO(data)))
    mode = (base.tree / rel).mode
    index = git.IndexFile.from_tree(repo, base)
    index.add([BaseIndexEntry((mode, stream.binsha, 0, rel))], write=False)
    tree = index.write_tree()
    old_lines, new_lines = old.split("\n"), new.split("\n")
    changed = [f"- {a.strip()}\n+ {b.strip()}" for a, b in zip(old_lines, new_lines, strict=False) if a != b][:3]
    message = f"workbench arm {name}: row {row.id}\n\n" + "\n".join(changed) + "\n"
    commit = git.Commit.create_from_tree(repo, tree, message, parent_commits=[base], head=False)
    repo.create_head(branch, commit, force=force)
    store_arm(ws, name, env=env or {}, row=row.id, ref=branch, replace=force)
    record_rows(ws, [row.id], rows=rows)
    return ArmInfo(name, branch, commit.hexsha, dict(env or {}), row.id)


def commit_row(message: str) -> str | None:
    """The row an arm commit's message names (`workbench arm NAME: row ID`, as `create_arm` writes it)."""
    first = message.splitlines()[0] if message else ""
    return first.rsplit("row ", 1)[-1].strip() if " row " in first else None


def list_arms(ws: Workspace) -> list[ArmInfo]:
    """baseline (HEAD), every `workbench/arm/*` branch, and the `[arms.*]` of the workspace file."""
    repo = open_repo(ws.plugin_dir)
    arms = {BASELINE: ArmInfo(BASELINE, "HEAD", repo.head.commit.hexsha if repo.head.is_valid() else None)}
    for head in repo.heads:
        if head.name.startswith(BRANCH_PREFIX):
            name = head.name[len(BRANCH_PREFIX):]
            arms[name] = ArmInfo(name, head.name, head.commit.hexsha)
    for name, cfg in ws.config.arms.items():
        ref = cfg.ref or (BRANCH_PREFIX + name if name in arms else "HEAD")
        try:
            sha: str | None = repo.commit(ref).hexsha
        except (git.BadName, ValueError):
            sha = None
        arms[name] = ArmInfo(name, ref, sha, dict(cfg.env), cfg.row)
    return list(arms.values())


def resolve_arm(ws: Workspace, name: str) -> ArmInfo:
    """The arm called NAME (for a batch's `--arms NAME`); unknown names are an InputError."""
    for arm in list_arms(ws):
        if arm.name == name:
            if arm.sha is None:
                raise InputError(f"arm {name!r}: ref {arm.ref!r} does not exist", field="--arms")
            return arm
    raise InputError(f"no arm {name!r} (see `workbench arm list`)", field="--arms")


def create_control(ws: Workspace, base_ref: str, row_ids: list[str], *, name: str = CONTROL) -> ArmInfo:
    """Commit BASE_REF with the rows ROW_IDS removed on `workbench/arm/NAME/ROWS` (replaced if there): the
    no-row control. Author, committer and dates are the base commit's, so the same base and rows give
    the same sha (a resumed batch finds its control runs)."""
    repo = open_repo(ws.plugin_dir)
    try:
        base = repo.commit(base_ref)
    except (git.BadName, ValueError):
        raise InputError(f"unknown git ref {base_ref!r} for the control arm", field="--control") from None
    rows, texts = head_rows(ws, repo, base)
    chosen: list[Row] = []
    for ref in dict.fromkeys(row_ids):
        row = find_row(rows, ref)
        if row is None or row.file is None:
            raise InputError(unknown_row_message(rows, ref) + f" at {base_ref}", field="--control")
        chosen.append(row)
    if not chosen:
        raise InputError("--control needs a positive case whose target is a routing row", field="--control")
    index = git.IndexFile.from_tree(repo, base)
    entries = []
    for file in dict.fromkeys(r.file for r in chosen if r.file is not None):
        text = texts[file]
        for row in sorted((r for r in chosen if r.file == file), key=lambda r: r.line, reverse=True):
            text = without_row(text, row)
        data = text.encode("utf-8")
        rel = _rel(repo, file)
        stream = repo.odb.store(IStream("blob", len(data), io.BytesIO(data)))
        entries.append(BaseIndexEntry(((base.tree / rel).mode, stream.binsha, 0, rel)))
    index.add(entries, write=False)
    tree = index.write_tree()
    removed = "\n".join(f"- {r.id}: {r.text.strip()}" for r in chosen)
    message = f"workbench control arm from {base.hexsha[:12]}: rows removed\n\n{removed}\n"
    commit = git.Commit.create_from_tree(repo, tree, message, parent_commits=[base], head=False,
                                         author=base.author, committer=base.committer,
                                         author_date=f"{base.authored_date} +0000",
                                         commit_date=f"{base.committed_date} +0000")
    branch = BRANCH_PREFIX + name + "/" + "+".join(re.sub(r"[^A-Za-z0-9._-]+", "-", r.id) for r in chosen)
    repo.create_head(branch, commit, force=True)
    return ArmInfo(name, branch, commit.hexsha, {}, ",".join(r.id for r in chosen))

