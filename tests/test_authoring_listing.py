"""The listing model: what a host offers, drops and clips, and `offered(row, listing)`."""

from __future__ import annotations

from pathlib import Path

from workbench.core.listing import LIMITS, Entry, HostLimits, listing, offered
from workbench.core.routing import Row


def test_overflow_drops_whole_descriptions_and_caps_clip() -> None:
    lim = HostLimits("claude", "x", 59, 20, None, "test")
    entries = [Entry("a", Path("a/SKILL.md"), "Use when committing work"), Entry("b", Path("b/SKILL.md"), "short"),
               Entry("c", Path("c/SKILL.md"), "y" * 30)]
    shown = listing("claude", entries, limits=lim)
    assert shown.clipped == ["a", "c"] and shown.shown["a"] == "Use when committing "
    assert shown.dropped == ["c"] and set(shown.shown) == {"a", "b"}
    assert not offered(Row("c", "x", (), 1, kind="table"), shown)
    assert offered(Row("b", "short", (), 1, kind="description"), shown)
    assert not offered(Row("a", "Use when committing work", (), 1, kind="description"), shown)


def test_agents_md_cumulative_cap_root_first_hides_rows_past_it() -> None:
    root, sub = Path("/r/AGENTS.md"), Path("/r/sub/AGENTS.md")
    cap = LIMITS["codex"].instructions_cap
    assert cap == 32 * 1024
    big = b"line\n" * (cap // 5 - 1)
    shown = listing("codex", [], ((root, big), (sub, b"a\nb\nc\nd\ne\n")))
    (_, o1, c1, _), (_, o2, c2, n2) = shown.instructions
    assert (c1, o1 + o2, c2) == (0, cap, 10 - o2) and n2 == o2 // 2
    assert offered(Row("s", "t", (), 1, file=sub), shown) and not offered(Row("s", "t", (), 5, file=sub), shown)
