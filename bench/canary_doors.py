"""What a confined canary costs over an unconfined one, end to end (not a timed test).

One sim canary through `execute` (fixture, plugin copy, host, parse, score, record) with a scripted
model, three ways, after one warm-up each (the first confined canary of a session pays the proof):
  today        unconfined, no guard (the canary before every door was confined)
  unconfined   --unconfined: no sandbox, the guard over the workspace still runs
  confined     the default: bwrap + closed network, proof cached, guard, sweep, redaction
Medians over N runs. A workspace like an author's (a small plugin repo, no big ignored folders):
`make_world`-like, built here.

Usage: python bench/canary_doors.py [--runs N]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from workbench.core.cases import find_case  # noqa: E402
from workbench.modelstub.script import parse_script  # noqa: E402
from workbench.runner import proof  # noqa: E402
from workbench.runner.execute import execute  # noqa: E402
from workbench.runner.request import build_request  # noqa: E402

SCRIPT = {"steps": [{"calls": [{"read": "{plugin}/skills/ops/workflows/docs.md"}]},
                    {"calls": [{"shell": "cat README.md"}]}, {"say": "done"}]}


def workspace(tmp: Path) -> Path:
    ws = tmp / "ws"
    (ws / "cases").mkdir(parents=True)
    shutil.copytree(ROOT / "plugin", ws / "plugin")
    shutil.copytree(ROOT / "fixtures", ws / "fixtures")
    shutil.copy(ROOT / "cases" / "docs-readme-section.toml", ws / "cases")
    for argv in (["git", "init", "-q"], ["git", "add", "."], ["git", "-c", "user.name=b", "-c", "user.email=b@b",
                                                              "commit", "-qm", "ws"]):
        subprocess.run(argv, cwd=ws, check=True)
    return ws


def one(ws: Path, home: Path, mode: str) -> float:
    case = find_case("docs-readme-section", ws / "cases")
    guarded = [] if mode == "today" else [ws]
    req = build_request(case, "sim", door="canary", plugin=ws / "plugin", script=parse_script(SCRIPT),
                        fixture=ws / "fixtures" / "base", home=home, checkouts=[ws], guarded=guarded,
                        own=[ws / "records.jsonl"], unconfined=mode != "confined")
    t = time.perf_counter()
    record = execute(req).record
    took = time.perf_counter() - t
    assert record.valid, record.invalid_reason
    return took


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ws = workspace(Path(tmp))
        home = Path(tmp) / "home"
        home.mkdir()
        (home / "secret.txt").write_text("x\n")
        proof._CACHE.clear()
        t = time.perf_counter()
        one(ws, home, "confined")
        first = time.perf_counter() - t
        medians = {}
        for mode in ("today", "unconfined", "confined"):
            one(ws, home, mode)
            medians[mode] = statistics.median(one(ws, home, mode) for _ in range(args.runs)) * 1000
        print(f"first confined canary of the session (with the proof): {first * 1000:.0f} ms")
        for mode, ms in medians.items():
            print(f"{mode:<11} median {ms:7.1f} ms  (+{ms - medians['today']:.1f} ms over today)")


if __name__ == "__main__":
    main()
