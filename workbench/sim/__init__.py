"""The offline `sim` host: a pure-Python agent loop that writes Claude-Code-compatible stream-json.

`python -m workbench.sim --prompt TEXT --repo DIR [--plugin DIR] (--script FILE | --policy)` really
reads, edits and runs shell commands in the repo and prints Claude Code's stream-json, so the Claude
parser reads it unchanged (`make_parser("sim")`). It executes either a host-neutral Script
(`workbench.modelstub.script`) or the wording-sensitive policy (`workbench.sim.policy`).

It is a SIMULATION for demos and instrument tests, NOT a model: its runs say nothing about how any
real model behaves. See docs/sim.md.
"""

from workbench.sim.agent import run_fault, run_script
from workbench.sim.policy import Decision, decide
from workbench.sim.stream import StreamWriter
from workbench.sim.tools import Workspace

__all__ = ["Decision", "StreamWriter", "Workspace", "decide", "run_fault", "run_script"]
