"""Load the adversarial set (tests/data/adversarial): stored captures, hand labels, scoring them.

`scored(sid, host, spec)` parses a stored capture with the real parser (Codex with its rollout),
fills content evidence from the stored plugin copy (`content_evidence`), gives each call the repo
effects the watcher saw as the runner gives them (`attribute_run`, `Call.effects`), and scores it
with THE scorer. `python tests/adversarial_support.py SID [HOST]` prints a capture as a labeller
reads it: each call, its turn and status, the tool result the model received, and the scorer's view.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.core.effects import Attribution, CallSpan, Effect, attribute_run
from workbench.core.fingerprints import content_evidence
from workbench.core.models import Call, Score, ScoreSpec
from workbench.core.parsers import parse_lines
from workbench.core.scoring import score
from workbench.hosts import adapter
from workbench.runner.execute import with_effects
from workbench.runner.procedures import load_procedures

DATA = Path(__file__).parent / "data" / "adversarial"
CAPTURES = DATA / "captures"
PLUGIN = DATA / "plugin"
HOSTS = ("sim", "claude", "codex", "opencode", "gemini", "grok")
def scenarios() -> list[dict[str, Any]]:
    return json.loads((DATA / "scenarios.json").read_text(encoding="utf-8"))


def labels() -> dict[str, Any]:
    return json.loads((DATA / "labels.json").read_text(encoding="utf-8"))


def captured(sid: str, host: str) -> bool:
    return (CAPTURES / sid / f"{host}.stdout.jsonl").is_file()


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def parsed_calls(sid: str, host: str) -> list[Call]:
    """The stored run's calls, as the record builder gets them (Codex parsed with its rollout)."""
    folder = CAPTURES / sid
    rollout = folder / f"{host}.rollout.jsonl"
    session = _lines(rollout) if rollout.is_file() else None
    return parse_lines(host, _lines(folder / f"{host}.stdout.jsonl"), session).calls


@dataclass(frozen=True)
class Timing:
    spans: list[CallSpan]
    effects: list[Effect]
    asked: list[tuple[int, float]]


def timing(sid: str, host: str) -> Timing:
    """What the repo watcher saw, when each call's lines arrived and when the model server got each
    turn's request (seconds from the run's start; `asked` is empty in captures made without it)."""
    data = json.loads((CAPTURES / sid / f"{host}.effects.json").read_text(encoding="utf-8"))
    spans = [CallSpan(s["index"], s["started"], s["finished"], s["call_id"]) for s in data["spans"]]
    effects = [Effect(e["t"], e["path"], e["kind"], e.get("detail")) for e in data["effects"]]
    asked = [(a["turn"], a["t"]) for a in data.get("asked", [])]
    return Timing(spans, effects, asked)


def attributions(sid: str, host: str, calls: list[Call]) -> list[Attribution]:
    """The stored run's first changes given to CALLS as the runner gives them (`attribute_run`)."""
    t = timing(sid, host)
    timed = attribute_run(calls, t.effects, t.spans, t.asked, adapter(host).live_stream)
    return timed or []


def attributed(sid: str, host: str, calls: list[Call]) -> dict[int, list[tuple[Effect, str, tuple[int, ...]]]]:
    """Call index -> (first change, basis, other candidates)."""
    out: dict[int, list[tuple[Effect, str, tuple[int, ...]]]] = {}
    for a in attributions(sid, host, calls):
        out.setdefault(a.call, []).append((a.effect, a.basis, a.others))
    return out


def evidenced_calls(sid: str, host: str) -> list[Call]:
    """The stored run's calls with content evidence (and effects, see `with_effects`)."""
    calls = content_evidence(parsed_calls(sid, host), load_procedures(PLUGIN))
    return with_effects(calls, attributions(sid, host, calls))


def scored(sid: str, host: str, spec: ScoreSpec) -> Score:
    return score(spec, evidenced_calls(sid, host))


def received(sid: str, host: str) -> list[dict[str, Any]]:
    return json.loads((CAPTURES / sid / f"{host}.received.json").read_text(encoding="utf-8"))


def show(sid: str, host: str) -> str:
    """A capture as a labeller reads it (what the model received is the ground truth)."""
    calls = evidenced_calls(sid, host)
    results = received(sid, host) if host != "sim" else []
    got = {r.get("id"): r for r in results}
    by_id = all(c.call_id in got for c in calls)
    effects = attributed(sid, host, calls)
    lines = [f"== {sid} {host}"]
    for c in calls:
        what = c.command or c.path or c.skill
        lines.append(f"[{c.index}] turn={c.turn} {c.tool}/{c.kind} {c.status} exit={c.exit_code} "
                     f"evidence={c.evidence} unreadable={c.unreadable}\n    {what}")
        if host == "sim":
            text = c.output
        elif by_id:
            text = got[c.call_id].get("text")
        else:  # ids differ between stream and wire (Codex): by position
            text = results[c.index].get("text") if c.index < len(results) else None
        lines.append("    -> " + (text if text is not None else "<no result seen>").replace("\n", "\n       ")[:900])
        for e, basis, others in effects.get(c.index, []):
            lines.append(f"    effect: {e.kind} {e.path} ({basis}{' ' + str(others) if others else ''})")
    if host != "sim" and len(got) != len(calls):
        lines.append(f"!! {len(got)} results received for {len(calls)} calls: "
                     + json.dumps([r.get('text', '')[:80] for r in received(sid, host)]))
    return "\n".join(lines)


if __name__ == "__main__":
    for host in sys.argv[2:] or HOSTS:
        if captured(sys.argv[1], host):
            print(show(sys.argv[1], host))
