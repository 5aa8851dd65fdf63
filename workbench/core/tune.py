"""Tune: propose wordings for one routing row and keep only what a held-back test confirms (pure parts).

- **The case split** (`split_cases`): the row's positive cases, ordered by a seeded hash of their ids,
  split once into selection cases (they decide between candidates) and held-back cases (they confirm
  the winner once); recorded in the workspace's tune memory so a rerun keeps it. Negatives are the
  row's own negatives plus near-misses: the sibling rows' positives, scored against this row's files.
- **Candidates** (`rule_candidates`): rewrites from lint — a before-clause naming the action the row's
  cases measure (`core.lint.moment_action`: the one mapping, lint's messages name it too), and its own
  clause for each linked file joined by a bare "and".
  `wording_key` tells duplicates and previously rejected wordings apart from new ones.
- **The decision** (`decide`): a winner must be decided strictly better than the current text on the
  selection cases on every host (the anytime-valid paired test of `batch --until-decided`, at
  alpha / candidates), confirmed once on the held-back cases (one-sided exact test on the discordant
  pairs), and open the row's files on negatives no more often than the current text on any host.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from workbench.core import stats
from workbench.core.lint import lint_rows, moment_action
from workbench.core.lint_rules import MOMENT_ACTIONS
from workbench.core.models import Case, RunRecord
from workbench.core.routing import Row, names_row, parse_text, required_key
from workbench.core.summary import pairs, summarize

Source = Literal["rules", "proposer", "author"]
Status = Literal["new", "duplicate", "rejected-before", "lint"]


@dataclass(frozen=True)
class Split:
    """The recorded split of a row's cases (ids)."""

    selection: tuple[str, ...]
    holdout: tuple[str, ...]
    negatives: tuple[str, ...]
    seed: int = 0


def row_positives(row: Row, rows: Sequence[Row], cases: Iterable[Case]) -> list[Case]:
    """The positive cases that target ROW."""
    return [c for c in cases if c.kind == "positive" and names_row(list(rows), c.target, row.id)]


def row_files(row: Row) -> list[str]:
    """The required keys of ROW's linked files (what a case names as `required`)."""
    return list(dict.fromkeys(required_key(link, row) for link in row.links))


def negatives_for(row: Row, rows: Sequence[Row], cases: Iterable[Case]) -> list[Case]:
    """The row's own negatives (they name the row, score every procedure, or score one of its files) and
    the near-misses: each sibling row's positive, as a negative scored against ROW's files."""
    files = row_files(row)
    own: list[Case] = []
    near: list[Case] = []
    for c in cases:
        if c.kind == "negative":
            scored = c.required or files
            if (names_row(list(rows), c.target, row.id) or any(_same_file(f, s) for f in files for s in scored)) \
                    and not any(_same_file(f, e) for f in files for e in c.exceptions):
                own.append(c)
        elif not names_row(list(rows), c.target, row.id) and not any(_same_file(f, r) for f in files for r in c.required):
            near.append(Case(id=f"near-{c.id}", target=row.id, kind="negative", prompt=c.prompt, required=files,
                             moment=c.moment, extra_files=dict(c.extra_files), branches=list(c.branches)))
    return own + near


def _same_file(a: str, b: str) -> bool:
    return a == b or a.endswith("/" + b) or b.endswith("/" + a)


def _rank(seed: int, row_id: str, case_id: str) -> str:
    return hashlib.sha256(f"{seed}\0{row_id}\0{case_id}".encode()).hexdigest()


def split_cases(row: Row, positives: Sequence[Case], negatives: Sequence[Case], *, seed: int = 0,
                recorded: Split | None = None) -> Split:
    """The split: a third of the positives (at least one) held back, chosen by a seeded hash of their ids;
    the rest select. A RECORDED split is kept; positives it does not know join the selection."""
    ids = [c.id for c in positives]
    neg = tuple(c.id for c in negatives)
    if recorded is not None:
        holdout = tuple(i for i in recorded.holdout if i in ids)
        selection = tuple(i for i in ids if i not in holdout)
        if holdout and selection:
            return Split(selection, holdout, neg, recorded.seed)
    ranked = sorted(ids, key=lambda i: _rank(seed, row.id, i))
    n_hold = max(1, round(len(ranked) / 3)) if len(ranked) >= 2 else 0
    holdout = tuple(sorted(ranked[:n_hold]))
    return Split(tuple(sorted(i for i in ids if i not in holdout)), holdout, neg, seed)


