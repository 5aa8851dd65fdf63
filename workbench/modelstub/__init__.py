"""The scripted model server and its host-neutral script format (see docs/modelstub.md).

The server (`Fault`, `ModelServer`) loads on first use: the sim reads scripts on every run and
never serves, so it does not pay for `http.server` and the wire formats.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from workbench.modelstub.script import Script, ScriptCall, Step, load_script, parse_script

if TYPE_CHECKING:
    from workbench.modelstub.server import Fault, ModelServer

__all__ = ["Fault", "ModelServer", "Script", "ScriptCall", "Step", "load_script", "parse_script"]


def __getattr__(name: str) -> Any:
    if name in ("Fault", "ModelServer"):
        from workbench.modelstub import server
        return getattr(server, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
