"""THE scorer: one pure function from a case's spec and a run's calls to verdicts.

Every caller (score command, canary, batch, rescore, TUI) uses `score()`, so a run is judged the
same way everywhere. Rules and the measurement error each prevents: docs/scoring.md.
"""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Mapping, Sequence

from workbench.core.hostinfo import infer_kind as infer_kind  # the importer's vocabulary lives with the hosts
from workbench.core.models import (
    MAIN_READER,
    Call,
    CaseKind,
    ContentEvidence,
    EvidenceConflict,
    FiredBy,
    MomentBasis,
    OrderBasis,
    ReadBasis,
    Score,
    ScoreSpec,
    Verdict,
)
from workbench.core.moments import MomentSpec, effect_kinds, find_effect_moment, find_moment, parse_moment
from workbench.core.paths import GLOB_CHARS as _GLOB_CHARS
from workbench.core.paths import either_suffix, segments, suffix_match
from workbench.core.shell import reads_of

SCORER_RULES = 5
"""Version of the scoring rules; bump when any rule changes a verdict, so old records can be rescored."""



def read_paths(call: Call) -> list[str]:
    """Paths a call SUCCESSFULLY read: a Read tool that returned ok, or a shell reader not refused."""
    return list(_read_paths(call))


def _read_paths(call: Call) -> tuple[str, ...]:
    """`read_paths`, as the shell analysis's remembered tuple where it can be (for callers that only look)."""
    kind = call.kind
    if kind == "read":
        return (call.path,) if call.status == "ok" and call.path else ()
    if kind != "shell" or call.status == "denied" or not call.command:
        return ()
    reads = reads_of(call.command)
    if not call.unreadable:
        return reads
    return tuple(p for p in reads if not any(either_suffix(p, u) for u in call.unreadable))


def content_of(call: Call, required: str) -> ContentEvidence | None:
    """What the call's output shows of REQUIRED: shown if any procedure it names was shown, absent if
    every one it names is absent, None without evidence (evidence keys are paths in the plugin copy)."""
    found = [e for path, e in call.evidence.items() if either_suffix(path, required)]
    if "shown" in found:
        return "shown"
    return "absent" if found else None


def judge_read(call: Call, required: str, command_read: bool) -> tuple[bool, ReadBasis, EvidenceConflict | None]:
    """Whether CALL read REQUIRED, on what basis, and the conflict when the evidence overrules the
    command analysis (`command_read`): shown makes a read, absent unmakes one, none leaves it."""
    content = content_of(call, required)
    claimed: ReadBasis = "tool-status" if call.kind == "read" else "command"
    if content is None:
        return command_read, claimed, None
    conflict = None
    if (content == "shown") != command_read:
        conflict = EvidenceConflict(call=call.index, required=required,
                                    command="read" if command_read else "no-read", content=content)
    return content == "shown", "content", conflict


def first_reads(required: Sequence[str], calls: Sequence[Call]) -> dict[str, int | None]:
    """Index of the first successful read of each required file, keyed by the file as given."""
    return read_evidence(required, calls)[0]