@dataclass(frozen=True)
class Candidate:
    """One wording for the row: its whole line, its trigger, where it came from, and what became of it."""

    text: str
    trigger: str
    source: Source
    status: Status = "new"
    note: str = ""
    arm: str | None = None


def wording_key(text: str) -> str:
    """What makes two wordings the same: case, whitespace and surrounding punctuation ignored."""
    return " ".join(re.sub(r"[|*`_]+", " ", text).lower().split()).strip(" .;:,")


def _action_of(row: Row, rows: Sequence[Row], cases: Iterable[Case]) -> str:
    moments = Counter(moment_action(c.moment) for c in row_positives(row, rows, cases))
    return moments.most_common(1)[0][0] if moments else MOMENT_ACTIONS["edit"][0]


def _own_clause(link_path: Path, rows: Sequence[Row], fallback: str) -> str:
    """The before-clause another row gives LINK_PATH as its first link, else "before FALLBACK"."""
    for other in rows:
        if other.links and other.links[0].path == link_path:
            m = re.search(r"\bbefore\s+[^;|]+", other.trigger, re.IGNORECASE)
            if m:
                return "before " + m.group(0)[len("before"):].strip().rstrip(".,")
    return f"before {fallback}"


def with_own_clauses(row: Row, rows: Sequence[Row], action: str) -> str:
    """ROW's line with each bare-"and" link given its own before-clause ("; before diagnosing it, [d](d.md)")."""
    line = row.text
    for prev, link in zip(row.links, row.links[1:], strict=False):
        if link.wording != "bare-and":
            continue
        clause = _own_clause(link.path, [r for r in rows if r.id != row.id], action)
        pattern = re.compile(rf"(\]\({re.escape(prev.target)}[^)]*\))\s*(?:,\s*)?(?:and|&|\+|or)\s*"
                             rf"(\[{re.escape(link.label)}\])")
        line = pattern.sub(rf"\1; {clause.replace(chr(92), chr(92) * 2)}, \2", line, count=1)
    return line


def with_trigger(row: Row, line: str, trigger: str) -> str:
    """LINE (ROW's line, maybe already edited) with the trigger replaced."""
    index = line.find(row.trigger)
    return line if index < 0 else line[:index] + trigger + line[index + len(row.trigger):]


def rule_candidates(row: Row, rows: Sequence[Row], cases: Iterable[Case]) -> list[Candidate]:
    """Lint's rewrites of ROW: a before-clause naming the action its cases measure (alone, and after the
    author's own words), each bare-"and" link given its own clause. Description rows get none."""
    if row.kind == "description" or not row.links:
        return []
    cases = list(cases)
    action = _action_of(row, rows, cases)
    base = with_own_clauses(row, rows, action)
    stem = row.trigger.strip().rstrip(".,;:")
    triggers: list[str] = []
    if not re.search(r"\b(before|prior to|ahead of)\b", stem, re.IGNORECASE):  # lint: no before-clause
        if action not in (MOMENT_ACTIONS["edit"][0], MOMENT_ACTIONS["end"][0]):  # alone, these fire at every task
            triggers.append(f"Before {action}")
        if stem:
            triggers.append(f"{stem}, before {action}")
    out = [Candidate(with_trigger(row, base, t), t, "rules") for t in triggers]
    if base != row.text:
        out.append(Candidate(base, row.trigger, "rules"))
    return out


