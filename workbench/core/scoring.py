"""THE scorer: one pure function from a case's spec and a run's calls to verdicts.

Every caller (score command, canary, batch, rescore, TUI) uses `score()`, so a run is judged the
same way everywhere. Rules and the measurement error each prevents: docs/scoring.md.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence

from workbench.core.models import Call, CallKind, CaseKind, Score, ScoreSpec, Verdict
from workbench.core.moments import find_moment, parse_moment
from workbench.core.paths import GLOB_CHARS as _GLOB_CHARS
from workbench.core.paths import either_suffix, segments, suffix_match
from workbench.core.shell import analyze

SCORER_RULES = 1
"""Version of the scoring rules; bump when any rule changes a verdict, so old records can be rescored."""

_KINDS: dict[str, CallKind] = {
    **dict.fromkeys(("Read", "read", "read_file", "view"), "read"),
    **dict.fromkeys(("Bash", "bash", "exec_command", "shell", "run_shell_command"), "shell"),
    **dict.fromkeys(("Edit", "Write", "MultiEdit", "apply_patch", "edit", "write", "replace", "write_file",
                     "str_replace_editor"), "edit"),
    **dict.fromkeys(("Skill", "skill"), "skill"),
    **dict.fromkeys(("Task", "Agent", "task", "agent"), "agent"),
}


def infer_kind(tool: str) -> CallKind:
    """The host-neutral kind of a tool known only by name (imported published records)."""
    return _KINDS.get(tool, "other")


def read_paths(call: Call) -> list[str]:
    """Paths a call SUCCESSFULLY read: a Read tool that returned ok, or a shell reader not refused."""
    if call.kind == "read":
        return [call.path] if call.status == "ok" and call.path else []
    if call.kind != "shell" or call.status == "denied" or not call.command:
        return []
    reads = analyze(call.command).reads
    return [p for p in reads if not any(either_suffix(p, u) for u in call.unreadable)]


def first_read(required: str, calls: Sequence[Call]) -> int | None:
    """Index of the first call that successfully read `required` (suffix match), or None."""
    return first_reads([required], calls)[required]


def first_reads(required: Sequence[str], calls: Sequence[Call]) -> dict[str, int | None]:
    """Index of the first successful read of each required file, keyed by the file as given.

    Each call is analyzed once and a read path is only compared with required files of the same base
    name (globs with all). Two required files sharing a base name (`a/index.md`, `b/index.md`) are told
    apart here, once: a read counts for each required file it is a path suffix of, so `x/a/index.md`
    is a read of `a/index.md` only, while a bare `index.md` requirement accepts either."""
    found: dict[str, int | None] = dict.fromkeys(required)
    by_base: dict[str, list[str]] = {}
    for req in found:
        by_base.setdefault(segments(req)[-1] if segments(req) else req, []).append(req)
    missing = set(found)
    for i, call in enumerate(calls):
        if not missing:
            break
        for path in read_paths(call):
            base = segments(path)[-1] if segments(path) else path
            candidates = missing if _GLOB_CHARS.intersection(base) else by_base.get(base, ())
            for req in [r for r in candidates if r in missing and suffix_match(path, r)]:
                found[req] = i
                missing.discard(req)
    return found


def _names_skill(call: Call, skill: str) -> bool:
    name = (call.skill or call.path or "").strip().lower()
    want = skill.strip().lower()
    return bool(name) and (name == want or name.rsplit(":", 1)[-1] == want.rsplit(":", 1)[-1])


def entry_loaded_at(spec: ScoreSpec, calls: Sequence[Call]) -> int | None:
    """First successful Skill call naming the entry skill, or first successful read of the entry file."""
    for i, call in enumerate(calls):
        if spec.entry_skill and call.kind == "skill" and call.status == "ok" and _names_skill(
                call, spec.entry_skill):
            return i
        if spec.entry_file and any(suffix_match(p, spec.entry_file) for p in read_paths(call)):
            return i
    return None


def overall_verdict(kind: CaseKind, verdicts: Mapping[str, Verdict]) -> Verdict:
    """Combine per-file verdicts into the run's verdict; no-output (no model output) wins."""
    values = list(verdicts.values())
    if "no-output" in values:
        return "no-output"
    if kind == "negative":
        return "opened" if "opened" in values else "clean"
    if all(v == "fired" for v in values):
        return "fired"
    if any(v in ("read-noaction", "skip-noaction") for v in values):
        return "read-noaction" if all(v == "read-noaction" for v in values) else "skip-noaction"
    return "skip"


_parsed_moment = functools.lru_cache(maxsize=512)(parse_moment)
"""parse_moment, remembered per spec text: rescoring a file parses the same few specs per record."""


class _Unset:
    """Marks 'find the moment from the spec' (the normal case)."""


FIND_MOMENT = _Unset()


def score(spec: ScoreSpec, calls: Sequence[Call], *, moment_at: int | None | _Unset = FIND_MOMENT,
          model_output: bool = True) -> Score:
    """Score one run. Pure: no I/O. Raises InputError for a bad moment spec.

    Reads and verdicts are keyed by each required file exactly as the case names it.
    `moment_at` may be given when the moment index is already known and its spec is not (records
    imported from a publisher who scored with its own moment rules): reads are still judged here.
    `model_output=False` (the model produced nothing) makes every verdict and the overall `no-output`:
    such a run is invalid, never a miss. This is the only place that rule is applied.
    """
    if isinstance(moment_at, _Unset):
        moment_at = find_moment(_parsed_moment(spec.moment), calls)
    reads = first_reads(spec.required, calls)
    verdicts: dict[str, Verdict] = {}
    for key, at in reads.items():
        if not model_output:
            verdicts[key] = "no-output"
        elif spec.kind == "negative":
            verdicts[key] = "opened" if at is not None else "clean"
        elif moment_at is None:
            verdicts[key] = "read-noaction" if at is not None else "skip-noaction"
        else:
            verdicts[key] = "fired" if at is not None and at < moment_at else "skip"
    overall: Verdict = overall_verdict(spec.kind, verdicts) if model_output else "no-output"
    return Score(reads=reads, verdicts=verdicts, overall=overall, moment_at=moment_at,
                 entry_loaded_at=entry_loaded_at(spec, calls))
