"""The listing model: what a host offers, drops and clips, and `offered(row, listing)`."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from workbench.core.listing import LIMITS, Entry, budget_chars, listing, not_offered_reason, offered
from workbench.core.routing import Row


def test_claude_keeps_descriptions_whole_in_order_while_they_fit_and_lists_the_rest_by_name() -> None:
    lim = replace(LIMITS["claude"], default_context=None, default_chars=60)
    entries = [Entry("a", Path("a/SKILL.md"), "Use when committing work"), Entry("b", Path("b/SKILL.md"), "y" * 30),
               Entry("c", Path("c/SKILL.md"), "short")]
    shown = listing("claude", entries, limits=lim)  # names "- a" x3 + 2 newlines = 11; room 49: a (26) fits, b not
    assert shown.shown == {"a": "Use when committing work", "b": "", "c": "short"} and shown.clipped == ["b"]
    assert not shown.dropped
    assert offered(Row("a", "Use when committing work", (), 1, kind="description"), shown)
    why = not_offered_reason(Row("b", "y" * 30, (), 1, kind="description"), shown)
    assert why and "by name only" in why
    assert offered(Row("b", "x", (), 1, kind="table"), shown), "a table row of a listed Skill is offered"
    capped = listing("claude", [Entry("d", Path("d/SKILL.md"), "z" * 2000)])
    assert len(capped.shown["d"]) == 1_536 and capped.clipped == ["d"]


def test_codex_shortens_then_omits_the_last_skills_when_bare_names_overflow() -> None:
    lim = replace(LIMITS["codex"], default_context=None, default_chars=3 * 33 + 32, bundled=())
    entries = [Entry(n, Path(f"{n}/SKILL.md"), "z" * 40) for n in ("dddd", "aaaa", "bbbb", "cccc")]
    shown = listing("codex", entries, limits=lim)  # bare "- aaaa: (file: r0/aaaa/SKILL.md)" + newline = 33
    assert shown.dropped == ["dddd"] and list(shown.shown) == ["aaaa", "bbbb", "cccc"], "sorted by name"
    assert "omitted from the listing" in str(not_offered_reason(Row("dddd", "t", (), 1, kind="table"), shown))


def test_codex_deals_the_room_out_a_character_at_a_time_and_keeps_short_descriptions_whole() -> None:
    lim = replace(LIMITS["codex"], default_context=None, default_chars=2 * 33 + 13, bundled=())
    entries = [Entry("aaaa", Path("aaaa/SKILL.md"), "z" * 40), Entry("bbbb", Path("bbbb/SKILL.md"), "ok")]
    shown = listing("codex", entries, limits=lim)  # room 13: " ok" costs 3, " " + 9 to aaaa
    assert shown.shown == {"aaaa": "z" * 9, "bbbb": "ok"} and shown.clipped == ["aaaa"]
    with_bundled = listing("codex", entries, limits=replace(lim, default_chars=8_000))
    assert with_bundled.shown == {"aaaa": "z" * 40, "bbbb": "ok"} and not with_bundled.clipped
    capped = listing("codex", [Entry("c", Path("c/SKILL.md"), "y" * 1_500)])
    assert capped.shown["c"] == "y" * 1_021 + "..." and capped.clipped == ["c"]


def test_the_budget_follows_the_models_context_window() -> None:
    assert budget_chars(LIMITS["claude"]) == 8_000 and budget_chars(LIMITS["claude"], 1_000_000) == 40_000
    # Codex's own catalog gives its default model, and any unknown name, a 272,000-token window (measured)
    assert budget_chars(LIMITS["codex"]) == 21_760 == budget_chars(LIMITS["codex"], 272_000)
    assert budget_chars(replace(LIMITS["codex"], default_context=None)) == 8_000


def test_agents_md_cumulative_cap_root_first_hides_rows_past_it() -> None:
    root, sub = Path("/r/AGENTS.md"), Path("/r/sub/AGENTS.md")
    cap = LIMITS["codex"].instructions_cap
    assert cap == 32 * 1024
    big = b"line\n" * (cap // 5 - 1)
    shown = listing("codex", [], ((root, big), (sub, b"a\nb\nc\nd\ne\n")))
    (_, o1, c1, _), (_, o2, c2, n2) = shown.instructions
    assert (c1, o1 + o2, c2) == (0, cap, 10 - o2) and n2 == o2 // 2
    assert offered(Row("s", "t", (), 1, file=sub), shown) and not offered(Row("s", "t", (), 5, file=sub), shown)
