"""core.diff: the word diff of two wordings, readable without colour."""

from __future__ import annotations

from workbench.core.diff import changed, pieces, word_diff


def test_a_replaced_word_is_marked_removed_then_added() -> None:
    old = "Before editing documentation: read [ops](skills/ops/SKILL.md)"
    new = "Before writing any documentation change: read [ops](skills/ops/SKILL.md)"
    out = word_diff(old, new)
    assert out.startswith("Before [-editing-]{+writing any+} documentation{+ change+}:"), out
    # dropping every marked removal and unmarking additions gives the new text back, and vice versa
    assert "".join(p.text for p in pieces(old, new) if p.kind != "removed") == new
    assert "".join(p.text for p in pieces(old, new) if p.kind != "added") == old


def test_insertion_deletion_and_equal() -> None:
    assert word_diff("a b", "Always: a b") == "{+Always: +}a b"
    assert word_diff("a b c", "a c") == "a [-b -]c"
    assert word_diff("same words", "same words") == "same words"
    assert not changed("x\n", "x") and changed("x", "y")
