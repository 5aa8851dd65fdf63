"""The screen as plain text, one line per terminal row: text snapshots and readable test failures."""

from __future__ import annotations

from textual.app import App


def screen_text(app: App[object]) -> str:
    """What the terminal shows now, without colours (trailing spaces stripped)."""
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(seg.text for seg in strip).rstrip() for strip in strips)
