"""A checkbox and a selection list whose checked and unchecked boxes differ in glyph, not only in
colour (`✓` against a blank): readable on a monochrome terminal, a screen reader or a copied screen."""

from __future__ import annotations

from rich.segment import Segment
from textual.strip import Strip
from textual.widgets import Checkbox, SelectionList
from textual.widgets._toggle_button import ToggleButton

ON, OFF = "✓", " "


class Box(Checkbox):
    """A Checkbox drawn `▐✓▌` when checked and `▐ ▌` when not (Checkbox draws its BUTTON_INNER)."""

    @property
    def BUTTON_INNER(self) -> str:  # type: ignore[override]  # noqa: N802 - Textual names it so
        return ON if self.value else OFF


class Choices(SelectionList[str]):
    """A SelectionList whose selected options show `✓` and the others a blank box."""

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        index = self.scroll_offset[1] + y
        if index >= self.option_count:
            return strip
        option = self.get_option_at_index(index)
        glyph = ON if option.value in self.selected else OFF
        segments = list(strip)
        if len(segments) > 1 and segments[1].text == ToggleButton.BUTTON_INNER:
            segments[1] = Segment(glyph, segments[1].style, segments[1].control)
            return Strip(segments, strip.cell_length)
        return strip
