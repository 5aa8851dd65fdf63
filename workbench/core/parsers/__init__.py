"""Incremental host stream parsers: one module per host, `feed(line) -> events`."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from workbench.core.errors import InputError
from workbench.core.events import Event, ParsedRun
from workbench.core.hostinfo import NAMES


class StreamParser(Protocol):
    """Turns a host's stdout, one line at a time, into normalized events."""

    host: str

    def feed(self, line: str) -> list[Event]:
        """Parse one line; never raises on bad input (emits LineSkipped instead)."""
        ...

    def finish(self) -> list[Event]:
        """Flush calls still open at the end of the stream."""
        ...


def make_parser(host: str, session_log: Iterable[str] | None = None) -> StreamParser:
    """A fresh parser for HOST; Codex may take its rollout session log for the refusals --json omits."""
    from workbench.core.parsers import claude, codex, gemini, grok, opencode

    if host == "codex":
        return codex.CodexParser(session_log)
    if host == "sim":
        parser = claude.ClaudeParser()  # the sim host writes Claude Code's stream-json (workbench.sim)
        parser.host = "sim"
        return parser
    simple: dict[str, type[StreamParser]] = {
        cls.host: cls for cls in (claude.ClaudeParser, opencode.OpenCodeParser, gemini.GeminiParser, grok.GrokParser)}
    if host not in simple:
        raise InputError(f"unknown host {host!r}; known: {', '.join(NAMES)}", field="host")
    return simple[host]()


def parse_lines(host: str, lines: Iterable[str], session_log: Iterable[str] | None = None) -> ParsedRun:
    """Parse a whole stream offline."""
    return run_parser(make_parser(host, session_log), lines)


def run_parser(parser: StreamParser, lines: Iterable[str]) -> ParsedRun:
    """Every line of a whole stream through PARSER, then its finish: the run they describe."""
    run = ParsedRun()
    for line in lines:
        for event in parser.feed(line):
            run.apply(event)
    for event in parser.finish():
        run.apply(event)
    return run
