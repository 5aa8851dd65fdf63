"""Helpers for the TUI tests: a throwaway copy of the demo workspace (its own git repo) and waiting
for a message in the app's journal. Waits have generous caps; nothing is timed."""

from __future__ import annotations

import asyncio
import functools
import shutil
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

import git
from textual.screen import Screen
from textual.widgets import DataTable, TextArea

from workbench.core.workspace import Workspace, read_workspace
from workbench.tui.app import WorkbenchApp

P = ParamSpec("P")
ROOT = Path(__file__).resolve().parent.parent


def make_workspace(tmp: Path) -> Workspace:
    """The demo workspace copied into TMP/ws and committed (arms need a git repo); records/ ignored."""
    ws = tmp / "ws"
    ws.mkdir()
    shutil.copy(ROOT / "workbench.toml", ws / "workbench.toml")
    for folder in ("plugin", "cases", "fixtures", "canaries"):
        shutil.copytree(ROOT / folder, ws / folder)
    (ws / ".gitignore").write_text("records/\n", encoding="utf-8")
    repo = git.Repo.init(ws, initial_branch="main")
    repo.git.add(A=True)
    actor = git.Actor("t", "t@localhost")
    repo.index.commit("workspace", author=actor, committer=actor)
    return read_workspace(ws / "workbench.toml")


async def wait_for(pilot: object, app: WorkbenchApp, kind: str, *, count: int = 1, cap: float = 120.0) -> None:
    """Pause until the journal holds COUNT messages named KIND (fails after CAP seconds of waiting)."""
    waited = 0.0
    while app.kinds().count(kind) < count:
        if waited > cap:
            raise AssertionError(f"no {kind} after {cap}s; journal: {app.kinds()[-20:]}")
        await pilot.pause(0.05)  # type: ignore[attr-defined]
        waited += 0.05


async def until(pilot: object, app: WorkbenchApp, seen: Callable[[], bool], what: str, cap: float = 120.0) -> None:
    """Pause until SEEN() holds, looking again every 50 ms (a repaint needs no new message to land, so
    waiting for the next message could wait for one that never comes); fails after CAP seconds."""
    waited = 0.0
    while not seen():
        if waited > cap:
            raise AssertionError(f"never {what} after {cap}s; journal: {app.kinds()[-20:]}")
        await pilot.pause(0.05)  # type: ignore[attr-defined]
        waited += 0.05


S = TypeVar("S", bound=Screen[Any])


async def shown(pilot: object, app: WorkbenchApp, name: str, kind: type[S], cap: float = 120.0) -> S:
    """Screen NAME of APP, shown once the app's first arms read (a worker) is in: the forms offer the
    arms from it, so a test that picks an arm never races that read. Fails if it is not a KIND."""
    waited = 0.0
    while app.view.known_arms is None:
        if waited > cap:
            raise AssertionError(f"no arms read after {cap}s; journal: {app.kinds()[-20:]}")
        await pilot.pause(0.05)  # type: ignore[attr-defined]
        waited += 0.05
    await app.action_show(name)
    await pilot.pause()  # type: ignore[attr-defined]
    screen = app.screen
    assert isinstance(screen, kind), screen
    return screen


def run_async(fn: Callable[P, Coroutine[Any, Any, None]]) -> Callable[P, None]:
    """Run an async Pilot test with asyncio.run (no asyncio pytest plugin is installed)."""
    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> None:
        asyncio.run(fn(*args, **kwargs))

    return wrapper


def host_groups(folder: Path) -> list[int]:
    """Process groups led by children of this process whose cwd is inside FOLDER (Linux /proc): the
    hosts a run started, found independently of the runner so a test can check they were stopped."""
    import os

    root = os.path.realpath(folder)
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            raw = (entry / "stat").read_text()
            cwd = os.readlink(entry / "cwd")
        except OSError:
            continue
        ppid, pgid = (int(f) for f in raw[raw.rfind(")") + 2:].split()[1:3])
        if ppid == os.getpid() and pgid == int(entry.name) and (cwd == root or cwd.startswith(root + os.sep)):
            found.append(pgid)
    return found


async def select_row(pilot: object, app: WorkbenchApp, row_id: str) -> None:
    """Move the Rows table's cursor to ROW_ID, as the arrow keys would."""
    table = app.screen.query_one("#rows", DataTable)
    table.move_cursor(row=table.get_row_index(row_id))
    await pilot.pause()  # type: ignore[attr-defined]


async def linted(pilot: object, app: WorkbenchApp) -> None:
    """Wait until the Rows editor's last wording has been linted (a worker reads the row's file and its links)."""
    rows: Any = app.built["rows"]
    await until(pilot, app, lambda: all(rows.linted.get(k) == v for k, v in rows.wanted.items()), "the wording linted")


async def edit_wording(pilot: object, app: WorkbenchApp, row_id: str, old: str, new: str) -> None:
    """On Rows: select ROW_ID, replace OLD with NEW in its editor, and wait for that wording's lint."""
    await select_row(pilot, app, row_id)
    editor = app.screen.query_one("#editor", TextArea)
    editor.load_text(editor.text.replace(old, new))
    await pilot.pause()  # type: ignore[attr-defined]
    await linted(pilot, app)


async def canary_on(pilot: object, app: WorkbenchApp, case: str, script: dict[str, Any]) -> Any:
    """The Canary screen with CASE picked and the scripted model SCRIPT set (`CanaryScreen.script`)."""
    from workbench.modelstub import parse_script
    from workbench.tui.screens.canary import CanaryScreen

    await pilot.pause()  # type: ignore[attr-defined]
    await app.action_show("canary")
    screen = app.screen
    assert isinstance(screen, CanaryScreen)
    screen.query_one("#case", expect_type=None).value = case  # type: ignore[attr-defined]
    await pilot.pause()  # type: ignore[attr-defined]
    screen.script = parse_script(script)
    return screen


def fill_batch_form(screen: Any, case: str, *, arm: str = "docs-weak", **fields: str) -> None:
    """The Batch form set to sim, unconfined, baseline against ARM on CASE alone; FIELDS: other inputs by id
    (`runs`, `jobs`)."""
    from textual.widgets import Input, Select, SelectionList

    screen.query_one("#confined").value = False
    screen.query_one("#hosts", Input).value = "sim"
    for name, value in fields.items():
        screen.query_one(f"#{name}", Input).value = value
    screen.query_one("#baseline", Select).value = "baseline"
    screen.query_one("#arm", Select).value = arm
    cases = screen.query_one("#cases", SelectionList)
    cases.deselect_all()
    cases.select(case)
