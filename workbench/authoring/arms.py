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
from workbench.core.arms import BASELINE, BRANCH_PREFIX, Arm, check_arm_name
from workbench.core.control import CONTROL
from workbench.core.errors import InputError
from workbench.core.linkfiles import link_exists
from workbench.core.routing import Link, Row, assign_ids, find_row, parse_text, unknown_row_message
from workbench.core.wording import edit_row, row_problems, without_row
from workbench.core.workspace import Workspace

__all__ = ["commit_row", "create_arm", "create_control", "head_rows", "list_arms", "open_repo", "plugin_place",
           "row_changes"]


def open_repo(plugin: Path, field: str = "plugin.path") -> git.Repo:
    """The git repo holding the plugin folder (the plugin may be a subfolder)."""
    try:
        return git.Repo(plugin, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise InputError(f"plugin folder is not inside a git repo: {plugin}", field=field) from None


def plugin_place(repo: git.Repo, plugin: Path) -> tuple[Path, str]:
    """The repo's root and the plugin folder's path inside it ('' when the plugin is the whole repo)."""
    root = Path(repo.working_tree_dir or plugin).resolve()
    sub = plugin.resolve().relative_to(root).as_posix()
    return root, "" if sub == "." else sub


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
        rows += parse_text(text, path, plugin=ws.plugin_dir, problems=[])  # `rows` warns of broken files
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
               env: dict[str, str] | None = None, force: bool = False) -> Arm:
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
    root, sub = plugin_place(repo, ws.plugin_dir)
    return Arm(name, branch, commit.hexsha, root, sub, env=dict(env or {}), row=row.id)


def commit_row(message: str) -> str | None:
    """The row an arm commit's message names (`workbench arm NAME: row ID`, as `create_arm` writes it)."""
    first = message.splitlines()[0] if message else ""
    return first.rsplit("row ", 1)[-1].strip() if " row " in first else None


def list_arms(ws: Workspace) -> list[Arm]:
    """baseline (HEAD), every `workbench/arm/*` branch, and the `[arms.*]` of the workspace file; an arm
    whose ref does not exist has no sha (`runner.arms.resolve` refuses it)."""
    repo = open_repo(ws.plugin_dir)
    root, sub = plugin_place(repo, ws.plugin_dir)
    arms = {BASELINE: Arm(BASELINE, "HEAD", repo.head.commit.hexsha if repo.head.is_valid() else None, root, sub)}
    for head in repo.heads:
        if head.name.startswith(BRANCH_PREFIX):
            name = head.name[len(BRANCH_PREFIX):]
            arms[name] = Arm(name, head.name, head.commit.hexsha, root, sub)
    for name, cfg in ws.config.arms.items():
        ref = cfg.ref or (BRANCH_PREFIX + name if name in arms else "HEAD")
        try:
            sha: str | None = repo.commit(ref).hexsha
        except (git.BadName, ValueError):
            sha = None
        arms[name] = Arm(name, ref, sha, root, sub, env=dict(cfg.env), row=cfg.row)
    return list(arms.values())


def row_changes(ws: Workspace, arms: list[Arm]) -> dict[str, list[tuple[str, Row | None, Row | None]]]:
    """Per arm (by name) whose commit is not HEAD, the rows that differ from HEAD's: ("gone", row at
    HEAD, None), ("only", None, row there), or ("moved", HEAD's, the arm's) when one id names another
    row there (other links, or another trigger on a row the arm does not edit)."""
    repo = open_repo(ws.plugin_dir)
    if not repo.head.is_valid():
        return {}
    base, _ = head_rows(ws, repo)
    out: dict[str, list[tuple[str, Row | None, Row | None]]] = {}
    for arm in arms:
        if arm.sha is None or arm.sha == repo.head.commit.hexsha:
            continue
        there = {r.id: r for r in head_rows(ws, repo, repo.commit(arm.sha))[0]}
        here = {r.id: r for r in base}
        edited = find_row(base, arm.row) if arm.row else None
        found: list[tuple[str, Row | None, Row | None]] = []
        for row_id, row in here.items():
            other = there.get(row_id)
            if other is None:
                found.append(("gone", row, None))
            elif [lk.target for lk in other.links] != [lk.target for lk in row.links] or (
                    other.trigger != row.trigger and row is not edited):
                found.append(("moved", row, other))
        found += [("only", None, row) for row_id, row in there.items() if row_id not in here]
        out[arm.name] = found
    return out


def create_control(ws: Workspace, base_ref: str, row_ids: list[str], *, name: str = CONTROL) -> Arm:
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
    root, sub = plugin_place(repo, ws.plugin_dir)
    return Arm(name, branch, commit.hexsha, root, sub, row=",".join(r.id for r in chosen))

