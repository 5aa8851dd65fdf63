"""The sim agent loop: executes a host-neutral Script turn by turn, really running each tool.

Each step is one model turn: its text, then its tool_use blocks, then one tool_result per call in
order. A step without calls ends the run with its text; a script whose last step still has calls
ends with "Done.", as the scripted model server does. An `agent` call runs the subagent's steps
inside the delegating call, its events marked with that call's id as Claude Code marks them; the
subagent's last text is the call's result.
"""

from __future__ import annotations

import json
import re
import time

from workbench.core.hostinfo import claude_call
from workbench.core.offered import skill_description
from workbench.modelstub.script import AgentSpec, Script, ScriptCall, Step
from workbench.sim.stream import StreamWriter
from workbench.sim.tools import Outcome, SkillInfo, Workspace, plugin_name

TOOLS = ["Task", "Read", "Bash", "Edit", "Write", "Skill"]
FINAL_TEXT = "Done."
DEFAULT_SUBAGENT = "general-purpose"
"""Claude Code's subagent type when the delegating call names none."""
NO_OUTPUT_ERROR = ("API Error: Repeated 529 Overloaded errors · check status.claude.com "
                   "(simulated provider fault: no model output)")




def execute(call: ScriptCall, ws: Workspace) -> tuple[Outcome, str | None]:
    """Run one call in the workspace: its outcome, and for a loaded skill the body the host injects."""
    if call.read is not None:
        return ws.read(call.read), None
    if call.shell is not None:
        return ws.bash(call.shell), None
    if call.edit is not None:
        return ws.edit(call.edit.path, call.edit.old, call.edit.new), None
    if call.write is not None:
        return ws.write(call.write.path, call.write.content), None
    return ws.skill(call.skill or "")


def run_script(script: Script, ws: Workspace, writer: StreamWriter, *, prompt: str, version: str) -> int:
    """Run SCRIPT against the workspace, writing the stream; returns the process exit code (0)."""
    started = time.monotonic()
    start(ws, writer, version)
    final = run_steps(script.steps, ws, writer, prompt)
    writer.result(text=final, duration_ms=int((time.monotonic() - started) * 1000))
    return 0


def run_steps(steps: list[Step], ws: Workspace, writer: StreamWriter, prompt: str) -> str | None:
    """Run STEPS turn by turn (the main agent's, or a subagent's inside its delegating call); the last text."""
    context = prompt
    for step in steps:
        writer.turn(context)
        if step.say and writer.parent is None:  # Claude Code prints no subagent text: its last is the call's result
            writer.say(step.say)
        if not step.calls:
            return step.say
        uses = [(call, *claude_call(call)) for call in step.calls]
        ids = [writer.tool_use(name, tool_input) for _, name, tool_input in uses]
        results: list[str] = []
        for (call, name, tool_input), use_id in zip(uses, ids, strict=True):
            outcome, body = delegate(call.agent, use_id, ws, writer) if call.agent else execute(call, ws)
            if outcome.denied:
                writer.deny(use_id, name, tool_input, outcome.text)
            else:
                writer.tool_result(use_id, outcome.text, is_error=outcome.is_error)
            if body:
                writer.skill_text(body)
            results.append(outcome.text)
        context = "\n".join(results)
    writer.turn(context)
    if writer.parent is None:
        writer.say(FINAL_TEXT)
    return FINAL_TEXT


def delegate(agent: AgentSpec, use_id: str, ws: Workspace, writer: StreamWriter) -> tuple[Outcome, None]:
    """Run a subagent's steps inside the call USE_ID: its prompt, its calls, its last text as the result."""
    with writer.subagent(use_id, agent.type or DEFAULT_SUBAGENT, agent.description, agent.prompt):
        text = run_steps(agent.steps, ws, writer, agent.prompt)
    return Outcome(text or ""), None


def run_fault(ws: Workspace, writer: StreamWriter, *, version: str) -> int:
    """A provider that never answers: the host's synthetic error, an error result, exit 1, no model output."""
    start(ws, writer, version)
    writer.synthetic_error(NO_OUTPUT_ERROR)
    writer.result(text=NO_OUTPUT_ERROR, is_error=True)
    return 1


def start(ws: Workspace, writer: StreamWriter, version: str) -> None:
    """The init event: Claude's tool names, the plugin's skills and the plugin itself."""
    plugins = [{"name": plugin_name(ws.plugin), "path": str(ws.plugin)}] if ws.plugin is not None else []
    writer.init(cwd=str(ws.repo), tools=TOOLS, skills=[s.qualified for s in ws.skills], plugins=plugins,
                version=version)
    write_listing(ws, writer.session_id)


def write_listing(ws: Workspace, session_id: str) -> None:
    """What the sim offered its model, kept as Claude Code keeps it: a `skill_listing` attachment
    (`- name: description` lines) in the session's transcript under the run's HOME, so the runner's
    offered proof reads the sim like the host it imitates. No `--home` given: nothing is written."""
    if ws.home is None or not ws.transcript or not ws.skills:
        return
    slug = re.sub(r"[^A-Za-z0-9]", "-", str(ws.repo))
    folder = ws.home / ".claude" / "projects" / slug
    content = "\n".join(f"- {s.qualified}: {_description(s)}" for s in ws.skills)
    line = {"type": "attachment", "sessionId": session_id, "cwd": str(ws.repo),
            "attachment": {"type": "skill_listing", "content": content, "names": [s.qualified for s in ws.skills]}}
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with (folder / f"{session_id}.jsonl").open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(line, ensure_ascii=False) + "\n")
    except OSError:
        return


def _description(skill: SkillInfo) -> str:
    try:
        return skill_description(skill.path.read_text(encoding="utf-8")) or skill.description
    except (OSError, UnicodeDecodeError):
        return skill.description
