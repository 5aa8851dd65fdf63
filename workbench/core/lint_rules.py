"""The row-lint rules, as data: what each checks, its message, and the finding that motivated it.

`workbench.core.lint` runs the check named by each rule's id; this table is what docs/authoring.md
documents and what `workbench lint --rules` prints. Patterns live here, not in the checks, so a
rule can be tightened by editing one entry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Rule:
    """One lint rule: id, severity, message (may use {placeholders}), evidence, and parameters."""

    id: str
    severity: Severity
    message: str
    evidence: str
    pattern: str = ""


ACTION_WORDS = (
    "commit", "push", "open", "opening", "update", "edit", "change", "write", "run", "merge", "release",
    "tag", "deploy", "publish", "bump", "create", "delete", "rename", "start", "respond", "answer", "review",
    "diagnose", "debug", "install", "migrate", "add", "remove", "fix", "ship",
)
"""Bare verbs accepted after "before"/"when you" besides any -ing form ("Before you commit")."""

RULES: tuple[Rule, ...] = (
    Rule(
        id="no-before-clause",
        severity="error",
        message="{target}: no before-clause names the moment to read it",
        evidence='"Before opening or updating a PR" fired 5/5 where "claim readiness" fired 0/5: the reader '
                 "needs the action it is about to take, stated before the link.",
        pattern=r"\b(before|prior to|ahead of)\b",
    ),
    Rule(
        id="state-trigger",
        severity="error",
        message="trigger {trigger!r} names a state, not an action (use a verb: committing, opening a PR, ...)",
        evidence='"Claim readiness" (a state) read the procedure 0/5 times; "Before opening or updating a PR" '
                 "(an action) 5/5.",
        pattern=r"\b(before|when|while|after|prior to)\s+(you\s+|we\s+)?(\w+)",
    ),
    Rule(
        id="bare-conjunct",
        severity="error",
        message='{target} is joined by a bare "{joiner}" with no before-clause of its own',
        evidence='A second file joined to a row by a bare "and" was skipped by one model and read by others: '
                 "the conjunct does not say when the second file applies.",
        pattern=r"^\s*(?:,\s*)?(and|&|\+|or)\s*$",
    ),
    Rule(
        id="row-length",
        severity="warning",
        message="row is {length} characters (cap {cap}): long rows bury the trigger",
        evidence="Design heuristic, not yet measured: routing rows are scanned, and a trigger buried in a "
                 "long row competes with its own qualifiers. The cap is [audit] max_row_chars.",
    ),
    Rule(
        id="task-start-pointer",
        severity="warning",
        message="trigger {trigger!r} fires at every task start: it competes with the moment-specific rows",
        evidence="A task-start pointer added to one routing table regressed another row (it was read at the "
                 "start instead of at that row's moment).",
        pattern=r"\b(start|begin|beginning)\w*\s+(of\s+)?(any|every|each|a|the)?\s*(task|session|conversation)\b"
                r"|\balways\b",
    ),
)
RULES_BY_ID = {rule.id: rule for rule in RULES}
