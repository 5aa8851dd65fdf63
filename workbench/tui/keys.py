"""Which keys act now: a printable key typed while an input has focus goes into the input, so such a
binding is hidden from the footer then (escape leaves the input and brings the keys back)."""

from __future__ import annotations

from typing import Any, ClassVar

from textual.binding import Binding
from textual.widgets import Input, TextArea


def typing(screen: Any) -> bool:
    """An input (or the editor) of SCREEN has focus: printable keys type into it."""
    return isinstance(getattr(screen, "focused", None), (Input, TextArea))


def printable_actions(bindings: Any) -> set[str]:
    """Actions bound to a single printable key (`c`, `x`, `1`, `?`), which an input would swallow."""
    out: set[str] = set()
    for b in bindings:
        if isinstance(b, Binding) and any(len(k.strip()) == 1 or k == "question_mark" for k in b.key.split(",")):
            out.add(b.action.split("(", 1)[0])
    return out


class ActsNow:
    """Mixin for a Screen: `ready(action)` says whether an action can act now (default: yes); printable
    keys are off while an input has focus. The footer then shows only the keys that act."""

    BINDINGS: ClassVar[Any] = []
    focused: Any

    def ready(self, action: str) -> bool:
        return True

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in printable_actions(type(self).BINDINGS) and typing(self):
            return False
        return self.ready(action)


def focus_after(screen: Any, fields: dict[str, str], done: str, error: str | None = None) -> None:
    """Where the keys go once a run ended: DONE (its results: `up`/`down` act at once), or, for an ERROR,
    the form field it names (`model: …` or `the model field: …` -> FIELDS["model"]), else the form's first field."""
    import re

    target = done
    if error is not None:
        named = re.search(r"\b(" + "|".join(map(re.escape, fields)) + r")(?: field)?: ", error) if fields else None
        target = fields[named.group(1)] if named else next(iter(fields.values()), done)
    found = screen.query(target)
    if found:
        found.first().focus()