def lint_problems(file_text: str, row: Row, new_line: str, plugin: Path | None, max_row_chars: int = 160) -> list[str]:
    """The lint errors of NEW_LINE in place of ROW (empty: it lints clean of errors); no row there is one."""
    lines = file_text.split("\n")
    if not 0 < row.line <= len(lines) or row.file is None:
        return ["the row's line is not in its file"]
    lines[row.line - 1] = new_line
    edited = [r for r in parse_text("\n".join(lines), row.file, plugin=plugin, problems=[]) if r.line == row.line]
    if not edited:
        return ["not a routing row"]
    found = lint_rows([replace(edited[0], id=row.id)], max_row_chars=max_row_chars)
    return [f"{f.rule}: {f.message}" for f in found if f.severity == "error"]


def screen(candidates: Iterable[Candidate], current: str, tried: dict[str, str]) -> list[Candidate]:
    """Mark duplicates (of the current text, of each other) and wordings TRIED before (key -> verdict)."""
    seen = {wording_key(current)}
    out = []
    for c in candidates:
        key = wording_key(c.text)
        if c.status != "new":
            out.append(c)
        elif key in seen:
            out.append(replace(c, status="duplicate", note="same wording as the current text or another candidate"))
        elif tried.get(key) == "rejected":
            out.append(replace(c, status="rejected-before", note="rejected by an earlier tune"))
        else:
            seen.add(key)
            out.append(c)
    return out


# --- the decision ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Paired:
    """Paired runs of the current text (A) and a candidate (B) on some cases of one host."""

    host: str
    pairs: int = 0
    only_a: int = 0
    only_b: int = 0
    hits_a: int = 0
    hits_b: int = 0


def paired_counts(records: Iterable[RunRecord], case_ids: Iterable[str], key_a: str, key_b: str,
                  host: str) -> Paired:
    """Pairs of valid runs of KEY_A and KEY_B (arm keys, `core.arms.Arm.key`: the sha, with `+env-…`
    when the arm gives the host an environment) on HOST over CASE_IDS, paired as every comparison
    pairs runs (`core.summary.pairs`: same model, effort, script, case, run index and repeat); a hit
    as the summary counts it (positive: read before the moment; negative: clean)."""
    ids = set(case_ids)
    summary = summarize(r for r in records if r.host == host and r.case_id in ids)
    both: list[tuple[bool, bool]] = []
    for (group, arm, target, kind), cell_a in summary.cells.items():
        cell_b = summary.cells.get((group, key_b, target, kind)) if arm == key_a else None
        if cell_b is not None:
            both += [pair for case_pairs in pairs(cell_a, cell_b).values() for pair in case_pairs]
    return Paired(host, len(both), sum(a and not b for a, b in both), sum(b and not a for a, b in both),
                  sum(a for a, _ in both), sum(b for _, b in both))


def confirm_p(p: Paired) -> float:
    """One-sided exact p-value (one look) that the candidate wins the held-back discordant pairs more
    often: P(X >= only_b) for X ~ Binomial(only_a + only_b, 1/2) (scipy's exact binomial test)."""
    from scipy.stats import binomtest

    n = p.only_a + p.only_b
    return float(binomtest(p.only_b, n, 0.5, alternative="greater").pvalue) if n else 1.0


def min_pairs(alpha: float) -> int:
    """Fewest pairs that can decide at ALPHA: every one discordant, all for the candidate."""
    n = 1
    while stats.paired_e_value(n, 0) < 1 / alpha:
        n += 1
    return n


def min_confirm(alpha: float) -> int:
    """Fewest held-back discordant pairs that can confirm at ALPHA."""
    n = 1
    while 0.5 ** n > alpha:
        n += 1
    return n


@dataclass(frozen=True)
class Verdict:
    """What the tune made of one candidate."""

    arm: str
    trigger: str
    selection: dict[str, Paired]
    e_values: dict[str, float]
    decided: bool
    reason: str


@dataclass(frozen=True)
class Decision:
    """The tune's answer: the winner (None: "no winner") and why, per candidate."""

    winner: str | None
    reason: str
    verdicts: list[Verdict] = field(default_factory=list)
    holdout: dict[str, Paired] = field(default_factory=dict)
    holdout_p: dict[str, float] = field(default_factory=dict)
    negatives: dict[str, Paired] = field(default_factory=dict)

    @property
    def gap(self) -> float | None:
        """Selection minus held-back gain of the winner's pick, in points of hit rate (pooled over hosts)."""
        best = next((v for v in self.verdicts if v.arm == self.picked), None)
        if best is None or not self.holdout:
            return None
        return round(100 * (_gain(best.selection.values()) - _gain(self.holdout.values())), 1)

    @property
    def picked(self) -> str | None:
        """The candidate that went to the held-back test (the winner, or the one it did not confirm)."""
        return self.winner or next((v.arm for v in self.verdicts if v.decided), None)


