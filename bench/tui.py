"""Benchmarks of the Textual workbench (not timed tests); prints a markdown report for docs/benchmarks.md.

1. Cold start: the real `workbench` command in a 120x40 pseudo-terminal, from spawn until the first
   screen shows the demo's routing rows (median of N fresh processes).
2. Live pane lag: a scripted sim run of 10,000 calls through the real runner; for every call, the
   time from the moment its event left the host's stdout parser (worker thread) to the moment the
   pane first drew its card (flush), and meanwhile keypress round trips (input responsiveness).
   The app runs headless (Pilot): layout and render happen, terminal writes do not.

3. Batch-form keystroke latency: a records folder of N records (one real sim record, written N
   times with its run index changed), a digit typed into the runs field, timed from the key's post
   to the field's change handler having run (the estimate reads the records in a worker).

Usage: python bench/tui.py [--starts N] [--calls N] [--records N] [--out FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import pexpect

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][0-9A-Za-z]|\x1b[=>]")


def cold_start(n: int) -> list[float]:
    """Seconds from spawn to the rows on screen, N times, each a fresh process."""
    exe = shutil.which("workbench", path=str(Path(sys.executable).parent)) or "workbench"
    out = []
    with tempfile.TemporaryDirectory() as empty:  # no workbench.toml: the bundled demo
        for _ in range(n):
            t0 = time.perf_counter()
            child = pexpect.spawn(exe, cwd=empty, dimensions=(40, 120), encoding="utf-8",
                                  env={**os.environ, "TERM": "xterm-256color"})
            seen = ""
            while "dependency-update" not in ANSI.sub("", seen):
                seen += child.read_nonblocking(65536, timeout=30)
            out.append(time.perf_counter() - t0)
            child.send("q")
            child.expect(pexpect.EOF, timeout=20)
            child.close()
    return out


async def pane_lag(calls: int) -> dict[str, float]:
    """Lag per call (ms) and keypress round trips (ms) during a scripted sim run of CALLS calls."""
    from textual import events
    from tui_support import make_workspace

    from workbench.core.events import CallStarted
    from workbench.modelstub import parse_script
    from workbench.tui import jobs
    from workbench.tui.app import make_app
    from workbench.tui.screens.canary import CanaryScreen
    from workbench.tui.widgets.callpane import CallPane

    per_step = 100
    steps = [{"calls": [{"read": "{repo}/README.md"}] * per_step} for _ in range(calls // per_step)]
    steps.append({"calls": [{"edit": {"path": "{repo}/README.md", "old": "greeter", "new": "x"}}]})
    emitted: dict[int, float] = {}
    original = jobs.CanaryJob._seen

    def stamped(self: jobs.CanaryJob, event: object, post: jobs.Post) -> None:
        if isinstance(event, CallStarted):
            emitted.setdefault(event.call.index, time.perf_counter())
        original(self, event, post)

    jobs.CanaryJob._seen = stamped  # type: ignore[method-assign]
    with tempfile.TemporaryDirectory() as tmp:
        app = make_app(make_workspace(Path(tmp)))
        async with app.run_test(size=(120, 40)) as pilot:
            await app.action_show("canary")
            await pilot.pause(0.2)
            screen = app.screen
            assert isinstance(screen, CanaryScreen)
            screen.script = parse_script({"steps": steps})
            pane = screen.query_one(CallPane)
            pane.trace = {}
            screen.query_one("#case").value = "docs-readme-section"  # type: ignore[attr-defined]
            await pilot.pause(0.1)
            probed = asyncio.Event()
            app.bind("f12", "probe", show=False)
            app.action_probe = probed.set  # type: ignore[attr-defined]
            t0 = time.perf_counter()
            await pilot.press("ctrl+r")
            keys: list[float] = []
            while "RunScored" not in app.kinds():
                probed.clear()
                k0 = time.perf_counter()
                app.post_message(events.Key("f12", None))  # what a terminal's key becomes
                await asyncio.wait_for(probed.wait(), 60)
                keys.append((time.perf_counter() - k0) * 1000)
                await asyncio.sleep(0.05)
            wall = time.perf_counter() - t0
            await pilot.pause(0.2)
            state = pane.state
            assert state is not None
            lags = [(pane.trace[k] - emitted[state.cards[k].call.index]) * 1000
                    for k in pane.trace if state.cards[k].call.index in emitted]
    jobs.CanaryJob._seen = original  # type: ignore[method-assign]
    lags.sort()
    keys.sort()
    return {"calls": len(lags), "wall_s": wall, "lag_p50": lags[len(lags) // 2],
            "lag_p95": lags[int(len(lags) * 0.95)], "lag_max": lags[-1], "keys": len(keys),
            "key_p50": keys[len(keys) // 2], "key_p95": keys[int(len(keys) * 0.95)], "key_max": keys[-1]}


async def form_keys(n_records: int, presses: int = 40) -> dict[str, float]:
    """Milliseconds per keystroke on the batch form's runs field with N_RECORDS records on disk."""
    from textual.widgets import Input
    from tui_support import make_workspace

    from workbench.core.cases import find_case
    from workbench.runner.execute import execute
    from workbench.runner.request import build_request
    from workbench.tui.app import make_app
    from workbench.tui.screens.batch import BatchScreen

    with tempfile.TemporaryDirectory() as tmp:
        ws = make_workspace(Path(tmp))
        case = find_case("docs-readme-section", ws.cases_dir)
        record = execute(build_request(case, "sim", door="canary", plugin=ws.plugin_dir)).record
        ws.records_dir.mkdir()
        with (ws.records_dir / "batch.jsonl").open("w", encoding="utf-8") as out:
            for i in range(n_records):
                out.write(record.model_copy(update={"run": i}).model_dump_json() + "\n")
        app = make_app(ws)
        times: list[float] = []
        async with app.run_test(size=(120, 40)) as pilot:
            await app.action_show("batch")
            await pilot.pause(0.5)
            screen = app.screen
            assert isinstance(screen, BatchScreen)
            while "EstimateMade" not in app.kinds():  # the records are read once, in a worker
                await pilot.pause(0.1)
            runs = screen.query_one("#runs", Input)
            runs.focus()
            await pilot.pause(0.2)
            for i in range(presses):
                runs.value = ""
                await pilot.pause()
                t0 = time.perf_counter()
                await pilot.press(str(1 + i % 9))
                times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    return {"records": n_records, "presses": len(times), "p50": times[len(times) // 2],
            "p95": times[int(len(times) * 0.95)], "max": times[-1]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--starts", type=int, default=5)
    ap.add_argument("--calls", type=int, default=10_000)
    ap.add_argument("--records", type=int, default=100_000)
    ap.add_argument("--out")
    args = ap.parse_args()
    load_before = os.getloadavg()[0]
    starts = cold_start(args.starts)
    lag = asyncio.run(pane_lag(args.calls))
    form = asyncio.run(form_keys(args.records))
    load = os.getloadavg()[0]
    lines = [
        f"Measured {time.strftime('%Y-%m-%d')} on {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, load average {load_before:.1f} at the start and {load:.1f} at the end.",
        "",
        "| measure | result | target |",
        "|---|---:|---:|",
        f"| cold start to the rows on screen (median of {len(starts)}, min–max) | "
        f"{statistics.median(starts):.2f} s ({min(starts):.2f}–{max(starts):.2f}) | ≤ 0.6 s |",
        f"| pane lag behind the host's stdout, p50 ({lag['calls']:,} calls) | {lag['lag_p50']:.0f} ms | ≤ 50 ms |",
        f"| pane lag, p95 / max | {lag['lag_p95']:.0f} / {lag['lag_max']:.0f} ms | |",
        f"| keypress round trip during the run, p50 / p95 / max ({lag['keys']} presses) | "
        f"{lag['key_p50']:.0f} / {lag['key_p95']:.0f} / {lag['key_max']:.0f} ms | responsive |",
        f"| whole 10,000-call sim run in the app | {lag['wall_s']:.1f} s | |",
        f"| batch-form keystroke, {form['records']:,} records on disk, p50 / p95 / max ({form['presses']} keys) | "
        f"{form['p50']:.0f} / {form['p95']:.0f} / {form['max']:.0f} ms | never waits on disk |",
    ]
    report = "\n".join(lines)
    print(report)
    if args.out:
        Path(args.out).write_text(report + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
