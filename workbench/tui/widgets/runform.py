"""The fields every run form shares (Canary, Batch, Post-install): host, model, effort and script.

Each field keeps its label in its border once it holds a value. Models offer the workspace's
`defaults.models` as completions; effort offers the levels the picked host(s) take; scripts are
the canaries folder's scripted models (offline self-checks: a real host CLI driven by the model
server on 127.0.0.1, no login needed).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.suggester import SuggestFromList
from textual.widget import Widget
from textual.widgets import Input, Select

from workbench.core.hostinfo import NAMES, efforts_of
from workbench.tui.data import ScriptFile

NO_SCRIPT = ""


class LabelledSelect(Select[Any]):
    """A Select whose label stays in its box's border (a Select draws its box on an inner widget)."""

    def on_mount(self) -> None:
        self.query_one("SelectCurrent").border_title = self.border_title  # by its CSS type: no private import

    def offered(self) -> list[Any]:
        """The values it offers now, in order (blank left out)."""
        return [v for _, v in self._options if v is not Select.NULL]


def labelled(widget: Widget, label: str) -> Widget:
    """WIDGET with LABEL in its border title (visible whatever the field holds)."""
    widget.border_title = label
    return widget


def host_select(id: str, value: str = "sim") -> Select[str]:
    return labelled(LabelledSelect([(h, h) for h in NAMES], value=value, allow_blank=False, id=id), "host")  # type: ignore[return-value]


def model_input(id: str, models: list[str]) -> Input:
    hint = ", ".join(models[:2]) if models else "your login's"
    return labelled(Input(placeholder=hint, id=id, suggester=SuggestFromList(models, case_sensitive=False)),
                    "model")  # type: ignore[return-value]


HOST_DEFAULT = ""
"""The effort field's value for the host's own default (no effort on its command line)."""


def effort_options(hosts: list[str]) -> list[tuple[str, str]]:
    """The effort field's choices for HOSTS: `default` (the hosts' own), then each level all of them take
    (`core.hostinfo.efforts_of`, the levels their CLIs are given; none for a host that takes none)."""
    return [("default", HOST_DEFAULT)] + [(e, e) for e in efforts_of(hosts)]


def effort_select(id: str, hosts: list[str]) -> Select[str]:
    return labelled(LabelledSelect(effort_options(hosts), value=HOST_DEFAULT, allow_blank=False, id=id),  # type: ignore[return-value]
                    "effort")


def offer_efforts(select: Select[Any], hosts: list[str]) -> None:
    """Offer the levels HOSTS take (the host field changed); the picked level stays while they all take it,
    else the field goes back to the host default."""
    before = select.value
    options = effort_options(hosts)
    if [v for _, v in options] == getattr(select, "offered", lambda: None)():
        return
    select.set_options(options)
    select.value = before if any(v == before for _, v in options) else HOST_DEFAULT


def chosen_effort(select: Select[Any]) -> str | None:
    """The effort a run is given (None: the host's default)."""
    return str(select.value) if select.value not in (HOST_DEFAULT, Select.NULL, None) else None


def script_options(scripts: list[ScriptFile]) -> list[tuple[str, str]]:
    """The script field's choices: none, then each script by name (`+case`: it carries its own case)."""
    return [("none", NO_SCRIPT)] + [(s.name + (" +case" if s.case is not None else ""), str(s.path)) for s in scripts]


def script_select(id: str, scripts: list[ScriptFile]) -> Select[str]:
    return labelled(LabelledSelect(script_options(scripts), value=NO_SCRIPT, allow_blank=False, id=id),  # type: ignore[return-value]
                    "script")


def offer_scripts(select: Select[Any], scripts: list[ScriptFile]) -> None:
    """Offer SCRIPTS in SELECT (the canaries folder changed), keeping the picked one while it is there."""
    before = select.value
    options = script_options(scripts)
    select.set_options(options)
    select.value = before if any(v == before for _, v in options) else NO_SCRIPT


def picked_script(select: Select[Any], scripts: list[ScriptFile]) -> ScriptFile | None:
    """The script file SELECT holds (None: none picked)."""
    return next((s for s in scripts if str(s.path) == select.value), None)


def chosen_script(select: Select[Any], override: Any) -> Any:
    """The scripted model a run gets: OVERRIDE (a Script set by a test or bench), else the picked
    file's path (loaded in the worker), else None (the host's own model or the sim's policy)."""
    if override is not None:
        return override
    value = select.value
    return Path(str(value)) if value not in (NO_SCRIPT, Select.NULL, None) else None
