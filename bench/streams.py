"""Stream parse + score with content evidence vs the `json.loads` floor of the same files, side by side
in one process (not a timed test; docs/benchmarks.md). Inputs: every real-host capture of the
adversarial set (stdout, and Codex's rollout) with its plugin copy; target ratio <= 1.5.

With --parts, also each stage alone against the same floor (where the time goes): decoding with the
parsers' own decoder, parsing, loading the procedures (a cache hit touches no file),
content evidence and scoring.

Usage: python bench/streams.py [--repeat N] [--parts]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from workbench.core.fingerprints import content_evidence
from workbench.core.models import ScoreSpec
from workbench.core.parsers import parse_lines
from workbench.core.scoring import score
from workbench.runner.procedures import load_procedures

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "adversarial"
HOSTS = ("claude", "codex", "opencode", "gemini", "grok")
SPEC = ScoreSpec(kind="positive", required=["procedures/testing.md"], moment="edit")


def inputs() -> list[tuple[str, list[str], list[str] | None]]:
    out = []
    for folder in sorted((DATA / "captures").iterdir()):
        for host in HOSTS:
            stdout = folder / f"{host}.stdout.jsonl"
            if stdout.is_file():
                rollout = folder / f"{host}.rollout.jsonl"
                out.append((host, stdout.read_text().splitlines(),
                            rollout.read_text().splitlines() if rollout.is_file() else None))
    return out


def best(repeat: int, fn: object) -> float:
    times = []
    for _ in range(repeat):
        start = time.process_time()
        fn()  # type: ignore[operator]
        times.append(time.process_time() - start)
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--parts", action="store_true", help="also time each stage alone")
    args = parser.parse_args()
    runs = inputs()

    def floor() -> None:
        for _, lines, log in runs:
            for line in [*lines, *(log or [])]:
                if line.strip():
                    json.loads(line)

    plugin = DATA / "plugin"

    def workbench() -> None:
        for host, lines, log in runs:
            parsed = parse_lines(host, lines, log)
            score(SPEC, content_evidence(parsed.calls, load_procedures(plugin)))

    base, ours = best(args.repeat, floor), best(args.repeat, workbench)
    sys.stdout.write(f"| streams | json.loads CPU s | parse+evidence+score CPU s | ratio |\n|---:|---:|---:|---:|\n"
                     f"| {len(runs)} | {base:.3f} | {ours:.3f} | {ours / base:.2f} |\n")
    if args.parts:
        sys.stdout.write("\n| stage | CPU s | x json.loads |\n|---|---:|---:|\n")
        for name, fn in stages(runs).items():
            spent = best(args.repeat, fn)
            sys.stdout.write(f"| {name} | {spent:.4f} | {spent / base:.2f} |\n")
    return 0


def stages(runs: list[tuple[str, list[str], list[str] | None]]) -> dict[str, object]:
    """Each stage of `workbench()` alone, over the same inputs (inputs of a stage prepared beforehand)."""
    from workbench.core.parsers.common import loads

    plugin = DATA / "plugin"
    parsed = [parse_lines(host, lines, log) for host, lines, log in runs]
    procedures = load_procedures(plugin)
    evidenced = [content_evidence(p.calls, procedures) for p in parsed]

    def decode() -> None:
        for _, lines, log in runs:
            for line in [*lines, *(log or [])]:
                if line.strip():
                    loads(line)

    def parse() -> None:
        for host, lines, log in runs:
            parse_lines(host, lines, log)

    def load() -> None:
        for _ in runs:
            load_procedures(plugin)

    def evidence() -> None:
        for p in parsed:
            content_evidence(p.calls, procedures)

    def scoring() -> None:
        for calls in evidenced:
            score(SPEC, calls)

    return {"decode (pydantic_core, in parse)": decode, "parse (decode included)": parse,
            "load_procedures (cache hit)": load, "content evidence": evidence, "score": scoring}


if __name__ == "__main__":
    raise SystemExit(main())