@functools.lru_cache(maxsize=512)
def _by_base(required: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """Required files grouped by base name (remembered: a file of records asks for the same few sets).
    Read-only: the dict is shared between calls."""
    out: dict[str, list[str]] = {}
    for req in required:
        parts = segments(req)
        out.setdefault(parts[-1] if parts else req, []).append(req)
    return {base: tuple(reqs) for base, reqs in out.items()}


_CLAIMS_KEPT = 8192
"""Read paths remembered per required set before its memo starts over (memory stays bounded)."""


@functools.lru_cache(maxsize=512)
def _claims_memo(required: tuple[str, ...]) -> dict[str, frozenset[str]]:
    """Read path -> the required files (of REQUIRED) it counts as a read of, filled by `_claims`: the
    records of a file read the same paths against the same few required sets."""
    return {}


def _claims(path: str, required: tuple[str, ...], memo: dict[str, frozenset[str]]) -> frozenset[str]:
    """The required files a successful read of PATH counts for: compared only with those of the same
    base name (globs with all), each by path suffix (`read_evidence`); remembered in MEMO."""
    got = memo.get(path)
    if got is None:
        parts = segments(path)
        base = parts[-1] if parts else path
        candidates = required if _GLOB_CHARS.intersection(base) else _by_base(required).get(base, ())
        if len(memo) >= _CLAIMS_KEPT:
            memo.clear()
        got = memo[path] = frozenset(r for r in candidates if suffix_match(path, r))
    return got


@functools.lru_cache(maxsize=512)
def _bases(required: tuple[str, ...]) -> tuple[str, ...]:
    """The base names of REQUIRED (`_by_base`)."""
    return tuple(_by_base(required))


_EXPANDS = re.compile(r"[\[{$`]")
"""What lets a shell word become a name the command's text does not spell: a bracket glob, a brace, a
variable or command substitution, ANSI-C quoting (`*` and `?` globs are matched, `_may_read`)."""
_PIECES = re.compile(r"[\s;|&()<>=,]+")


@functools.lru_cache(maxsize=4096)
def _may_read(command: str, bases: tuple[str, ...]) -> bool:
    """False when the shell analysis of COMMAND cannot find a read of a file named one of BASES, so it
    need not run (about 150 µs a new command; most commands of a file of records are new). Remembered,
    as the analysis is: a command met again costs a look-up, not a glob match.

    Every path it reads ends in a word of the command: with no expansion in the text (`_EXPANDS`), that
    word is the text with its quotes and backslashes taken out, so the base name is spelled there, or
    the word's last segment is a `*`/`?` glob, and then each piece of it (the text cut at blanks and
    operators) matches the base with anything around it. Conservative: True whenever a base name is
    spelled or a glob piece could match one."""
    flat = command.replace("\\\n", "").replace("\\", "").replace('"', "").replace("'", "")
    if any(base in flat for base in bases) or _EXPANDS.search(command):
        return True
    if "*" not in flat and "?" not in flat:
        return False
    for piece in _PIECES.split(flat):
        tail = piece.rstrip("/").rsplit("/", 1)[-1]
        if ("*" in tail or "?" in tail) and any(fnmatch.fnmatchcase(base, f"*{tail}*") for base in bases):
            return True
    return False


def read_evidence(required: Sequence[str], calls: Sequence[Call]
                  ) -> tuple[dict[str, int | None], dict[str, ReadBasis], list[EvidenceConflict]]:
    """First successful read of each required file (keyed as given), the basis of each, and every
    conflict between command analysis and content evidence over the whole run.

    Each call is analyzed once and a read path is only compared with required files of the same base
    name (globs with all). Two required files sharing a base name (`a/index.md`, `b/index.md`) are told
    apart here, once: a read counts for each required file it is a path suffix of, so `x/a/index.md`
    is a read of `a/index.md` only, while a bare `index.md` requirement accepts either. A call with
    content evidence is judged against every required file (`judge_read`)."""
    found: dict[str, int | None] = dict.fromkeys(required)
    basis: dict[str, ReadBasis] = {}
    conflicts: list[EvidenceConflict] = []
    keys = tuple(found)
    memo = _claims_memo(keys)
    missing = set(found)
    for i, call in enumerate(calls):
        if not call.evidence:  # no content evidence: the command analysis (or tool status) decides
            if not missing:
                continue
            if call.kind == "shell" and call.command and not _may_read(call.command, _bases(keys)):
                continue  # no shell analysis of a command that names none of the files
            paths = _read_paths(call)
            if not paths:
                continue
            newly = missing.intersection(_claims(paths[0], keys, memo))
            for path in paths[1:]:
                newly.update(missing.intersection(_claims(path, keys, memo)))
            if not newly:
                continue
            by_command: ReadBasis = "tool-status" if call.kind == "read" else "command"
            for req in found:  # in the case's order: read_basis is stored as built
                if req in newly:
                    found[req], basis[req] = i, by_command
            missing -= newly
            continue
        claimed: set[str] = set()
        for path in _read_paths(call):
            claimed.update(_claims(path, keys, memo))
        for req in found:
            did_read, why, conflict = judge_read(call, req, req in claimed)
            if conflict is not None:
                conflicts.append(conflict.model_copy(update={"call": i}))
            if did_read and req in missing:
                found[req], basis[req] = i, why
                missing.discard(req)
    return found, basis, conflicts


def reads_file(call: Call, required: str) -> bool:
    """Whether CALL successfully read REQUIRED, content evidence first (the entry file check)."""
    return judge_read(call, required, any(suffix_match(p, required) for p in read_paths(call)))[0]


def order_basis(calls: Sequence[Call]) -> OrderBasis:
    """turn when every call knows its model turn, else index (imported or older records)."""
    for call in calls:
        if call.turn is None:
            return "index"
    return "turn" if calls else "index"


def is_before(calls: Sequence[Call], read_at: int, moment_at: int, basis: OrderBasis) -> bool:
    """Whether the read at READ_AT came before the moment: issued in an EARLIER model turn (its result
    could reach the model before it chose the action), or by index when turns are unknown. The
    `end` moment (len(calls)) follows every read."""
    if read_at >= moment_at:
        return False
    if moment_at >= len(calls) or basis == "index":
        return True
    read_turn, moment_turn = calls[read_at].turn, calls[moment_at].turn
    return read_turn is not None and moment_turn is not None and read_turn < moment_turn


def _names_skill(call: Call, skill: str) -> bool:
    name = (call.skill or call.path or "").strip().lower()
    want = skill.strip().lower()
    return bool(name) and (name == want or name.rsplit(":", 1)[-1] == want.rsplit(":", 1)[-1])


def entry_loaded_at(spec: ScoreSpec, calls: Sequence[Call]) -> int | None:
    """First successful Skill call naming the entry skill, or first successful read of the entry file."""
    if not (spec.entry_skill or spec.entry_file):
        return None
    for i, call in enumerate(calls):
        if spec.entry_skill and call.kind == "skill" and call.status == "ok" and _names_skill(
                call, spec.entry_skill):
            return i
        if spec.entry_file and reads_file(call, spec.entry_file):
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


def judge_moment(spec: MomentSpec, calls: Sequence[Call]
                 ) -> tuple[int | None, MomentBasis | None, EvidenceConflict | None]:
    """The moment: the EARLIER of the pattern moment and the effect moment (the first call the repo
    watcher saw act that no pattern recognised), its basis, and the conflict when the effect decided."""
    pattern = find_moment(spec, calls)
    effect = find_effect_moment(spec, calls)
    if effect is not None and (pattern is None or effect < pattern):
        kinds = effect_kinds(spec)
        changed = ", ".join(f"{e.kind} {e.path}" for e in calls[effect].effects if e.kind in kinds)
        conflict = EvidenceConflict(call=effect, evidence="effect", command="no-action", effect=changed)
        return effect, "effect", conflict
    if pattern is None:
        return None, None, None
    return pattern, "end" if pattern >= len(calls) else "pattern", None


def fired_by(calls: Sequence[Call], reads: Mapping[str, int | None]) -> FiredBy:
    """Who made the first successful reads of a fired run: subagent when a delegated agent made any."""
    delegated = any(at is not None and calls[at].read_by != MAIN_READER for at in reads.values())
    return "subagent" if delegated else "main"


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
    moment_basis: MomentBasis | None = None
    moment_conflict: EvidenceConflict | None = None
    if isinstance(moment_at, _Unset):
        moment_at, moment_basis, moment_conflict = judge_moment(_parsed_moment(spec.moment), calls)
    reads, basis, conflicts = read_evidence(spec.required, calls)
    if moment_conflict is not None:
        conflicts = sorted([*conflicts, moment_conflict], key=lambda c: c.call)
    order = order_basis(calls)
    verdicts: dict[str, Verdict] = {}
    for key, at in reads.items():
        if not model_output:
            verdicts[key] = "no-output"
        elif spec.kind == "negative":
            verdicts[key] = "opened" if at is not None else "clean"
        elif moment_at is None:
            verdicts[key] = "read-noaction" if at is not None else "skip-noaction"
        else:
            verdicts[key] = "fired" if at is not None and is_before(calls, at, moment_at, order) else "skip"
    overall: Verdict = overall_verdict(spec.kind, verdicts) if model_output else "no-output"
    who = fired_by(calls, reads) if overall == "fired" else None
    return _new_score(reads=reads, verdicts=verdicts, overall=overall, moment_at=moment_at,
                      entry_loaded_at=entry_loaded_at(spec, calls), order_basis=order, read_basis=basis,
                      moment_basis=moment_basis, conflicts=conflicts, fired_by=who)


def _new_score(**fields: object) -> Score:
    """`Score(**fields)` for the scorer's own values, every field given in the model's order and of
    its exact type (built here), so pydantic's validation would keep them as they are; it is skipped
    (about 1.4 µs a record of a rescored file, out of 2.2). Score keeps no extra fields."""
    new = Score.__new__(Score)
    object.__setattr__(new, "__dict__", fields)
    object.__setattr__(new, "__pydantic_extra__", None)
    object.__setattr__(new, "__pydantic_fields_set__", set(fields))
    object.__setattr__(new, "__pydantic_private__", None)
    return new
