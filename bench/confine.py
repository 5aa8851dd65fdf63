"""Benchmarks of the confinement (not timed tests): what a confined canary costs over an unconfined one.

1. The proof: first call of a session vs a cached one (`prove_cached`, same configuration).
2. One run's wrapper: a no-op (`true`) unconfined, in bwrap with a closed network and nothing to
   bridge (the sim), and with the model server bridged in (socat outside + inside, as for the real
   hosts on the scripted server). Medians over N.

Usage: python bench/confine.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from workbench.hosts.base import clean_env  # noqa: E402
from workbench.runner.confine import Confinement  # noqa: E402
from workbench.runner.proof import prove_cached  # noqa: E402


def _median_ms(argv: list[str], env: dict[str, str], runs: int) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    args = ap.parse_args()
    env = clean_env(os.environ)
    with tempfile.TemporaryDirectory(prefix="wb-bench-confine-") as tmp:
        base = Path(tmp)
        home = base / "home"
        home.mkdir()
        (home / "secret.txt").write_text("x\n")
        conf = Confinement(home)
        t = time.perf_counter()
        prove_cached(conf, base, env)
        first = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        prove_cached(conf, base, env)
        cached = (time.perf_counter() - t) * 1000
        rd = base / "run"
        for sub in ("home", "tmp", "repo"):
            (rd / sub).mkdir(parents=True)
        server = socket.socket()
        server.bind(("127.0.0.1", 0))
        server.listen()
        plain = _median_ms(["true"], env, args.runs)
        closed = _median_ms(conf.argv(rd, rd / "repo", ["true"]), env, args.runs)
        bridged = _median_ms(conf.argv(rd, rd / "repo", ["true"], reach=[f"127.0.0.1:{server.getsockname()[1]}"]),
                             env, args.runs)
        server.close()
    print(f"| proof, first of the session | {first:.0f} ms |")
    print(f"| proof, cached (same configuration) | {cached:.3f} ms |")
    print(f"| `true` alone | {plain:.1f} ms |")
    print(f"| `true` in bwrap, closed network, nothing bridged (sim) | {closed:.1f} ms |")
    print(f"| `true` in bwrap, model server bridged in (real hosts, scripted) | {bridged:.1f} ms |")


if __name__ == "__main__":
    main()
