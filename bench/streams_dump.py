"""Every event, parsed run, evidenced call and score of every host stream under tests/data, as JSON:
run it before and after a parser or scorer change and compare the two files (they must be equal when
the change is meant to keep the output; docs/benchmarks.md). Scores are given under the bench's spec
and every labelled spec of the adversarial set.

Usage: python bench/streams_dump.py > before.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from workbench.core.fingerprints import content_evidence
from workbench.core.models import ScoreSpec
from workbench.core.parsers import make_parser, parse_lines
from workbench.core.scoring import score
from workbench.runner.procedures import load_procedures

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
HOSTS = ("claude", "codex", "opencode", "gemini", "grok", "sim")


def host_of(path: Path) -> str | None:
    """The host whose stream PATH holds, from its name or folder (None: not a stream; a rollout is
    read with its stdout)."""
    if ".rollout." in path.name:
        return None
    return next((h for h in HOSTS if path.name.startswith((f"{h}.", f"{h}-", f"{h}_")) or path.parent.name == h),
                None)


def specs() -> list[ScoreSpec]:
    labelled = json.loads((DATA / "adversarial" / "labels.json").read_text())["scenarios"]
    return [ScoreSpec(kind="positive", required=["procedures/testing.md"], moment="edit"),
            *(ScoreSpec.model_validate(label["spec"]) for s in labelled.values() for label in s["labels"])]


def dump(path: Path, host: str, procedures: dict[str, str], all_specs: list[ScoreSpec]) -> dict[str, object]:
    lines = path.read_text(errors="replace").splitlines()
    rollout = path.with_name(path.name.replace(".stdout.", ".rollout."))
    log = rollout.read_text().splitlines() if host == "codex" and rollout != path and rollout.is_file() else None
    parser = make_parser(host, log)
    events = [repr(parser.feed(line)) for line in lines] + [repr(parser.finish())]
    parsed = parse_lines(host, lines, log)
    calls = content_evidence(parsed.calls, procedures)
    scores = []
    for spec in all_specs:
        try:
            scores.append(score(spec, calls).model_dump_json())
        except Exception as exc:  # noqa: BLE001 - a refusal is part of the output compared
            scores.append(f"refused: {exc!r}")
    return {"file": path.relative_to(DATA).as_posix(), "events": events, "parsed": repr(parsed),
            "calls": [c.model_dump_json() for c in calls], "scores": scores}


def main() -> int:
    procedures = load_procedures(DATA / "adversarial" / "plugin")
    all_specs = specs()
    out = [dump(path, host, procedures, all_specs)
           for path in sorted(DATA.rglob("*.jsonl")) if (host := host_of(path)) is not None]
    json.dump(out, sys.stdout, indent=0)
    sys.stderr.write(f"{len(out)} streams\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
