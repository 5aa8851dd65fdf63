"""A seeded stand-in for a model that reacts to routing-row WORDING. A simulation, not a model.

It exists for demos and instrument tests: it produces realistic-looking runs whose dependence on
wording is known by construction. Nothing it does is evidence about how any real model behaves.

What it does, deterministically for a given (prompt, plugin wording, seed):

1. Reads the routing tables of the plugin's skills with `workbench.core.routing.parse_table`
   (`| When | Read |` rows in each SKILL.md: a trigger cell and links relative to that SKILL.md).
2. Matches the prompt to the row whose trigger shares the most lightly-stemmed words with it
   (ties: the earlier row). No shared word: no row, so no Skill load and no procedure read.
3. For each file the row links, reads it BEFORE acting with a probability set by the wording
   (`WORDING_P`), else reads it after acting with `P_READ_AFTER`, else never.
4. Acts on the prompt: a question is answered in text; "commit" runs `git add -A && git commit`;
   a PR runs `gh pr create`; a release runs `git tag -a`; anything else edits one repo file.

The result is a host-neutral Script, so the same decision can be executed by the sim agent or
served to a real host by the scripted model server.
"""

from __future__ import annotations

import random
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from workbench.core.routing import Link, Row, Wording, parse_table
from workbench.modelstub.script import EditSpec, Script, ScriptCall, Step, WriteSpec
from workbench.sim.tools import frontmatter, plugin_skills

Action = Literal["answer", "commit", "pr", "release", "edit"]

WORDING_P: dict[Wording, float] = {
    "before-action": 0.9,  # "Before committing": fired 5/5 where a state-style wording did not
    "state": 0.4,          # "When ready to ship" / "Claim readiness": names a state, not the action
    "bare-and": 0.3,       # "... and [diagnosis](...)": a second file with no before-clause of its own
}
"""Probability that a linked file is read before acting, by the wording that links it."""

P_READ_AFTER = 0.25
"""Probability that a file not read before acting is read afterwards (a late read scores `skip`)."""

STOPWORDS = frozenset({
    "a", "an", "the", "to", "of", "or", "and", "in", "on", "for", "with", "my", "our", "this", "that", "it",
    "its", "is", "are", "be", "when", "before", "after", "while", "during", "please", "can", "could", "you",
    "i", "we", "me", "into", "from", "at", "as", "by", "do", "does", "any", "all", "so", "just", "now", "then",
    "some", "your", "there", "here", "if", "new",
})
SYNONYMS = {
    "pr": "pr", "prs": "pr", "documentation": "doc", "docs": "doc", "readme": "doc", "dependency": "depend",
    "dependencies": "depend", "deps": "depend", "dep": "depend", "outage": "incident", "down": "incident",
    "debug": "diagnos", "debugging": "diagnos", "failing": "diagnos", "broken": "diagnos",
    "ship": "ship", "shipping": "ship",
}
QUESTION_WORDS = frozenset({
    "what", "how", "why", "which", "who", "where", "should", "can", "could", "does", "is", "are", "explain",
    "describe",
})


def stem(word: str) -> str:
    """A light stemmer: synonyms, then -ing/-ed/-ies/-s and a final -e; `committing` -> `commit`."""
    word = word.lower()
    if word in SYNONYMS:
        return SYNONYMS[word]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            word = word[: -len(suffix)]
            if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiouls":
                word = word[:-1]
            break
    else:
        if word.endswith("ies") and len(word) > 4:
            word = word[:-3] + "y"
        elif word.endswith("s") and not word.endswith("ss") and len(word) > 3:
            word = word[:-1]
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


def words(text: str) -> set[str]:
    """Stemmed content words of TEXT ("pull request" counts as "pr")."""
    text = re.sub(r"pull[- ]requests?", " pr ", text.lower())
    return {stem(w) for w in re.findall(r"[a-z0-9]+", text) if w not in STOPWORDS}


def routing_rows(plugin: Path | None) -> list[Row]:
    """Every routing row of every skill the plugin offers, in file order."""
    rows: list[Row] = []
    for info in plugin_skills(plugin):
        _, body = frontmatter(info.path.read_text(encoding="utf-8"))
        offset = info.path.read_text(encoding="utf-8").count("\n") - body.count("\n")
        rows += parse_table(body, info.path, info.qualified, line_offset=offset)
    return rows


def match_row(prompt: str, rows: list[Row]) -> Row | None:
    """The row sharing the most stemmed words with the prompt (earliest on ties); None if none shares any."""
    want = words(prompt)
    best: Row | None = None
    best_score = 0
    for row in rows:
        score = len(want & words(row.trigger))
        if score > best_score:
            best, best_score = row, score
    return best


def classify(prompt: str) -> Action:
    """What the prompt asks for: an answer, a commit, a PR, a release, or (default) an edit."""
    text = prompt.strip()
    first = re.findall(r"[a-z]+", text.lower())[:1]
    if text.endswith("?") or (first and first[0] in QUESTION_WORDS):
        return "answer"
    stems = words(text)
    if "commit" in stems:
        return "commit"
    if "pr" in stems:
        return "pr"
    if stems & {"releas", "ship", "tag"}:
        return "release"
    return "edit"


@dataclass
class LinkDecision:
    """What the policy drew for one linked file."""

    link: Link
    p: float
    draw: float
    before: bool
    after: bool


