"""The listing model: what a host offers, drops and clips, and `offered(row, listing)`."""

from __future__ import annotations

from pathlib import Path

from dataclasses import replace

from workbench.core.listing import LIMITS, Entry, budget_chars, listing, not_offered_reason, offered
from workbench.core.routing import Row


def test_claude_cuts_every_long_description_to_an_even_share_and_lists_names_under_twenty() -> None:
    lim = replace(LIMITS["claude"], default_context=None, default_chars=85)
    entries = [Entry("a", Path("a/SKILL.md"), "Use when committing work in a repository"),
               Entry("b", Path("b/SKILL.md"), "short"), Entry("c", Path("c/SKILL.md"), "y" * 50)]
    shown = listing("claude", entries, limits=lim)  # room 85 - 3*5 - 2 = 68: a share of 22 each
    assert shown.shown == {"a": "Use when committing wo", "b": "short", "c": "y" * 22} and shown.clipped == ["a", "c"]
    assert not shown.dropped
    assert offered(Row("b", "short", (), 1, kind="description"), shown)
    why = not_offered_reason(Row("a", "Use when committing work in a repository", (), 1, kind="description"), shown)
    assert why and "cut to 22 of 40" in why
    assert offered(Row("c", "x", (), 1, kind="table"), shown), "a table row of a listed Skill is offered"
    tight = listing("claude", entries, limits=replace(lim, default_chars=70))  # share 17 < 20: names only
    assert set(tight.shown.values()) == {""}
    assert "by name only" in str(not_offered_reason(Row("b", "short", (), 1, kind="description"), tight))


def test_codex_shortens_then_omits_the_last_skills_when_bare_names_overflow() -> None:
    lim = replace(LIMITS["codex"], default_chars=25)
    entries = [Entry(n, Path(f"{n}/SKILL.md"), "z" * 40) for n in ("aaaa", "bbbb", "cccc", "dddd")]
    shown = listing("codex", entries, limits=lim)  # bare names "- aaaa": 4 * 6 + 3 = 27 > 25
    assert shown.dropped == ["dddd"] and list(shown.shown) == ["aaaa", "bbbb", "cccc"]
    assert "omitted from the listing" in str(not_offered_reason(Row("dddd", "t", (), 1, kind="table"), shown))


def test_the_budget_follows_the_models_context_window() -> None:
    assert budget_chars(LIMITS["claude"]) == 8_000 and budget_chars(LIMITS["claude"], 1_000_000) == 40_000
    assert budget_chars(LIMITS["codex"]) == 8_000 and budget_chars(LIMITS["codex"], 272_000) == 21_760


def test_agents_md_cumulative_cap_root_first_hides_rows_past_it() -> None:
    root, sub = Path("/r/AGENTS.md"), Path("/r/sub/AGENTS.md")
    cap = LIMITS["codex"].instructions_cap
    assert cap == 32 * 1024
    big = b"line\n" * (cap // 5 - 1)
    shown = listing("codex", [], ((root, big), (sub, b"a\nb\nc\nd\ne\n")))
    (_, o1, c1, _), (_, o2, c2, n2) = shown.instructions
    assert (c1, o1 + o2, c2) == (0, cap, 10 - o2) and n2 == o2 // 2
    assert offered(Row("s", "t", (), 1, file=sub), shown) and not offered(Row("s", "t", (), 5, file=sub), shown)
