"""Normalized events a host stream parser emits, line by line, for live panes and offline scoring."""

from __future__ import annotations

from dataclasses import dataclass, field

from workbench.core.models import Call, Usage


@dataclass(frozen=True)
class InitSeen:
    """The host announced itself: version, model and what it offers."""

    host_version: str | None = None
    model: str | None = None
    tools: tuple[str, ...] = ()
    skills: tuple[str, ...] = ()
    plugins: tuple[str, ...] = ()


@dataclass(frozen=True)
class CallStarted:
    """A tool call was issued; its status is not known yet (status stays 'ok' until finished)."""

    call: Call


@dataclass(frozen=True)
class CallFinished:
    """A tool call's final form: status, exit code, output evidence. Keyed by call.index."""

    call: Call


@dataclass(frozen=True)
class TextSeen:
    """The model produced text (a text-only answer is a valid measurement)."""

    text: str


@dataclass(frozen=True)
class UsageSeen:
    """Token usage reported so far (cumulative for the run when the host reports totals)."""

    usage: Usage


@dataclass(frozen=True)
class RunEnded:
    """The host's final result event."""

    is_error: bool = False
    text: str | None = None
    error: str | None = None
    served_model: str | None = None


@dataclass(frozen=True)
class CallsReset:
    """The run's final calls replace every call seen so far (Codex: stdout re-parsed with its rollout)."""

    calls: tuple[Call, ...]


@dataclass(frozen=True)
class LineSkipped:
    """A junk, truncated or unknown line: counted, never fatal."""

    line_no: int
    reason: str


KEEP_SKIPPED = 20
"""Skipped lines kept as samples; the rest are only counted (a flood of junk costs no memory)."""

Event = InitSeen | CallStarted | CallFinished | TextSeen | UsageSeen | RunEnded | LineSkipped | CallsReset


@dataclass
class ParsedRun:
    """Everything a whole stream said, accumulated from events."""

    calls: list[Call] = field(default_factory=list)
    init: InitSeen | None = None
    usage: Usage = field(default_factory=Usage)
    texts: list[str] = field(default_factory=list)
    ended: RunEnded | None = None
    skipped: list[LineSkipped] = field(default_factory=list)
    """The first KEEP_SKIPPED skipped lines (samples for diagnostics); `skipped_count` counts them all."""
    skipped_count: int = 0

    def apply(self, event: Event) -> None:
        """Fold one event into the run."""
        if isinstance(event, (CallStarted, CallFinished)):  # a tuple: faster than a union, per event
            call = event.call
            if call.index < len(self.calls):
                self.calls[call.index] = call
            else:
                self.calls.append(call)
        elif isinstance(event, CallsReset):
            self.calls = list(event.calls)
        elif isinstance(event, InitSeen):
            self.init = event
        elif isinstance(event, UsageSeen):
            self.usage = event.usage
        elif isinstance(event, TextSeen):
            self.texts.append(event.text)
        elif isinstance(event, RunEnded):
            self.ended = event
        elif isinstance(event, LineSkipped):
            self.skipped_count += 1
            if len(self.skipped) < KEEP_SKIPPED:  # counted, not stored: memory stays flat for any junk
                self.skipped.append(event)

    @property
    def model_output(self) -> bool:
        """True when the model produced anything: a tool call or text that is not a host error."""
        return bool(self.calls or self.texts)
