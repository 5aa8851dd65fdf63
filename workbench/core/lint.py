"""Row lint: each routing row checked against the rules in `lint_rules` (rules are data there).

A finding names the file, line, row id and rule; `lint_rows` never reads anything but the rows.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.core.lint_rules import (
    ACTION_WORDS,
    COMMAND_MOMENTS,
    COMMAND_NOISE,
    EVENT,
    FUNCTION_WORDS,
    IMPERATIVES,
    MOMENT_ACTIONS,
    MOMENT_RULE,
    NOT_ACTIONS,
    OBJECT_START,
    RULES,
    RULES_BY_ID,
    Rule,
    Severity,
)
from workbench.core.routing import Row, find_row

if TYPE_CHECKING:
    from workbench.core.models import Case


@dataclass(frozen=True)
class Finding:
    """One rule broken by one row (or one file, for audit findings)."""

    rule: str
    severity: Severity
    message: str
    file: Path | None
    line: int | None
    row: str | None = None

    def where(self, root: Path | None = None) -> str:
        """`path:line` relative to ROOT when possible."""
        if self.file is None:
            return "-"
        path = self.file
        if root is not None:
            with contextlib.suppress(ValueError):
                path = self.file.relative_to(root)
        return f"{path}:{self.line}" if self.line is not None else str(path)

    def as_dict(self) -> dict[str, object]:
        return {"rule": self.rule, "severity": self.severity, "message": self.message,
                "file": str(self.file) if self.file else None, "line": self.line, "row": self.row}


def _finding(rule: Rule, row: Row, **values: object) -> Finding:
    return Finding(rule.id, rule.severity, rule.message.format(**values), row.file, row.line, row.id)


def names_action(trigger: str, rule: Rule | None = None) -> bool:
    """True when TRIGGER names an action: a clause verb after before/when/... (-ing, a known verb, or any
    verb after a subject pronoun: "when you fill"), an imperative first verb (a known verb, or any word
    that takes an object: "Stamp PDF forms"), or a conversation event ("User asks ...")."""
    text = trigger.strip(" \t*_`—–-:;,.()")
    pattern = rule.pattern if rule is not None else RULES_BY_ID["state-trigger"].pattern
    for m in re.finditer(pattern, text, re.IGNORECASE):
        word = m.group(3).lower()
        subject = (m.group(2) or "").strip().lower() in ("you", "we", "they", "i")
        if word.endswith("ing") or word in ACTION_WORDS or (subject and word not in NOT_ACTIONS):
            return True
    words = re.findall(r"[a-z][a-z-]*", text.lower())
    if words and words[0] in IMPERATIVES:
        return True
    first = re.match(r"\s*([A-Za-z][a-z-]*)\b(.*)", text)
    if first and first.group(1).lower() not in FUNCTION_WORDS and not first.group(1).lower().endswith(("ly", "ed")) \
            and re.match(OBJECT_START, first.group(2)):
        return True
    if re.search(EVENT, text, re.IGNORECASE):
        return True
    return bool(words) and words[0].endswith("ing") and words[0] not in ("nothing", "something", "everything")


def names_moment(text: str, rule: Rule) -> bool:
    """A before-clause (the rule's pattern) or an action named by an imperative or event."""
    return bool(re.search(rule.pattern, text, re.IGNORECASE)) or names_action(text)


def own_clauses(row: Row, index: int) -> tuple[str, str]:
    """(text before, text after) that belong to link INDEX: the trigger counts for the first link."""
    link = row.links[index]
    before = link.gap if index else f"{row.trigger} {link.gap}" if row.kind == "table" else link.gap or row.trigger
    return before, link.after


BARE_READ = r"^\W*(follow|read|see|use|load|consult|apply|open)\s+(the\s+)?\[[^\]]*\]\([^)]*\)[\s.!]*$"
"""A row that is only "Follow [g](g.md)." (no clause of its own): the Skill's own trigger governs it."""


def bare_read(row: Row) -> bool:
    """ROW is an imperative read with no trigger of its own ("Follow [g](g.md).")."""
    return bool(re.match(BARE_READ, row.text.strip(), re.IGNORECASE))


def check_no_before_clause(rule: Rule, row: Row, _cap: int) -> Iterable[Finding]:
    if bare_read(row):
        return
    for i, link in enumerate(row.links):
        before, after = own_clauses(row, i)
        if link.wording == "bare-and" or not (names_moment(before, rule) or re.search(rule.pattern, after, re.I)):
            yield _finding(rule, row, target=link.target)


def check_state_trigger(rule: Rule, row: Row, _cap: int) -> Iterable[Finding]:
    if not row.links or bare_read(row):
        return
    before, after = own_clauses(row, 0)
    if not names_action(before, rule) and not names_action(after, rule):
        yield _finding(rule, row, trigger=row.trigger)


def check_bare_conjunct(rule: Rule, row: Row, _cap: int) -> Iterable[Finding]:
    tail = re.search(r"(?:^|\s)(and|&|\+|or)\s*$", row.trigger, re.IGNORECASE)
    if row.links and tail:  # "Claim readiness and [verify](verify.md)": the first link is the conjunct
        yield _finding(rule, row, target=row.links[0].target, joiner=tail.group(1))
    for link in row.links[1:]:
        m = re.match(rule.pattern, link.gap, re.IGNORECASE)
        if m and link.wording == "bare-and":
            yield _finding(rule, row, target=link.target, joiner=m.group(1))


def check_row_length(rule: Rule, row: Row, cap: int) -> Iterable[Finding]:
    length = len(row.text.strip())
    if row.kind != "description" and length > cap:
        yield _finding(rule, row, length=length, cap=cap)


def check_task_start_pointer(rule: Rule, row: Row, _cap: int) -> Iterable[Finding]:
    if row.links and re.search(rule.pattern, row.trigger, re.IGNORECASE):
        yield _finding(rule, row, trigger=row.trigger)


CHECKS: dict[str, Callable[[Rule, Row, int], Iterable[Finding]]] = {
    "no-before-clause": check_no_before_clause,
    "state-trigger": check_state_trigger,
    "bare-conjunct": check_bare_conjunct,
    "row-length": check_row_length,
    "task-start-pointer": check_task_start_pointer,
}
assert set(CHECKS) == set(RULES_BY_ID), "every rule has a check and every check a rule"


def lint_rows(rows: Iterable[Row], *, max_row_chars: int = 160, rules: Iterable[Rule] = RULES) -> list[Finding]:
    """Every finding of RULES on ROWS, in row order."""
    rules = list(rules)
    return [finding for row in rows for rule in rules for finding in CHECKS[rule.id](rule, row, max_row_chars)]


def _command_words(part: str) -> tuple[str, str] | None:
    """(kind, command as words) of a `bash:RE` or `tool:RE` moment part, else None."""
    kind, _, rest = part.partition(":")
    if kind not in ("bash", "tool") or not rest:
        return None
    if kind == "bash":
        literal = re.sub(r"\\(.)", r"\1", re.sub(r"[\^$()|?*+\[\]{}]|\\[bsdw]", " ", rest))
    else:
        literal = re.sub(r"[^A-Za-z0-9_-]+", " ", rest)
    return kind, " ".join(literal.split())


def command_preset(part: str) -> str | None:
    """The preset a `bash:`/`tool:` moment part measures (`bash:^gh pr create` -> `pr`), else None."""
    found = _command_words(part)
    if found is None:
        return None
    return next((preset for pattern, preset in COMMAND_MOMENTS if re.search(pattern, found[1], re.IGNORECASE)), None)


def moment_action(moment: str) -> str:
    """The action a before-clause should name for MOMENT (`pr` -> "opening or updating a PR"); `bash:RE`
    names the command RE spells (`bash:^make\\s+deploy` -> "running `make deploy`") or, for a command a
    preset covers, that preset's action (`bash:^gh pr create` -> "opening or updating a PR"); `tool:RE` the
    tool; a comma list joins its alternatives with "or". The one mapping: lint's messages and tune's rewrites."""
    named = []
    for part in (p.strip() for p in moment.split(",")):
        found, preset = _command_words(part), command_preset(part)
        if part in MOMENT_ACTIONS:
            named.append(MOMENT_ACTIONS[part][0])
        elif preset is not None:
            named.append(MOMENT_ACTIONS[preset][0])
        elif found is not None and found[1]:
            named.append(f"running `{found[1]}`" if found[0] == "bash" else f"calling {found[1]}")
        elif part:
            named.append(part)
    return " or ".join(dict.fromkeys(named)) or "the action"


def moment_pattern(part: str) -> str | None:
    """A pattern a trigger naming MOMENT part's action matches (None: not checked): a preset's, a command a
    preset covers, else any word of the command that is not the program (`make deploy` -> deploy)."""
    if part in MOMENT_ACTIONS:
        return MOMENT_ACTIONS[part][1]
    preset = command_preset(part)
    if preset is not None:
        return MOMENT_ACTIONS[preset][1]
    found = _command_words(part)
    words = [w for w in re.split(r"[\s_-]+", found[1].lower()) if len(w) > 2 and w not in COMMAND_NOISE] if found \
        else []
    return r"\b(" + "|".join(re.escape(w[:max(4, len(w) - 2)]) for w in words) + r")\w*" if words else None


def case_moments(rows: list[Row], cases: Iterable[Case]) -> dict[str, str]:
    """Row id -> the moment its positive CASES measure (the first case's, in case order)."""
    out: dict[str, str] = {}
    for case in cases:
        row = find_row(rows, case.target) if case.kind == "positive" and case.target else None
        if row is not None and case.moment:
            out.setdefault(row.id, case.moment)
    return out


def lint_moments(rows: Iterable[Row], moments: dict[str, str]) -> list[Finding]:
    """A `moment-not-named` finding per row whose trigger never names the action its cases measure
    (MOMENTS: row id -> the moment its positive cases use)."""
    out: list[Finding] = []
    for row in rows:
        moment = moments.get(row.id)
        if not moment or not row.links:
            continue
        parts = [p.strip() for p in moment.split(",")]
        if any(p in ("edit", "end") for p in parts):
            continue  # the work's first write or its end: any action the trigger names comes first
        if any(command_preset(p) == "edit" for p in parts):
            continue
        patterns = [found for p in parts if (found := moment_pattern(p)) is not None]
        text = " ".join([row.trigger, *(lk.clause for lk in row.links)])
        if patterns and not any(re.search(p, text, re.IGNORECASE) for p in patterns):
            out.append(_finding(MOMENT_RULE, row, trigger=row.trigger, action=moment_action(moment), moment=moment))
    return out