@dataclass
class Decision:
    """The policy's whole choice for one run, with the draws that explain it."""

    prompt: str
    seed: int
    row: Row | None
    action: Action
    links: list[LinkDecision] = field(default_factory=list)
    script: Script | None = None

    def explain(self) -> str:
        """A human-readable account of the choice (for stderr and docs)."""
        if self.row is None:
            return f"sim policy: no routing row matches the prompt; action {self.action}, no procedure read"
        out = [f"sim policy: row {self.row.trigger!r} ({self.row.skill}, line {self.row.line}); action {self.action}"]
        for d in self.links:
            when = "before acting" if d.before else "after acting" if d.after else "never"
            out.append(f"  {d.link.target}: {d.link.wording} p={d.p:.2f} draw={d.draw:.3f} -> read {when}")
        return "\n".join(out)


def rng_for(seed: int, prompt: str, row: Row, link: Link) -> random.Random:
    """A generator fixed by (seed, prompt, the row's wording, the link): one draw never shifts another."""
    return random.Random(f"{seed}\0{prompt}\0{row.trigger}\0{link.target}\0{link.wording}")


def repo_files(repo: Path, limit: int = 2000) -> list[str]:
    """Repo-relative paths of regular files, outside `.git`, sorted."""
    found: list[str] = []
    for path in sorted(repo.rglob("*")):
        if ".git" in path.relative_to(repo).parts or not path.is_file():
            continue
        found.append(path.relative_to(repo).as_posix())
        if len(found) >= limit:
            break
    return found


def edit_target(prompt: str, repo: Path) -> str | None:
    """The repo file the prompt names (by path or base name), else README.md, else the first text file."""
    files = repo_files(repo)
    lowered = prompt.lower()
    for rel in sorted(files, key=len, reverse=True):
        if rel.lower() in lowered or Path(rel).name.lower() in re.findall(r"[\w./-]+", lowered):
            return rel
    for rel in files:
        if rel.lower() == "readme.md":
            return rel
    return files[0] if files else None


def edit_calls(prompt: str, repo: Path) -> list[Step]:
    """Read the target, then edit it: `change A to B` / `replace A with B` when A is there, else append a line."""
    target = edit_target(prompt, repo)
    if target is None:
        return [Step(calls=[ScriptCall(write=WriteSpec(path=str(repo / "NOTES.md"), content=f"{prompt}\n"))])]
    path = str(repo / target)
    try:
        text = (repo / target).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        text = ""
    found = re.search(r"(?:change|replace|set)\s+[\"'`]?(.+?)[\"'`]?\s+(?:to|with|into)\s+[\"'`]?(.+?)[\"'`]?\s*\.?$",
                      prompt, re.IGNORECASE)
    if found and found.group(1) in text:
        old, new = found.group(1), found.group(2)
    else:
        lines = [ln for ln in text.split("\n") if ln.strip()]
        if not lines or text.count(lines[-1]) != 1:
            return [Step(calls=[ScriptCall(read=path)]),
                    Step(calls=[ScriptCall(write=WriteSpec(path=path, content=text + f"\n{prompt.strip()}\n"))])]
        old, new = lines[-1], f"{lines[-1]}\n{prompt.strip()}"
    return [Step(calls=[ScriptCall(read=path)]), Step(calls=[ScriptCall(edit=EditSpec(path=path, old=old, new=new))])]


def action_steps(action: Action, prompt: str, repo: Path) -> list[Step]:
    """The calls that carry out the prompt's action (none for an answer)."""
    title = shlex.quote(" ".join(prompt.split())[:60])
    if action == "commit":
        return [Step(say="Committing the change.", calls=[ScriptCall(shell=f"git add -A && git commit -m {title}")])]
    if action == "pr":
        return [Step(say="Opening the pull request.",
                     calls=[ScriptCall(shell=f"gh pr create --title {title} --body {shlex.quote(prompt)}")])]
    if action == "release":
        return [Step(say="Tagging the release.", calls=[ScriptCall(shell="git tag -a v0.1.0 -m v0.1.0")])]
    if action == "edit":
        return edit_calls(prompt, repo)
    return []


def final_text(decision: Decision) -> str:
    """The closing text: for a question, an answer citing the procedure read (if any)."""
    if decision.action != "answer":
        return "Done."
    read = [d.link for d in decision.links if d.before]
    if not read:
        return "I'd handle it the usual way for this repository; no team procedure was consulted."
    steps = [ln.strip() for ln in read[0].path.read_text(encoding="utf-8").split("\n") if ln.strip()[:2] == "1."]
    first = steps[0] if steps else "follow it step by step"
    return f"Per {read[0].target}, start with: {first}"


def decide(prompt: str, *, repo: Path, plugin: Path | None, seed: int = 0) -> Decision:
    """The policy's run for PROMPT: matched row, draws per linked file, and the Script to execute."""
    repo = repo.resolve()
    row = match_row(prompt, routing_rows(plugin))
    decision = Decision(prompt, seed, row, classify(prompt))
    steps: list[Step] = []
    if row is not None:
        steps.append(Step(say=f"This is covered by the {row.skill} skill.", calls=[ScriptCall(skill=row.skill)]))
        for link in row.links:
            rng = rng_for(seed, prompt, row, link)
            p = WORDING_P[link.wording]
            draw = rng.random()
            before = draw < p
            decision.links.append(LinkDecision(link, p, draw, before, not before and rng.random() < P_READ_AFTER))
        before_reads = [ScriptCall(read=str(d.link.path)) for d in decision.links if d.before]
        if before_reads:
            steps.append(Step(say="Reading the procedure first.", calls=before_reads))
    steps += action_steps(decision.action, prompt, repo)
    late = [ScriptCall(read=str(d.link.path)) for d in decision.links if d.after]
    if late:
        steps.append(Step(say="Checking the procedure.", calls=late))
    steps.append(Step(say=final_text(decision)))
    decision.script = Script(steps=steps)
    return decision
