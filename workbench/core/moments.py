"""Moment specs: the action a routing row governs, and where in a run it first happened.

A spec is `edit`, `end`, `bash:<regex>`, `tool:<regex>`, a preset (`commit`, `pr`, `merge`,
`release`, `issue`), or a comma-separated list of those (the earliest wins). The moment is the
first ATTEMPT: a denied or failed call counts, because the agent had already decided to act.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from workbench.core.errors import InputError
from workbench.core.models import Call
from workbench.core.shell import commands_of, writes_of

AltKind = Literal["edit", "end", "bash", "tool", "preset"]


def _git_sub(words: Sequence[str]) -> tuple[str, Sequence[str]] | None:
    """`git [-C dir] [-c k=v] [--opts] SUB args...` -> (SUB, args)."""
    if not words or words[0].rsplit("/", 1)[-1] != "git":
        return None
    i = 1
    while i < len(words) and words[i].startswith("-"):
        i += 2 if words[i] in ("-C", "-c", "--git-dir", "--work-tree", "--namespace") else 1
    return (words[i], words[i + 1:]) if i < len(words) else None


def _gh(words: Sequence[str], group: str, actions: set[str]) -> bool:
    if not words or words[0].rsplit("/", 1)[-1] != "gh":
        return False
    rest = [w for w in words[1:] if not w.startswith("-")]
    return len(rest) >= 2 and rest[0] == group and rest[1] in actions


def is_commit(words: Sequence[str]) -> bool:
    """`git commit` (any global options); not the plumbing `git commit-tree`."""
    sub = _git_sub(words)
    return sub is not None and sub[0] == "commit"


def is_pr(words: Sequence[str]) -> bool:
    """Opening or updating a PR: `gh pr create|edit|ready`; reading commands are not."""
    return _gh(words, "pr", {"create", "edit", "ready"})


def is_merge(words: Sequence[str]) -> bool:
    """`git merge <ref>` (not `merge-base`, `--abort`, `--quit`) or `gh pr merge`."""
    if _gh(words, "pr", {"merge"}):
        return True
    sub = _git_sub(words)
    return sub is not None and sub[0] == "merge" and not {"--abort", "--quit"} & set(sub[1])


_TAG_NO_CREATE = {"-l", "--list", "-d", "--delete", "-v", "--verify", "--contains", "--no-contains",
                  "--merged", "--no-merged", "--points-at"}
_TAG_VALUE = {"-m", "--message", "-F", "--file", "-u", "--local-user", "--cleanup", "--sort", "--format",
              "--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--color"}


def is_release(words: Sequence[str]) -> bool:
    """`gh release create`, `npm|pnpm|yarn|cargo publish`, or `git tag NAME` creating a tag."""
    if _gh(words, "release", {"create"}):
        return True
    if len(words) >= 2 and words[0] in ("npm", "pnpm", "yarn", "cargo") and words[1] == "publish":
        return True
    sub = _git_sub(words)
    if sub is None or sub[0] != "tag":
        return False
    args = sub[1]
    names: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a in _TAG_NO_CREATE or re.fullmatch(r"-n\d*", a) or a.startswith(("--list", "--contains")):
            return False
        if a in _TAG_VALUE:
            i += 2
            continue
        if not a.startswith("-"):
            names.append(a)
        i += 1
    return bool(names)


def is_issue(words: Sequence[str]) -> bool:
    """`gh issue create`."""
    return _gh(words, "issue", {"create"})


PRESETS: dict[str, Callable[[Sequence[str]], bool]] = {
    "commit": is_commit,
    "pr": is_pr,
    "merge": is_merge,
    "release": is_release,
    "issue": is_issue,
}


@dataclass(frozen=True)
class MomentAlt:
    """One alternative of a moment spec."""

    kind: AltKind
    text: str
    pattern: re.Pattern[str] | None = None


@dataclass(frozen=True)
class MomentSpec:
    """A parsed moment spec: alternatives, the earliest of which is the moment."""

    text: str
    alternatives: tuple[MomentAlt, ...]

    def __hash__(self) -> int:
        """The text's hash (Python keeps it): the scorer's caches look a spec up per record, and equal
        specs have equal text."""
        return hash(self.text)


_NAMES = "|".join(["edit", "end", *PRESETS])
_SPLIT = re.compile(r",\s*(?=(?:" + _NAMES + r")\s*(?:,|$)|bash:|tool:)")


def parse_moment(spec: str) -> MomentSpec:
    """Parse `edit`, `end`, `bash:RE`, `tool:RE`, presets and comma lists; bad input -> InputError.

    Commas split alternatives only when followed by a known kind, so `bash:x{1,3}` stays whole.
    """
    text = spec.strip()
    if not text:
        raise InputError("empty moment spec", field="moment")
    alts: list[MomentAlt] = []
    for part in _SPLIT.split(text):
        part = part.strip()
        if part in ("edit", "end"):
            alts.append(MomentAlt(part, part))  # type: ignore[arg-type]
        elif part in PRESETS:
            alts.append(MomentAlt("preset", part))
        elif part.startswith(("bash:", "tool:")):
            kind, _, pattern = part.partition(":")
            if not pattern:
                raise InputError(f"empty regex in {part!r}", field="moment")
            try:
                compiled = re.compile(pattern)
            except re.error as err:
                raise InputError(f"bad regex {pattern!r}: {err}", field="moment") from None
            alts.append(MomentAlt(kind, part, compiled))  # type: ignore[arg-type]
        else:
            names = ", ".join(["edit", "end", "bash:RE", "tool:RE", *PRESETS])
            raise InputError(f"unknown moment {part!r} (expected one of {names})", field="moment")
    return MomentSpec(text, tuple(alts))


def shell_words(call: Call) -> Sequence[Sequence[str]]:
    """The simple commands of a shell call (empty for other calls)."""
    if call.kind != "shell" or not call.command:
        return ()
    return commands_of(call.command)


def is_edit_attempt(call: Call) -> bool:
    """An edit-kind tool call, or a shell call that writes a file (any status)."""
    if call.kind == "edit":
        return True
    return call.kind == "shell" and bool(call.command) and bool(writes_of(call.command or ""))


def matches(alt: MomentAlt, call: Call) -> bool:
    """True when `call` is an attempt at this alternative's action."""
    if alt.kind == "edit":
        return is_edit_attempt(call)
    if alt.kind == "tool":
        return alt.pattern is not None and alt.pattern.search(call.tool) is not None
    if alt.kind == "bash":
        pat = alt.pattern
        return pat is not None and any(pat.search(" ".join(w)) for w in shell_words(call))
    if alt.kind == "preset":
        if alt.text == "edit":
            return is_edit_attempt(call)
        test = PRESETS[alt.text]
        return any(test(w) for w in shell_words(call))
    return False


