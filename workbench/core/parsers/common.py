"""What every host parser shares: safe JSON line reading, typed field access, shell unwrapping, call ids.

Host streams are untrusted text. `JsonLineParser.feed` turns any line that is not a JSON object, or
whose handler meets a shape it did not expect, into a counted `LineSkipped`; it never raises. A line
longer than MAX_LINE is skipped unread: decoding 50 MB of JSON would cost gigabytes.
"""

from __future__ import annotations

import functools
import json
import re
import shlex
from collections.abc import Iterator, Sequence
from typing import IO, Any

from pydantic_core import from_json

from workbench.core.events import CallFinished, CallStarted, Event, LineSkipped
from workbench.core.models import Call, CallKind, new_call, updated_call
from workbench.core.parsers.overlap import Overlap

EXCERPT_CHARS = 300
MAX_LINE = 8 * 1024 * 1024
"""Longest stream line parsed (characters; readers cap bytes alike). Real host lines stay far below:
a tool result is truncated by the host itself; longer lines are junk or an attack."""
SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh"})


def loads(text: str) -> Any:
    """What `json.loads(text)` gives, decoded by pydantic's parser (about twice as fast on host lines).
    Whatever that parser refuses (lone surrogates, nesting deeper than 200, bad JSON) is decoded by
    `json.loads` itself, so a line decodes, or fails, exactly as `json.loads` decides."""
    try:
        return from_json(text)
    except ValueError:
        return json.loads(text)


class BadShape(Exception):
    """A JSON line whose fields have types the parser cannot use; becomes LineSkipped."""


def get_str(obj: object, key: str) -> str | None:
    """obj[key] when obj is a dict and the value is a string, else None."""
    if isinstance(obj, dict):
        value = obj.get(key)
        if isinstance(value, str):
            return value
    return None


