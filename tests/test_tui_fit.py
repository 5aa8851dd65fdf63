"""`tui.fit`: cells clipped at a word's end, headers stacked at a space, session ids shortened."""

from __future__ import annotations

import pytest

from workbench.tui.fit import clip, short_session, stacked
from workbench.tui.widgets.cardtext import trim


@pytest.mark.parametrize(("text", "width", "shown"), [
    ("Before committing", 21, "Before committing"),
    ("Team operations procedures for this repository", 21, "Team operations…"),
    ("Before responding to an incident", 21, "Before responding to…"),
    ("workflows/dependency-update.md", 14, "workflows/…"),
    ("dependency-update.md", 14, "dependency-…"),
    ("commit.md, release.md", 12, "commit.md…"),
    ("abcdefghijklmnop", 8, "abcdefg…"),
])
def test_clip_ends_at_a_word(text: str, width: int, shown: str) -> None:
    assert clip(text, width) == shown
    assert len(clip(text, width)) <= width


def test_stacked_breaks_at_the_middle_space() -> None:
    assert stacked("sessions read before moment") == "sessions read\nbefore moment"
    assert stacked("never offered") == "never\noffered"
    assert stacked("row") == "row"


def test_short_session() -> None:
    assert short_session("session:3f90ddf4-345b-4862-acc9-956dd002f7ae") == "3f90ddf4"
    assert short_session("session:7") == "session:7"


def test_a_cards_target_keeps_a_paths_end() -> None:
    assert trim("<plugin>/skills/ops/workflows/docs.md", 16) == "…/docs.md"
    assert trim("git commit -m fix the typo now", 16) == "git commit -m…"
    assert trim("sleep 120", 16) == "sleep 120"
