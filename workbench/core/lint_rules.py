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
    """One lint rule: id, severity, message (may use {placeholders}), what it checks, its evidence,
    a wording it flags and one it passes, and its pattern."""

    id: str
    severity: Severity
    message: str
    evidence: str
    pattern: str = ""
    checks: str = ""
    flags: str = ""
    passes: str = ""


ACTION_WORDS = (
    "commit", "push", "open", "opening", "update", "edit", "change", "write", "run", "merge", "release",
    "tag", "deploy", "publish", "bump", "create", "delete", "rename", "start", "respond", "answer", "review",
    "diagnose", "debug", "install", "migrate", "add", "remove", "fix", "ship",
)
"""Bare verbs accepted right after "before"/"when" besides any -ing form ("Before commit")."""

NOT_ACTIONS = (
    "are", "is", "am", "be", "were", "was", "have", "has", "had", "need", "needs", "want", "wants", "feel", "seem",
    "think", "know", "can", "could", "may", "might", "should", "must", "will", "would", "do", "does", "did", "get",
    "claim", "ready", "done", "finished", "unsure", "not", "already", "still",
)
"""After "before/when you|we|they|I" the next word is the subject's verb (any verb: "When you fill",
"When you stamp"); these words there name a state or a modal, not an action ("when you are ready")."""

FUNCTION_WORDS = (
    "a", "an", "the", "this", "that", "these", "those", "any", "all", "each", "every", "some", "no", "if", "for",
    "in", "on", "at", "of", "to", "with", "by", "from", "as", "and", "or", "not", "new", "large", "small", "big",
    "ready", "done", "claim", "general", "other", "misc", "notes", "about", "after", "once", "during", "until",
    "read", "see", "follow", "load", "consult", "refer", "check", "look", "open",
    "when", "whenever", "while", "before", "where", "wherever", "unless", "since", "because", "though",
    "although", "prior",
)
"""Words that, first in a trigger, never make it an imperative (determiners, prepositions, adjectives,
and the read itself: "Read the guide" names the read, not the action it precedes)."""

OBJECT_START = (r"^\s*(?:a|an|the|this|that|these|those|your|our|my|its|their|all|any|each|every|some|new|one|two"
                r"|[A-Z]{2,}\b|`|\"|')")
"""What follows an imperative's verb when it takes an object: a determiner, an acronym ("PDF"), a code span
or a quoted name. "Stamp PDF forms" and "Fill PDF forms" are imperatives alike; no closed verb list decides."""

IMPERATIVES = ACTION_WORDS + (
    "initialize", "initialise", "reload", "repair", "choose", "select", "map", "produce", "decompose",
    "retain", "learn", "use", "close", "retire", "resolve", "reconcile", "design", "plan", "implement", "test",
    "research", "reproduce", "prototype", "build", "draft", "specify", "spawn", "delegate", "dispatch",
    "consult", "ask", "record", "save", "generate", "refactor", "upgrade", "configure", "set", "modify",
    "investigate", "explain", "document", "grill", "stress-test", "prune", "profile", "benchmark", "port",
    "trace", "replace", "fill", "extract", "convert", "rotate", "split", "analyze", "analyse", "format", "parse",
    "search", "find", "query", "scrape", "translate", "summarize", "summarise", "sign", "encrypt", "validate",
    "verify", "lint", "package", "compile", "render", "export", "import", "upload", "download", "send", "schedule",
)
"""Verbs that, first in a trigger, make it an imperative naming the action ("Edit tracked files ...").
"claim" is deliberately absent: "Claim readiness" was measured as a state (0/5)."""

EVENT = r"\b(user|human|someone|they)\b[^.;]*\b(asks?|requests?|wants?|says?|mentions?|names?)\b"
"""A trigger that is an event in the conversation ("User explicitly asks to consult Grok")."""

