"""What the screens show about a workspace, loaded at the edge: rows with badges, cases, arms, records.

Every fact comes from the core (routing, lint, audit, cases, wording); this module only groups
them per row so a widget can draw them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.core.arms import BASELINE
from workbench.core.audit import audit
from workbench.core.cases import load_cases
from workbench.core.errors import InputError
from workbench.core.lint import Finding, case_moments, lint_moments, lint_rows
from workbench.core.markdown import read_text_lossy
from workbench.core.misses import Tree
from workbench.core.models import Case
from workbench.core.routing import Row, names_row, parse_text, read_files
from workbench.core.workspace import Workspace

if TYPE_CHECKING:
    from workbench.core.arms import Arm


@dataclass
class WorkspaceView:
    """Rows, their lint and audit findings, cases and arms of one workspace."""

    ws: Workspace
    rows: list[Row] = field(default_factory=list)
    lint: dict[str, list[Finding]] = field(default_factory=dict)
    audit: dict[str, list[Finding]] = field(default_factory=dict)
    unattached: list[Finding] = field(default_factory=list)
    cases: list[Case] = field(default_factory=list)
    scripts: list[ScriptFile] = field(default_factory=list)
    """Scripted-model files of the canaries folder (offline self-checks): the forms' script choices,
    read again whenever a file there changes (`WorkbenchApp.watch_scripts_job`)."""
    problems: list[str] = field(default_factory=list)
    known_arms: KnownArms | None = None
    """The arms as last read in a worker (`read_arms`); None until the first read arrives."""
    tree: Tree | None = None
    """The walk of the plugin folder behind DANGLING hints, kept from one read to the next lint: a
    marketplace of 17,000 files takes over half a second to walk, once per keystroke otherwise."""

    @classmethod
    def load(cls, ws: Workspace) -> WorkspaceView:
        view = cls(ws)
        view.reload()
        return view

    def reload(self) -> None:
        """Read rows, findings and cases again (after an edit or an arm)."""
        self.problems = []
        try:
            self.rows, bad = read_files(self.ws.routing_files(), plugin=self.ws.plugin_dir)
            self.problems = [str(exc) for exc in bad]
        except (OSError, InputError) as exc:
            self.rows, self.problems = [], [str(exc)]
        try:
            self.cases = load_cases(self.ws.cases_dir) if self.ws.cases_dir.is_dir() else []
        except InputError as exc:
            self.cases, self.problems = [], [*self.problems, str(exc)]
        self.lint = {}
        for f in lint_rows(self.rows, max_row_chars=self.ws.config.audit.max_row_chars) + self.moment_lint(self.rows):
            self.lint.setdefault(f.row or "", []).append(f)
        self.audit, self.unattached = {}, []
        self.tree = Tree(self.ws.plugin_dir)
        try:
            for f in audit(self.ws, self.rows, self.tree).findings:
                if f.row:
                    self.audit.setdefault(f.row, []).append(f)
                else:
                    self.unattached.append(f)
        except OSError as exc:
            self.problems.append(f"audit: {exc}")
        self.scripts = read_scripts(self.ws.canaries_dir)

    def moment_lint(self, rows: list[Row]) -> list[Finding]:
        """`moment-not-named` for ROWS (the workspace's rows, or one edited): the moment their cases measure,
        as `workbench lint` checks it."""
        return lint_moments(rows, case_moments(self.rows, self.cases))

    def take(self, other: WorkspaceView) -> None:
        """Show what OTHER read (the same workspace read again in a worker); the arms stay as known."""
        self.rows, self.lint, self.audit, self.unattached = other.rows, other.lint, other.audit, other.unattached
        self.cases, self.scripts, self.problems, self.tree = other.cases, other.scripts, other.problems, other.tree

    def row(self, row_id: str) -> Row | None:
        return next((r for r in self.rows if r.id == row_id), None)

    def first_positive(self, row_id: str) -> Case | None:
        """The row's first positive case (cases are sorted by file name)."""
        return next((c for c in self.cases if c.kind == "positive" and names_row(self.rows, c.target, row_id)), None)

    def promote_cases(self, row_id: str) -> list[Case]:
        """A batch's default cases for a row: its positives and every negative."""
        return [c for c in self.cases
                if (c.kind == "positive" and names_row(self.rows, c.target, row_id)) or c.kind == "negative"]

    def arms(self) -> list[Arm]:
        """Every arm of the workspace (baseline first), as last read (`read_arms`, in a worker); none
        before the first read or when the plugin is not in a git repo."""
        return list(self.known_arms.arms) if self.known_arms is not None else []

    def arms_of(self, row_id: str) -> list[Arm]:
        """Arms that edit ROW: by their stored row, or by the arm commit's message (`row ID`)."""
        if self.known_arms is None:
            return []
        rows = self.known_arms.commit_rows
        return [arm for arm in self.known_arms.arms
                if names_row(self.rows, arm.row, row_id)
                or (arm.sha and arm.name != BASELINE and names_row(self.rows, rows.get(arm.sha), row_id))]


@dataclass(frozen=True)
class ScriptFile:
    """A script the forms offer: its file and the case it carries (a canary file's), or why it cannot
    be read (it is offered all the same: running it names the bad line)."""

    path: Path
    case: Case | None = None
    problem: str | None = None

    @property
    def name(self) -> str:
        return self.path.stem


def read_scripts(folder: Path) -> list[ScriptFile]:
    """The `*.json` scripts of FOLDER, by name, each with the case it carries (`runner.doors.script_case`)."""
    from workbench.runner.doors import script_case

    out = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            out.append(ScriptFile(path, script_case(path)))
        except InputError as exc:
            out.append(ScriptFile(path, problem=str(exc)))
    return out


@dataclass(frozen=True)
class KnownArms:
    """The workspace's arms and, per arm commit, the row its message names (`row ID`), read at once."""

    arms: list[Arm]
    commit_rows: dict[str, str | None]


def read_arms(ws: Workspace) -> KnownArms:
    """Every arm and the row of each arm commit, from git: for a worker, never a handler."""
    from workbench.authoring.arms import commit_row, list_arms, open_repo  # GitPython: not before the first screen

    try:
        arms = list_arms(ws)
    except (InputError, ValueError):
        return KnownArms([], {})
    repo = open_repo(ws.plugin_dir)
    rows: dict[str, str | None] = {}
    for arm in arms:
        if arm.sha and arm.name != BASELINE and arm.sha not in rows:
            rows[arm.sha] = commit_row(str(repo.commit(arm.sha).message))
    return KnownArms(arms, rows)


def lint_edit(view: WorkspaceView, row: Row, new_text: str) -> list[Finding] | None:
    """Lint findings of ROW as if its line read NEW_TEXT (the editor's live feedback), dangling links
    included; None: not a row."""
    from workbench.core.audit import dangling
    from workbench.core.wording import replace_line

    if row.file is None or "\n" in new_text.strip("\n"):
        return None
    text = replace_line(read_text_lossy(row.file)[0], row.line, new_text.strip("\n"))
    edited = [r for r in parse_text(text, row.file, plugin=view.ws.plugin_dir, problems=[]) if r.line == row.line]
    if not edited:
        return None
    from dataclasses import replace

    rows = [replace(r, id=row.id) for r in edited]
    return (lint_rows(rows, max_row_chars=view.ws.config.audit.max_row_chars) + view.moment_lint(rows)
            + dangling(rows, view.ws.plugin_dir, view.tree))


def record_files(ws: Workspace) -> list[Path]:
    """Records files of the workspace's records folder."""
    return sorted(ws.records_dir.glob("*.jsonl")) if ws.records_dir.is_dir() else []


def arm_row_texts(ws: Workspace, arm: Arm, row_id: str) -> tuple[str, str]:
    """ROW_ID's wording in the baseline (HEAD's commit) and in ARM's commit, from git: for a worker,
    never a handler. An InputError names a row the arm's commit does not have."""
    from workbench.authoring.arms import head_rows, open_repo  # GitPython: not before the first screen

    repo = open_repo(ws.plugin_dir)
    if arm.sha is None:
        raise InputError(f"arm {arm.name} has no commit", field="arm")
    base = {r.id: r for r in head_rows(ws, repo)[0]}
    there = {r.id: r for r in head_rows(ws, repo, repo.commit(arm.sha))[0]}
    if row_id not in there:
        raise InputError(f"arm {arm.name} has no row {row_id}", field="arm")
    return (base[row_id].text if row_id in base else ""), there[row_id].text