def _gain(paired: Iterable[Paired]) -> float:
    ps = list(paired)
    n = sum(p.pairs for p in ps)
    return 0.0 if n == 0 else (sum(p.hits_b for p in ps) - sum(p.hits_a for p in ps)) / n


def selection_verdict(arm: str, trigger: str, records: Sequence[RunRecord], key_a: str, key_b: str,
                      selection: Iterable[str], hosts: Sequence[str], alpha: float) -> Verdict:
    """Decided better on the selection cases on every host (anytime-valid, at ALPHA already corrected)?"""
    ids = list(selection)
    per = {h: paired_counts(records, ids, key_a, key_b, h) for h in hosts}
    out: dict[str, float] = {}
    reasons = []
    ok = True
    for h, p in per.items():
        d = stats.sequential_decision(p.only_a, p.only_b, p.pairs, alpha)
        out[h] = round(d.e_value, 4)
        if d.better != "B":
            ok = False
            reasons.append(f"{h}: current text better (e = {d.e_value:.3g})" if d.better == "A"
                           else f"{h}: undecided after {p.pairs} pairs (e = {d.e_value:.3g})")
    reason = "decided better on selection on every host" if ok else "; ".join(reasons)
    return Verdict(arm, trigger, per, out, ok, reason)


def pick(verdicts: Sequence[Verdict]) -> Verdict | None:
    """The decided candidate with the largest selection gain (then the largest smallest e-value)."""
    decided = [v for v in verdicts if v.decided]
    return max(decided, key=lambda v: (_gain(v.selection.values()), min(v.e_values.values())), default=None)


def decide(verdicts: Sequence[Verdict], holdout: dict[str, Paired] | None, negatives: dict[str, Paired] | None,
           alpha: float, *, budget_stop: str | None = None) -> Decision:
    """The winner, or "no winner" said plainly: the pick must be decided on selection, confirmed on the
    held-back cases on every host, and no worse on negatives on any host."""
    best = pick(verdicts)
    if best is None:
        why = "no candidate was decided better than the current text on the selection cases"
        if not verdicts:
            why = "no new candidate to test"
        return Decision(None, f"no winner: {why}" + (f" ({budget_stop})" if budget_stop else ""), list(verdicts))
    if holdout is None:
        return Decision(None, f"no winner: {best.arm} was decided on selection but not confirmed"
                        + (f" ({budget_stop})" if budget_stop else ""), list(verdicts))
    ps = {h: confirm_p(p) for h, p in holdout.items()}
    failed = [f"{h}: {holdout[h].only_b} vs {holdout[h].only_a} discordant, p = {ps[h]:.3g}" for h in holdout
              if not (holdout[h].only_b > holdout[h].only_a and ps[h] <= alpha)]
    if failed:
        return Decision(None, f"no winner: {best.arm} not confirmed on the held-back cases ({'; '.join(failed)})",
                        list(verdicts), holdout, ps)
    worse = [f"{h}: opened {p.pairs - p.hits_b} vs {p.pairs - p.hits_a} of {p.pairs}"
             for h, p in (negatives or {}).items() if p.hits_b < p.hits_a]
    if negatives is None:
        return Decision(None, f"no winner: {best.arm} confirmed but negatives not run"
                        + (f" ({budget_stop})" if budget_stop else ""), list(verdicts), holdout, ps)
    if worse:
        return Decision(None, f"no winner: {best.arm} opens the row's files on negatives more often "
                        f"({'; '.join(worse)})", list(verdicts), holdout, ps, negatives)
    return Decision(best.arm, f"winner: {best.arm} — decided on selection, confirmed on the held-back cases, "
                    "no worse on negatives", list(verdicts), holdout, ps, negatives)