def get_int(obj: object, key: str) -> int | None:
    """obj[key] when it is an int (not a bool), else None."""
    value = obj.get(key) if isinstance(obj, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def get_num(obj: object, key: str) -> float | None:
    """obj[key] when it is a finite-looking number (not a bool), else None."""
    value = obj.get(key) if isinstance(obj, dict) else None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return None


def get_dict(obj: object, key: str) -> dict[str, Any]:
    """obj[key] when it is a dict, else an empty dict."""
    value = obj.get(key) if isinstance(obj, dict) else None
    return value if isinstance(value, dict) else {}


def get_list(obj: object, key: str) -> list[Any]:
    """obj[key] when it is a list, else an empty list."""
    value = obj.get(key) if isinstance(obj, dict) else None
    return value if isinstance(value, list) else []


def str_items(values: object) -> tuple[str, ...]:
    """The strings of a list (dict items contribute their `name`), ignoring anything else."""
    if not isinstance(values, list):
        return ()
    out: list[str] = []
    for item in values:
        name = item if isinstance(item, str) else get_str(item, "name")
        if name:
            out.append(name)
    return tuple(out)


def flatten_text(value: object, depth: int = 0) -> str:
    """All text in a tool result: a string, or the `text` strings nested in lists and dicts."""
    if depth > 20:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(t for t in (flatten_text(v, depth + 1) for v in value) if t)
    if isinstance(value, dict):
        text = value.get("text")
        if isinstance(text, str):
            return text
        for key in ("content", "output"):
            if key in value:
                return flatten_text(value[key], depth + 1)
    return ""


def excerpt(text: str | None) -> str | None:
    """The first EXCERPT_CHARS characters of a tool result, or None when there is none."""
    if not text:
        return None
    return text[:EXCERPT_CHARS]


def first_str(args: dict[str, Any], keys: Sequence[str]) -> str | None:
    """The first non-empty string among ARGS[key] for KEYS (hosts name the same input differently)."""
    return next((v for k in keys if (v := get_str(args, k))), None)


def call_fields(tool: str, kind: CallKind, args: dict[str, Any], *, command_keys: Sequence[str] = ("command",),
                skill_keys: Sequence[str] = ("name", "skill"), path_keys: Sequence[str] = ("path",)) -> dict[str, Any]:
    """The normalized fields of a call from its tool input: the unwrapped command for a shell, the skill
    name for a skill tool, else the target path."""
    fields: dict[str, Any] = {"tool": tool, "kind": kind}
    if kind == "shell":
        command = first_str(args, command_keys)
        fields["command"] = unwrap_command(command) if command is not None else None
    elif kind == "skill":
        fields["skill"] = first_str(args, skill_keys)
    else:
        fields["path"] = first_str(args, path_keys)
    return fields


UNWRAP_LEVELS = 3
"""Nested shell wrappers unwrapped at most (`bash -c "sh -c 'x'"`)."""
_BLANK = " \t\r\n"
"""shlex's whitespace: the only characters that separate its words."""
_FIRST_WORD = re.compile(r"[ \t\r\n]*([^ \t\r\n]*)")
_SIMPLE_WRAP = re.compile(
    r"[ \t\r\n]*([^ \t\r\n'\"\\]+)[ \t\r\n]+(-[^ \t\r\n'\"\\-][^ \t\r\n'\"\\]*|-)[ \t\r\n]+"
    r"(?:'([^']*)'|\"([^\"\\]*)\")[ \t\r\n]*")
"""`SHELL -FLAGS 'X'` or `SHELL -FLAGS "X"` (no `"` or backslash in X): words shlex splits without
quoting rules of consequence, so X is its third word as it is."""


@functools.lru_cache(maxsize=4096)
def unwrap_command(command: str) -> str:
    """The command a shell wrapper runs: `/bin/bash -lc 'X'`, `sh -c X`, `zsh -lc X` give X, up to
    UNWRAP_LEVELS deep (`unwrap_general`'s answer, exactly).

    The common forms need no shlex: a command whose first word holds no quote or backslash and names
    no shell is returned as it is, and `SHELL -xc 'X'` / `SHELL -xc "X"` (no quote in X) give X.
    Remembered: Codex names each command three times (item started, completed, the rollout)."""
    current = command
    for level in range(UNWRAP_LEVELS):
        word = _FIRST_WORD.match(current).group(1)  # type: ignore[union-attr]  # always matches
        if "'" not in word and '"' not in word and "\\" not in word and word.rsplit("/", 1)[-1] not in SHELLS:
            return current  # shlex's first word is this word: no wrapper
        simple = _SIMPLE_WRAP.fullmatch(current)
        if simple is None or "c" not in simple.group(2)[1:] or simple.group(1).rsplit("/", 1)[-1] not in SHELLS:
            return unwrap_general(current, UNWRAP_LEVELS - level)
        current = simple.group(3) if simple.group(3) is not None else simple.group(4)
    return current


def unwrap_general(command: str, levels: int = UNWRAP_LEVELS) -> str:
    """`unwrap_command` by shlex alone: split, take the wrapper's command, LEVELS times at most."""
    current = command
    for _ in range(levels):
        try:
            argv = shlex.split(current)
        except ValueError:
            return current
        inner = _wrapped(argv)
        if inner is None:
            return current
        current = inner
    return current


def unwrap_argv(argv: list[str]) -> str:
    """A command given as an argv list, unwrapped from a shell wrapper when it has one."""
    inner = _wrapped(argv)
    return unwrap_command(inner) if inner is not None else shlex.join(argv)


def _wrapped(argv: list[str]) -> str | None:
    if len(argv) < 3 or argv[0].rsplit("/", 1)[-1] not in SHELLS:
        return None
    for pos in range(1, len(argv) - 1):
        flag = argv[pos]
        if not flag.startswith("-") or flag.startswith("--"):
            return None
        if "c" in flag[1:]:
            return argv[pos + 1]
    return None


_EXIT_PATTERNS = [
    re.compile(r"^(?:Error: )?Exit code:? (-?\d+)", re.MULTILINE),
    re.compile(r"Process exited with code (-?\d+)"),
    re.compile(r"^Exit Code: (-?\d+)", re.MULTILINE),
]


def exit_code_in(text: str) -> int | None:
    """An exit code a host wrote into a tool result ("Exit code 2", "Process exited with code 1")."""
    for pattern in _EXIT_PATTERNS:
        match = pattern.search(text)
        if match:
            return int(match.group(1))
    return None


def failed_read_paths(call: Call, text: str) -> list[str]:
    """What a failed or refused call left unread: the output's evidence, else a read tool's own target."""
    from workbench.core.evidence import shell_unreadable, unreadable_paths

    found = shell_unreadable(call.command, text) if call.kind == "shell" else unreadable_paths(text)
    if call.kind == "read" and call.path and call.path not in found:
        found.append(call.path)
    return found


_TRUNCATED = re.compile(
    r"truncated|\[\.\.\.?\s*\d*\s*(?:lines?|chars?|characters?|bytes?|tokens?)?\s*omitted|\d+ (?:lines?|tokens?) omitted"
    r"|output (?:was )?(?:cut|clipped|limited)",
    re.IGNORECASE,
)


def looks_truncated(text: str) -> bool:
    """Whether a tool output says it was cut (hosts mark it: "[... 40 lines truncated]", "…omitted…").

    A false alarm only costs an `absent` verdict (the content check then stays undecided); a miss
    would unmake a read whose text was cut away, so any such marker counts.
    """
    if text.isascii():  # ASCII: the pattern's ignored case is `lower()`'s, and it needs one of these words
        low = text.lower()
        if "truncated" not in low and "omitted" not in low and "output" not in low:
            return False
    return bool(_TRUNCATED.search(text))


def output_fields(text: str | None, truncated: bool = False) -> dict[str, Any]:
    """The live-only output fields of a finished call: the whole text the model received (None:
    the host hides it) and whether it was cut."""
    if text is None:
        return {"output": None, "output_truncated": False}
    return {"output": text, "output_truncated": truncated or looks_truncated(text)}


class CallBook:
    """Gives calls their issue-order index and turn, and keeps the latest form of each by the host's id.

    With an `Overlap` (parsers/overlap.py), a call started before an earlier call's result arrived is
    put in that call's turn; AT is then the host's time of the start or result (timed overlap only)."""

    def __init__(self, overlap: Overlap | None = None) -> None:
        self.calls: list[Call] = []
        self.by_id: dict[str, int] = {}
        self.finished: set[int] = set()
        self.turns: dict[str, int] = {}
        self.overlap = overlap

    def turn_of(self, key: str) -> int:
        """The 0-based turn number of a host's turn key (message id, ...), in order of first sight."""
        return self.turns.setdefault(key, len(self.turns))

    def start(self, call_id: str | None, at: float | None = None, **fields: Any) -> CallStarted:
        """Register a newly issued call."""
        if self.overlap is not None:
            fields["turn"] = self.overlap.started(len(self.calls), fields.get("turn"), fields.get("read_by"), at)
        call = new_call(index=len(self.calls), call_id=call_id, **fields)
        self.calls.append(call)
        if call_id is not None:
            self.by_id[call_id] = call.index
        return CallStarted(call)

    def get(self, call_id: str | None) -> Call | None:
        """The call with the host's id, if it was started."""
        index = self.by_id.get(call_id) if call_id is not None else None
        return self.calls[index] if index is not None else None

    def finish(self, call: Call, at: float | None = None, **updates: Any) -> CallFinished:
        """The final form of CALL with UPDATES applied."""
        if self.overlap is not None and call.index not in self.finished:
            self.overlap.arrived(call.index, at)
        final = updated_call(call, updates)
        self.calls[final.index] = final
        self.finished.add(final.index)
        return CallFinished(final)

    def flush_open(self) -> list[Event]:
        """Close calls that never got a result: status error, since their output never arrived."""
        return [
            self.finish(call, status="error", result=call.result or "(no result before the stream ended)")
            for call in list(self.calls)
            if call.index not in self.finished
        ]


def capped_lines(stream: IO[bytes]) -> Iterator[bytes]:
    """The lines of a binary stream, each cut to MAX_LINE + 1 bytes plus its newline; the rest of an
    overlong line is read in bounded pieces and dropped, so memory stays bounded whatever comes in."""
    while True:
        line = stream.readline(MAX_LINE + 1)
        if not line:
            return
        if len(line) > MAX_LINE and not line.endswith(b"\n"):
            while True:
                rest = stream.readline(MAX_LINE + 1)
                if not rest or rest.endswith(b"\n"):
                    break
            line += b"\n"
        yield line


class JsonLineParser:
    """Base for JSON-lines parsers: numbering, decoding and the never-raise guarantee."""

    host = "?"

    def __init__(self) -> None:
        self.line_no = 0

    def feed(self, line: str) -> list[Event]:
        """Parse one line into events; a bad line gives one LineSkipped."""
        self.line_no += 1
        text = line.strip() if isinstance(line, str) else ""
        if not text:
            return []
        if len(text) > MAX_LINE:
            return [self.skipped(f"line over {MAX_LINE} characters")]
        try:
            obj = from_json(text)  # `loads`, inlined: it runs per line
        except ValueError:
            try:
                obj = json.loads(text)
            except (ValueError, RecursionError):
                return [self.skipped("not JSON")]
        except RecursionError:
            return [self.skipped("not JSON")]
        if not isinstance(obj, dict):
            return [self.skipped("not a JSON object")]
        try:
            return self.handle(obj)
        except BadShape as exc:
            return [self.skipped(str(exc) or "unexpected shape")]
        except Exception as exc:  # noqa: BLE001 - a host line must never crash a live run
            return [self.skipped(f"unexpected shape ({type(exc).__name__})")]

    def skipped(self, reason: str) -> LineSkipped:
        """A LineSkipped for the current line."""
        return LineSkipped(line_no=self.line_no, reason=reason)

    def handle(self, obj: dict[str, Any]) -> list[Event]:
        """Turn one decoded JSON object into events (subclasses)."""
        raise NotImplementedError

    def finish(self) -> list[Event]:
        """Events owed at the end of the stream (subclasses)."""
        return []
