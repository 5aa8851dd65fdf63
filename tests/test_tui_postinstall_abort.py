"""Pilot tests on the REAL sim host: the post-install check streams into the call pane, and a batch
aborted mid-run keeps the records already written (whole lines only) and stops the run in flight."""

from __future__ import annotations

import json
from pathlib import Path

from textual.widgets import Checkbox, DataTable, Input, Static
from tui_support import host_groups, make_workspace, run_async, shown, wait_for

from workbench.core.records import load_file
from workbench.modelstub import parse_script
from workbench.tui.app import make_app
from workbench.tui.messages import BatchFinished, BatchRunFinished, RunScored
from workbench.tui.screens.batch import BatchScreen
from workbench.tui.screens.postinstall import PostinstallScreen
from workbench.tui.screentext import screen_text
from workbench.tui.widgets.callpane import CallPane

COMMIT = {"steps": [{"calls": [{"read": "{plugin}/skills/ops/workflows/commit.md"}]},
                    {"calls": [{"edit": {"path": "{repo}/src/app.py", "old": "Helo", "new": "Hello"}}]},
                    {"calls": [{"shell": "git -C {repo} commit -qam 'Fix the typo'"}]}, {"say": "done"}]}


@run_async
async def test_post_install_check_on_sim_streams_calls_into_the_pane(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    app = make_app(ws)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await shown(pilot, app, "postinstall", PostinstallScreen)
        screen.home = home
        screen.script = parse_script(COMMIT)
        await pilot.press("ctrl+r")
        await wait_for(pilot, app, "RunScored")
        await pilot.pause(0.2)
        kinds = app.kinds()
        assert kinds.index("RunPathsKnown") < kinds.index("HostEventsSeen") < kinds.index("RunScored"), \
            "calls reach the pane while the host runs, before the record"
        scored = next(m for m in app.journal if isinstance(m, RunScored))
        record = scored.record
        assert record.condition == "live-install" and record.host == "sim" and record.overall == "fired"
        assert scored.note == "guard: no change outside the run"
        pane = screen.query_one(CallPane)
        assert pane.state is not None and [pane.state.cards[k].call.tool for k in pane.keys] == \
            [c.tool for c in record.calls]
        text = screen_text(app)
        assert "READ workflows/commit.md" in text and "<plugin>/skills/ops/workflows/commit.md" in text
        assert "fired" in str(screen.query_one("#verdict", Static).render())
        assert "guard: no change" in str(screen.query_one("#canary-status", Static).render())
        written = load_file(ws.records_dir / "live-install.jsonl").records
        assert [r.overall for r in written] == ["fired"]


@run_async
async def test_batch_abort_keeps_the_finished_records_and_stops_the_run_in_flight(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    gate = tmp_path / "gate"
    gate.mkdir()
    # the first run to take the gate ends at once; every later run hangs until it is stopped
    hang = {"steps": [{"calls": [{"shell": f"mkdir {gate}/first 2>/dev/null || sleep 120"}]}, {"say": "done"}]}
    app = make_app(ws)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await shown(pilot, app, "batch", BatchScreen)
        screen.script = parse_script(hang)
        screen.query_one("#confined", Checkbox).value = False
        screen.query_one("#runs", Input).value = "1"
        screen.query_one("#jobs", Input).value = "1"
        screen.query_one("#hosts", Input).value = "sim"
        await pilot.pause()
        planned = len(screen.form().cases) * len(screen.form().arms)
        assert planned >= 3
        await pilot.press("ctrl+r")
        await wait_for(pilot, app, "BatchRunFinished", cap=300)
        job = screen.job
        assert job is not None
        while not host_groups(job.workdir):  # the second run's host is up (and hanging)
            await pilot.pause(0.05)
        groups = host_groups(job.workdir)
        screen.query_one("#batch-results", DataTable).focus()
        await pilot.press("x")
        await wait_for(pilot, app, "BatchFinished", cap=120)
        done = next(m for m in app.journal if isinstance(m, BatchFinished))
        assert done.note.startswith("aborted by you"), done.note
        assert app.kinds().count("BatchRunFinished") == 1
        for pgid in groups:
            assert not Path(f"/proc/{pgid}").exists() or "Z" in Path(f"/proc/{pgid}/stat").read_text().split()[2]
        raw = (ws.records_dir / "batch.jsonl").read_bytes()
        assert raw.endswith(b"\n") and len(raw.splitlines()) == 1, "one whole record line, nothing torn"
        kept = json.loads(raw)
        finished = next(m for m in app.journal if isinstance(m, BatchRunFinished)).outcome.record
        assert kept["case_id"] == finished.case_id and kept["valid"] is True
