"""Benchmark of redaction (not a timed test): `Redactor.text` over about 1 MB of text with S random
secrets, median over R runs: multi-line log text, one base64 blob, and the same blob wrapped at 76.

Usage: python bench/redact.py [--secrets S] [--runs R]
"""

from __future__ import annotations

import argparse
import base64
import secrets
import statistics
import sys
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from workbench.runner.redact import Redactor  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--secrets", type=int, default=40)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    t = time.perf_counter()
    redactor = Redactor(secrets=[secrets.token_urlsafe(30) for _ in range(args.secrets)])
    print(f"{args.secrets} secrets, {len(redactor.forms)} forms: built in {(time.perf_counter() - t) * 1000:.0f} ms")
    blob = base64.b64encode(secrets.token_bytes(750_000)).decode()
    texts = {"log lines": "some ordinary log line with words and numbers 12345\n" * 20_000,
             "base64 blob": blob, "base64 wrapped": "\n".join(textwrap.wrap(blob, 76))}
    for name, text in texts.items():
        times = []
        for _ in range(args.runs):
            t = time.perf_counter()
            redactor.text(text)
            times.append(time.perf_counter() - t)
        print(f"{name:15s} {len(text) / 1e6:.2f} MB: median {statistics.median(times) * 1000:.0f} ms "
              f"(min {min(times) * 1000:.0f}, max {max(times) * 1000:.0f}, {args.runs} runs)")


if __name__ == "__main__":
    main()
