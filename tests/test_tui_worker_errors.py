"""The TUI's one error boundary: a worker that raises (a bug: no real part raises past the jobs' own
handling on demand, so the job's `run` is replaced) shows ONE error line and the app keeps running."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static
from tui_support import make_workspace, run_async, wait_for

from workbench.tui.app import make_app
from workbench.tui.jobs import CanaryJob
from workbench.tui.messages import WorkerFailed
from workbench.tui.screens.canary import CanaryScreen


def explode(self: CanaryJob, post: object) -> None:
    raise KeyError("no-such-key")


@pytest.fixture
def broken_job(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(CanaryJob, "run", explode)


@run_async
async def test_a_worker_exception_is_one_error_line_not_a_crash(tmp_path: Path, broken_job: None) -> None:
    app = make_app(make_workspace(tmp_path))
    notes: list[str] = []
    app.notify = lambda message, **kw: notes.append(str(message))  # type: ignore[method-assign]
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("c")
        await wait_for(pilot, app, "WorkerFailed")
        await pilot.pause()
        failed = next(m for m in app.journal if isinstance(m, WorkerFailed))
        assert failed.group == "canary" and "KeyError" in failed.error and "\n" not in failed.error
        assert notes == [failed.error]
        screen = app.screen
        assert isinstance(screen, CanaryScreen) and not screen.running
        assert "no-such-key" in str(screen.query_one("#canary-status", Static).render())
        assert app.return_code is None and app.is_running  # still up: the next key works
        await pilot.press("1")
        await pilot.pause()
        assert app.screen is app.get_screen("rows")