RULES: tuple[Rule, ...] = (
    Rule(
        id="no-before-clause",
        severity="error",
        message="{target}: no clause names the moment to read it",
        checks="each linked file has its own clause naming the action it precedes: a before-clause or an "
               "imperative, in the trigger or the text before the link, OR trailing the link itself "
               "(\"[prose](p.md) before editing a `SKILL.md`\")",
        evidence="#182 (conformance/agentsmd/182-routing-sweep): the verification row \"Before opening or "
                 "updating a PR, claiming readiness, ...\" read 5/5 where the released \"claim readiness\" "
                 "read 0/5 (#181); the writing-for-agents row, whose later links carry trailing before-clauses, "
                 "read 3/3.",
        pattern=r"\b(before|prior to|ahead of)\b",
        flags="| When ready to ship | [release](release.md) |",
        passes="| Writing | [prose](prose.md) before editing a `SKILL.md` |",
    ),
    Rule(
        id="state-trigger",
        severity="error",
        message="trigger {trigger!r} names a state, not an action (use a verb: committing, opening a PR, ...)",
        checks="the row's trigger names an action: \"before/when <verb>ing\", an imperative first verb "
               "(\"Edit tracked files\", \"Initialize or reload ...\"), or a conversation event "
               "(\"User asks to ...\"); a noun phrase or condition (\"claim readiness\", \"when ready\") is a state",
        evidence="\"claim readiness\" read the verification procedure 0/5 (#181) and \"Before opening or updating a "
                 "PR\" 5/5 (#182); imperative rows (\"Edit tracked files or select a workspace\", \"Map dependent "
                 "unresolved decisions\", \"User explicitly asks to consult Grok\") read 3/3 in the #182 sweep, "
                 "so an imperative is not a state.",
        pattern=r"\b(before|when|whenever|while|after|prior to)\s+((?:you|we|they|i)\s+|are\s+|about to\s+)*(\w+)",
        flags="| When ready to ship | [release](release.md) |",
        passes="| Edit tracked files or select a workspace | [impl](implementation.md) |",
    ),
    Rule(
        id="bare-conjunct",
        severity="error",
        message='{target} is joined by a bare "{joiner}" with no clause of its own',
        checks='no link is joined to the previous one by a bare "and"/"&"/"+"/"or" without a clause of its own '
               '(also "Claim readiness and [verify](verify.md)")',
        evidence='A second file joined to a row by a bare "and" was skipped by one model and read by others: '
                 "the conjunct does not say when the second file applies (the demo's incident arm).",
        pattern=r"^\s*(?:,\s*)?(and|&|\+|or)\s*$",
        flags="| Before X | [a](a.md) and [b](b.md) |",
        passes="| Before X | [a](a.md); before Y, [b](b.md) |",
    ),
    Rule(
        id="row-length",
        severity="warning",
        message="row is {length} characters (cap {cap}): long rows bury the trigger",
        checks="the row's line is at most `[audit] max_row_chars` characters",
        evidence="Design heuristic, not yet measured: routing rows are scanned, and a trigger buried in a "
                 "long row competes with its own qualifiers. The cap is [audit] max_row_chars.",
    ),
    Rule(
        id="task-start-pointer",
        severity="warning",
        message="trigger {trigger!r} fires at every task start: it competes with the moment-specific rows",
        checks="the trigger does not fire at every task start (\"at the start of every task\", \"always\")",
        evidence="#182: fix1's widened task-start pointer dropped verification to 3/5 and made the question "
                 "negative open research/index.md 2/5; a task-start pointer competes with the moment rows.",
        pattern=r"\b(start|begin|beginning)\w*\s+(of\s+)?(any|every|each|a|the)?\s*(task|session|conversation)\b"
                r"|\balways\b",
        flags="| At the start of every task | [c](c.md) |",
        passes="| Before committing | [c](commit.md) |",
    ),
)
RULES_BY_ID = {rule.id: rule for rule in RULES}

MOMENT_ACTIONS: dict[str, tuple[str, str]] = {
    "edit": ("editing a file", r"\b(edit|writ|chang|modif|implement|fix|add|creat|updat|refactor)\w*"),
    "commit": ("committing", r"\bcommit\w*"),
    "pr": ("opening or updating a PR", r"\b(pr|prs|pull request|opening|open)\b"),
    "merge": ("merging", r"\bmerg\w*"),
    "release": ("tagging or shipping a release", r"\b(releas|tag|publish|ship)\w*"),
    "issue": ("opening an issue", r"\bissues?\b"),
    "end": ("answering", r"\b(answer|respond|repl|explain)\w*"),
}
"""Per moment preset: the action a before-clause names, and a pattern a trigger that names it matches."""

COMMAND_MOMENTS: tuple[tuple[str, str], ...] = (
    (r"\bgh pr merge\b|\bgit merge\b|merge_pull_request", "merge"),
    (r"\bgh pr (create|edit|ready)\b|\bgit push\b|pull_request", "pr"),
    (r"\bgit commit\b", "commit"),
    (r"\bgit tag\b|\bgh release\b|\b(npm|cargo|twine|poetry|yarn|pnpm) publish\b", "release"),
    (r"\bgh issue (create|new)\b|create_issue", "issue"),
    (r"^(edit|write|multiedit|notebookedit|apply_patch|replace|write_file)\b", "edit"),
)
"""A `bash:`/`tool:` moment whose command (its regex read as words) is one of these measures that preset's
action: `bash:^gh pr create` is opening a PR, so the trigger should name opening a PR."""

COMMAND_NOISE = ("git", "gh", "npm", "npx", "make", "run", "python", "python3", "bash", "uv", "mcp", "sudo", "the")
"""Words of a command that name no action (the program, not what it does)."""

MOMENT_RULE = Rule(
    id="moment-not-named",
    severity="error",
    message="trigger {trigger!r} never names {action} (the moment its cases measure: {moment})",
    checks="the trigger names the action the row's cases measure (their `moment`): a row measured at PR "
           "opening names opening a PR",
    evidence="\"Choose or run proof, review, or claim readiness\" starts with an imperative yet read 0/5 at PR "
             "opening (#181); \"Before opening or updating a PR\" read 5/5 (#182).",
    flags="| Choose or run proof, review, or claim readiness | [v](verify.md) |  (cases: moment pr)",
    passes="| Before opening or updating a PR | [v](verify.md) |",
)
