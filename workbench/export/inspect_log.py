"""Run records as Inspect AI `.eval` logs that `inspect view` opens (extra `workbench[inspect]`).

Mapping: one log per host/model/effort and arm (arm → task); case → sample; the case's runs →
epochs (1, 2, ... in record order; the record's `run` is in the sample metadata); verdict → score
(`C` a hit, `I` a miss, the verdict as the answer; invalid runs carry an error instead); the calls up
to the moment → the transcript (one assistant tool call and one tool message per call, with the
report's READ / REFUSED / MOMENT marks). Records hold no prompt, so the sample input names the case.
Hits and accuracy come from `core.summary`, so the log agrees with `workbench summary`.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from workbench.core.errors import InputError
from workbench.core.models import RunRecord
from workbench.core.report import procedures, run_view
from workbench.core.summary import Cell, case_key, is_hit, overall, summarize

EXTRA = "pip install 'trigger-workbench[inspect]'"


def require_inspect() -> None:
    """Fail as bad input (exit 2) when the optional extra is not installed."""
    try:
        import inspect_ai  # noqa: F401
    except ImportError:
        raise InputError(f"inspect_ai is not installed: {EXTRA}", field="export inspect") from None


def _name(*parts: object) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", "-".join(str(p) for p in parts if p)).strip("-") or "log"


def _messages(view: dict[str, Any], record: RunRecord) -> list[Any]:
    from inspect_ai.model import ChatMessageAssistant, ChatMessageTool, ChatMessageUser
    from inspect_ai.tool import ToolCall, ToolCallError

    out: list[Any] = [ChatMessageUser(content=f"case {view['case']} ({record.kind}, row {record.target}); "
                                              f"moment {record.moment or '-'}; required {', '.join(record.required)}")]
    for call, shown in zip(record.calls, view["calls"], strict=True):
        call_id = call.call_id or f"call-{call.index}"
        arguments = {k: v for k, v in (("path", call.path), ("command", call.command), ("skill", call.skill)) if v}
        out.append(ChatMessageAssistant(content="", tool_calls=[ToolCall(id=call_id, function=call.tool,
                                                                         arguments=arguments)]))
        error = None
        if call.status == "denied":
            error = ToolCallError("permission", "refused")
        elif call.status == "error":
            error = ToolCallError("unknown", f"failed (exit {call.exit_code})")
        out.append(ChatMessageTool(content=call.result or "", tool_call_id=call_id, function=call.tool, error=error,
                                   metadata={"marks": shown["marks"], "reads": shown["reads"], "kind": call.kind}))
    return out


def _sample(record: RunRecord, epoch: int, known: Sequence[str]) -> Any:
    from inspect_ai.log import EvalError, EvalSample
    from inspect_ai.scorer import Score

    view = run_view(record, known)
    verdict = overall(record)
    scores = None if not record.valid else {"trigger": Score(
        value="C" if is_hit(record.kind, verdict) else "I", answer=verdict,
        explanation="hit: read before the moment" if record.kind == "positive" and is_hit(record.kind, verdict)
        else f"{record.kind} run: {verdict}",
        metadata={"verdict": dict(record.verdict), "required_read_at": dict(record.required_read_at),
                  "moment_at": record.moment_at, "entry_loaded_at": record.entry_loaded_at})}
    error = None if record.valid else EvalError(message=f"invalid run: {record.invalid_reason or 'unknown'}",
                                                traceback="", traceback_ansi="")
    return EvalSample(id=case_key(record), epoch=epoch, input=view["case"], target=", ".join(record.required),
                      messages=_messages(view, record), scores=scores, error=error,
                      metadata={"run": record.run, "batch": record.batch, "kind": record.kind, "target": record.target,
                                "condition": record.condition, "host_version": record.host_version, "valid": record.valid},
                      started_at=record.started_at, completed_at=record.finished_at)


def _log(cells: list[Cell], known: Sequence[str]) -> Any:
    from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalMetric, EvalResults, EvalScore, EvalSpec, EvalStats

    records = [r for c in cells for r in c.records]
    epochs: dict[str, int] = defaultdict(int)
    samples = []
    for r in records:
        epochs[case_key(r)] += 1
        samples.append(_sample(r, epochs[case_key(r)], known))
    hits, valid = sum(c.hits() for c in cells), sum(len(c.valid_records) for c in cells)
    first, group = cells[0], cells[0].group
    arm = "+".join(dict.fromkeys(n for c in cells for n in c.arm_names)) or first.arm or "unnamed"
    started = sorted(r.started_at for r in records if r.started_at)
    finished = sorted(r.finished_at for r in records if r.finished_at)
    served = next((r.served_model or r.model for r in records if r.served_model or r.model), None)
    spec = EvalSpec(created=started[0] if started else datetime.now(UTC).isoformat(), task=arm,
                    dataset=EvalDataset(name="workbench-cases", samples=len(epochs), sample_ids=list(epochs)),
                    model=f"{group.host}/{served or 'unknown'}", config=EvalConfig(epochs=max(epochs.values())),
                    metadata={"source": first.arm, "host": group.host, "effort": group.effort or None,
                              "reads_verified": group.verified,
                              "batches": sorted({r.batch for r in records if r.batch}),
                              "conditions": sorted({r.condition for r in records})})
    metric = {"accuracy": EvalMetric(name="accuracy", value=hits / valid if valid else 0.0)}
    results = EvalResults(total_samples=len(samples), completed_samples=valid,
                          scores=[EvalScore(name="trigger", scorer="workbench", metrics=metric,
                                            scored_samples=valid, unscored_samples=len(samples) - valid)])
    stats = EvalStats(started_at=started[0] if started else "", completed_at=finished[-1] if finished else "")
    return EvalLog(eval=spec, status="success", results=results, stats=stats, samples=samples)


def export(records: Sequence[RunRecord], out_dir: Path) -> list[Path]:
    """Write one `.eval` log per host/model/effort and arm into OUT_DIR; return their paths."""
    require_inspect()
    from inspect_ai.log import write_eval_log

    known = procedures(records)
    groups: dict[tuple[Any, ...], list[Cell]] = defaultdict(list)
    for cell in summarize(records).cells.values():
        if cell.records:
            groups[(cell.group, cell.arm)].append(cell)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for (group, arm), cells in groups.items():
        names = "+".join(dict.fromkeys(n for c in cells for n in c.arm_names))
        sha = (arm or "")[:7] if names else ""
        path = out_dir / f"{_name(names or arm, sha, group.host, group.model, group.effort)}.eval"
        write_eval_log(_log(cells, known), str(path), format="eval")
        paths.append(path)
    return paths
