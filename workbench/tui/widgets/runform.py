"""The fields every run form shares (Canary, Batch, Post-install): host, model, effort and script.

Each field keeps its label in its border once it holds a value. Models offer the workspace's
`defaults.models` as completions; scripts are the canaries folder's scripted models (offline
self-checks: a real host CLI driven by the model server on 127.0.0.1, no login needed).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.suggester import SuggestFromList
from textual.widget import Widget
from textual.widgets import Input, Select
from textual.widgets._select import SelectCurrent

from workbench.core.hostinfo import EFFORTS

HOSTS = ("sim", "claude", "codex", "opencode", "gemini", "grok")
NO_SCRIPT = ""


class LabelledSelect(Select[Any]):
    """A Select whose label stays in its box's border (a Select draws its box on an inner widget)."""

    def on_mount(self) -> None:
        self.query_one(SelectCurrent).border_title = self.border_title


def labelled(widget: Widget, label: str) -> Widget:
    """WIDGET with LABEL in its border title (visible whatever the field holds)."""
    widget.border_title = label
    return widget


def host_select(id: str, value: str = "sim") -> Select[str]:
    return labelled(LabelledSelect([(h, h) for h in HOSTS], value=value, allow_blank=False, id=id), "host")  # type: ignore[return-value]


def model_input(id: str, models: list[str]) -> Input:
    hint = ", ".join(models[:2]) if models else "your login's"
    return labelled(Input(placeholder=hint, id=id, suggester=SuggestFromList(models, case_sensitive=False)),
                    "model")  # type: ignore[return-value]


def effort_input(id: str) -> Input:
    return labelled(Input(placeholder="optional", id=id, suggester=SuggestFromList(EFFORTS)),
                    "effort")  # type: ignore[return-value]


def script_select(id: str, scripts: list[Path]) -> Select[str]:
    options = [("none", NO_SCRIPT)] + [(p.stem, str(p)) for p in scripts]
    return labelled(LabelledSelect(options, value=NO_SCRIPT, allow_blank=False, id=id), "script")  # type: ignore[return-value]


def chosen_script(select: Select[Any], override: Any) -> Any:
    """The scripted model a run gets: OVERRIDE (a Script set by a test or bench), else the picked
    file's path (loaded in the worker), else None (the host's own model or the sim's policy)."""
    if override is not None:
        return override
    value = select.value
    return Path(str(value)) if value not in (NO_SCRIPT, Select.NULL, None) else None


def load(script: Any) -> Any:
    """A picked script file loaded (in the worker): a Script, or SCRIPT itself when already one. A
    self-check canary file (`{"case": ..., "script": ...}`) gives its script."""
    if not isinstance(script, Path):
        return script
    import json

    from workbench.core.errors import InputError
    from workbench.modelstub import load_script, parse_script

    try:
        data = json.loads(script.read_text(encoding="utf-8")) if script.suffix == ".json" else None
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read script: {exc}", file=str(script), field="script") from None
    if isinstance(data, dict) and "script" in data:
        return parse_script(data["script"], file=str(script))
    return load_script(script)
