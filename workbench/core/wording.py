"""Wording -> arm: one routing row's new text committed on `workbench/arm/NAME` of the plugin repo.

The commit is built from HEAD's tree in a temporary index (GitPython), so it holds exactly that
one line's change, and the user's working tree, index and current branch are never touched. The
plugin may be a subfolder of a larger repo: the commit is made on the enclosing repo. An arm may
also carry environment variables for the host; those are stored under `[arms.NAME]` in
`workbench.toml` (the only file this module writes in the user's tree, and only when env is given).
"""

from __future__ import annotations

import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import git
from git.index.typ import BaseIndexEntry
from gitdb.base import IStream

from workbench.core.control import CONTROL
from workbench.core.errors import InputError
from workbench.core.routing import Row, assign_ids, find_row, parse_text, unknown_row_message
from workbench.core.workspace import FILENAME, Workspace

BRANCH_PREFIX = "workbench/arm/"
BASELINE = "baseline"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


@dataclass(frozen=True)
class ArmInfo:
    """An arm as listed: name, ref, resolved sha (None if the ref is missing), env, and the row it edits."""

    name: str
    ref: str
    sha: str | None
    env: dict[str, str] = field(default_factory=dict)
    row: str | None = None


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
        text = blob.data_stream.read().decode("utf-8")
        texts[path] = text
        rows += parse_text(text, path, plugin=ws.plugin_dir)
    return assign_ids(rows), texts


def new_line(row: Row, *, text: str | None = None, trigger: str | None = None) -> str:
    """The row's new line: TEXT as the whole line, or the row with its trigger replaced by TRIGGER."""
    if text is not None:
        if "\n" in text:
            raise InputError("a row's text is one line", field="--text")
        return text
    if trigger is None:
        raise InputError("give --text or --trigger", field="--text")
    if row.kind == "description":
        key, _, _ = row.text.partition(":")
        return f"{key}: {trigger}"
    index = row.text.find(row.trigger)
    if index < 0:
        raise InputError(f"cannot find the trigger of row {row.id!r} in its line", field="ROW")
    return row.text[:index] + trigger + row.text[index + len(row.trigger):]


def replace_line(text: str, line: int, replacement: str) -> str:
    """TEXT with 1-based LINE replaced, line endings kept."""
    lines = text.splitlines(keepends=True)
    old = lines[line - 1]
    ending = old[len(old.rstrip("\r\n")):]
    lines[line - 1] = replacement + ending
    return "".join(lines)


def create_arm(ws: Workspace, row_id: str, name: str, *, text: str | None = None, trigger: str | None = None,
               env: dict[str, str] | None = None, force: bool = False) -> ArmInfo:
    """Commit ROW's new wording on `workbench/arm/NAME` (parent: HEAD) and return the arm."""
    if not _NAME.match(name) or name == BASELINE:
        raise InputError(f"arm name {name!r}: use letters, digits, '.', '_' or '-' (not 'baseline')",
                         field="--name")
    repo = open_repo(ws.plugin_dir)
    rows, texts = head_rows(ws, repo)
    row = find_row(rows, row_id)
    if row is None or row.file is None:
        raise InputError(unknown_row_message(rows, row_id) + " at HEAD", field="ROW")
    replacement = new_line(row, text=text, trigger=trigger)
    if replacement == row.text:
        raise InputError("the new text is the row's current text", field="--text")
    branch = BRANCH_PREFIX + name
    if branch in [h.name for h in repo.heads] and not force:
        raise InputError(f"arm {name!r} exists ({branch}); pass --force to replace it", field="--name")
    base = repo.head.commit
    rel = _rel(repo, row.file)
    data = replace_line(texts[row.file], row.line, replacement).encode("utf-8")
    stream = repo.odb.store(IStream("blob", len(data), io.BytesIO(data)))
    mode = (base.tree / rel).mode
    index = git.IndexFile.from_tree(repo, base)
    index.add([BaseIndexEntry((mode, stream.binsha, 0, rel))], write=False)
    tree = index.write_tree()
    message = f"workbench arm {name}: row {row.id}\n\n- {row.text.strip()}\n+ {replacement.strip()}\n"
    commit = git.Commit.create_from_tree(repo, tree, message, parent_commits=[base], head=False)
    repo.create_head(branch, commit, force=force)
    if env:
        store_arm_env(ws, name, env, row=row.id, ref=branch)
    return ArmInfo(name, branch, commit.hexsha, dict(env or {}), row.id)


def store_arm_env(ws: Workspace, name: str, env: dict[str, str], *, row: str | None = None,
                  ref: str | None = None) -> Path:
    """Append `[arms.NAME]` (ref, row, env) to the workspace's workbench.toml."""
    file = ws.file or ws.root / FILENAME
    text = file.read_text(encoding="utf-8") if file.is_file() else ""
    if name in ws.config.arms or re.search(rf"^\[arms\.{re.escape(name)}\]", text, re.MULTILINE):
        raise InputError(f"[arms.{name}] is already in the workspace file", file=str(file), field=f"arms.{name}")
    lines = [f"\n[arms.{name}]"]
    if ref:
        lines.append(f"ref = {json.dumps(ref)}")
    if row:
        lines.append(f"row = {json.dumps(row)}")
    lines.append("env = { " + ", ".join(f"{json.dumps(k)} = {json.dumps(v)}" for k, v in env.items()) + " }")
    file.write_text(text.rstrip("\n") + "\n" + "\n".join(lines) + "\n", encoding="utf-8")
    return file


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




def without_row(text: str, row: Row) -> str:
    """TEXT with ROW removed: a description emptied to the skill's name, any other row's line deleted."""
    lines = text.splitlines(keepends=True)
    if row.kind == "description":
        key, _, _ = row.text.partition(":")
        return replace_line(text, row.line, f"{key}: {row.skill}")
    del lines[row.line - 1]
    return "".join(lines)


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
