"""Expand a script into the model turns one host will see, and pick the turn for a request.

The server is stateless: the turn to answer is the number of model turns already in the request's
history. Most hosts get one turn per script step. Claude Code refuses to edit a file it has not read
in the session, so for it an edit of an unread file is preceded by an extra turn that reads it; the
expansion is computed from the script alone, so the count stays right on every request.
A subagent's requests carry their own history, opened by the prompt it was delegated: they are
answered from that agent's own turns (`plan_agents`, `agent_of`). Codex offers its agent tools
deferred and runs a subagent in the background: for it a delegating step is preceded (once) by a
turn that loads the agent tools and followed by a turn that waits for the subagents it started.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from workbench.modelstub.script import Script, ScriptCall

FINAL_TEXT = "Done."
"""What the model says when the script's last step still made calls."""
HostStep = Literal["find-agent-tools", "wait-agents"]
"""A turn the host's delegation needs beyond the script's calls (Codex: load the deferred agent
tools; wait for the subagents started)."""


@dataclass(frozen=True)
class Turn:
    """One model answer: optional text, then calls; no calls means the run ends."""

    text: str | None
    calls: tuple[ScriptCall, ...]
    step: int
    """The script step this turn comes from (inserted reads belong to the step of their edit)."""
    host_step: HostStep | None = None

    @property
    def final(self) -> bool:
        return not self.calls and self.host_step is None


def plan_turns(script: Script, *, read_before_edit: bool = False, deferred_agents: bool = False) -> list[Turn]:
    """The host's turns for a script, always ending with a turn without calls.

    A step's calls stay together in ONE turn (same-turn calls are what the scorer's turn rule
    judges); the reads inserted for edits of unread files form their own turn just before it.
    DEFERRED_AGENTS (Codex): the first delegating step is preceded by a `find-agent-tools` turn and
    every delegating step is followed by a `wait-agents` turn.
    """
    turns: list[Turn] = []
    read: set[str] = set()
    found_agents = False
    for index, step in enumerate(script.steps):
        delegates = deferred_agents and any(call.agent is not None for call in step.calls)
        if delegates and not found_agents:
            turns.append(Turn(None, (), index, "find-agent-tools"))
            found_agents = True
        text = step.say
        unread: list[str] = []
        for call in step.calls:
            if call.read is not None:
                read.add(call.read)
            elif call.edit is not None and read_before_edit and call.edit.path not in read:
                unread.append(call.edit.path)
                read.add(call.edit.path)
        if unread:
            turns.append(Turn(text, tuple(ScriptCall(read=path) for path in unread), index))
            text = None
        turns.append(Turn(text, tuple(step.calls), index))
        if delegates:
            turns.append(Turn(None, (), index, "wait-agents"))
    if not turns[-1].final:
        turns.append(Turn(FINAL_TEXT, (), len(script.steps)))
    return turns


def plan_agents(script: Script, *, read_before_edit: bool = False,
                deferred_agents: bool = False) -> dict[str | None, list[Turn]]:
    """The main agent's turns (key None) and each subagent's, keyed by its delegated prompt."""
    plans: dict[str | None, list[Turn]] = {
        None: plan_turns(script, read_before_edit=read_before_edit, deferred_agents=deferred_agents)}
    for agent in script.agents():
        plans[agent.prompt] = plan_turns(Script(steps=agent.steps), read_before_edit=read_before_edit)
    return plans


def agent_of(prompts: list[str], opening: list[str]) -> str | None:
    """The delegated prompt a request's history opens with (the longest found), None for the main agent."""
    found = [p for p in prompts if any(p in text for text in opening)]
    return max(found, key=len) if found else None


def pick_turn(turns: list[Turn], model_turns: int) -> Turn:
    """The turn to answer after `model_turns` model turns; past the end, the final text again."""
    return turns[min(model_turns, len(turns) - 1)]


def count_runs(flags: list[bool]) -> int:
    """Number of maximal runs of True: model turns, however a host splits one turn into messages."""
    runs, previous = 0, False
    for flag in flags:
        if flag and not previous:
            runs += 1
        previous = flag
    return runs
