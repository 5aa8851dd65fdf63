"""The scripted model server and its host-neutral script format (see docs/modelstub.md)."""

from workbench.modelstub.script import Script, ScriptCall, Step, load_script, parse_script
from workbench.modelstub.server import Fault, ModelServer

__all__ = ["Fault", "ModelServer", "Script", "ScriptCall", "Step", "load_script", "parse_script"]