EDIT_EFFECTS: frozenset[str] = frozenset({"created", "modified", "deleted", "moved"})
PRESET_EFFECTS: dict[str, frozenset[str]] = {
    "commit": frozenset({"commit", "merge"}),
    "merge": frozenset({"merge"}),
    "release": frozenset({"tag"}),
}
"""The repo effects that are an attempt at each kind of moment; `pr`, `issue`, `bash:`, `tool:` and
`end` change nothing the watcher sees, so only their patterns decide."""


@functools.lru_cache(maxsize=512)
def effect_kinds(spec: MomentSpec) -> frozenset[str]:
    """The effect kinds (core/effects.py) that make a call the moment of SPEC (remembered per spec)."""
    kinds: set[str] = set()
    for alt in spec.alternatives:
        if alt.kind == "edit" or (alt.kind == "preset" and alt.text == "edit"):
            kinds |= EDIT_EFFECTS
        elif alt.kind == "preset":
            kinds |= PRESET_EFFECTS.get(alt.text, frozenset())
    return frozenset(kinds)


@functools.lru_cache(maxsize=512)
def _patterns(spec: MomentSpec) -> tuple[bool, tuple[MomentAlt, ...]]:
    """(whether SPEC has `end`, its other alternatives), remembered per spec."""
    return (any(a.kind == "end" for a in spec.alternatives),
            tuple(a for a in spec.alternatives if a.kind != "end"))


def matches_any(spec: MomentSpec, call: Call) -> bool:
    """Whether a moment pattern of SPEC (any alternative but `end`) matches CALL."""
    return any(matches(alt, call) for alt in _patterns(spec)[1])


def find_effect_moment(spec: MomentSpec, calls: Sequence[Call]) -> int | None:
    """Index of the first call whose stored effects (`Call.effects`) show an attempt at SPEC's action
    that no pattern recognised, or None.

    An effect corroborates the pattern, and is not an effect moment, when a pattern matches the call it
    is given to or one of the calls it could also be (`others`, an ambiguous attribution: parallel calls
    of one turn on a host that reports calls only when done)."""
    kinds = effect_kinds(spec)
    if not kinds:
        return None
    for at, call in enumerate(calls):
        if not call.effects:  # most calls: nothing the watcher saw
            continue
        for effect in call.effects:
            if effect.kind not in kinds:
                continue
            candidates = [at, *effect.others]
            if not any(matches_any(spec, calls[i]) for i in candidates if 0 <= i < len(calls)):
                return at
    return None


def find_moment(spec: MomentSpec | str, calls: Sequence[Call]) -> int | None:
    """Index of the first call matching any alternative; len(calls) for `end`; None: never."""
    parsed = parse_moment(spec) if isinstance(spec, str) else spec
    has_end, active = _patterns(parsed)
    for i, call in enumerate(calls):
        for alt in active:
            if matches(alt, call):
                return i
    return len(calls) if has_end else None
