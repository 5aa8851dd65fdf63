"""The one redaction walker: what a record must not carry, replaced in every string of it.

A run's own paths become their labels (`<repo>`, `<plugin>`, `~`), longest first so a run folder
inside the home is not cut at the home; values of the login files the run was given become
`<login>`, also when an excerpt cut one short at its end, and in the simple transforms a hostile
agent could print to slip past an exact match (`variants`: reversed, base64 std and urlsafe with or
without padding and at any alignment inside a longer encoding, base32 likewise, hex lower and upper,
URL-encoded). Every form is also found split by whitespace of any kind and length between any two of
its characters (`fold`, wrapped base64, indented or blank-line-separated pieces), and inside a
base64 text (any alignment, lines joined) that holds a gzip, zlib or raw deflate stream, each member
inflated in chunks; a stream that inflates past INFLATE_LIMIT cannot be checked and is replaced
whole by `<unchecked>` (never passed silently).
Every door's record goes through `Redactor.record` in the one record builder (runner/execute.py),
and every live event through `Redactor.event` before a view sees it.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import dataclasses
import functools
import json
import os
import re
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

from workbench.core.events import CallFinished, CallsReset, CallStarted, Event, RunEnded, TextSeen
from workbench.core.models import Call, RunRecord

LOGIN = "<login>"
UNCHECKED = "<unchecked>"
"""What replaces a compressed stream too big to inflate and search whole."""
SECRET_MIN = 8
"""Shortest login value treated as secret (shorter ones are flags and names like "oauth")."""
_B64_SKIP = (0, 2, 3)
"""Base64 characters at the start that still depend on the bytes before the secret, per alignment."""


def _base64_cores(raw: bytes) -> set[str]:
    """The base64 text of RAW wherever it sits in a longer encoded text: for each of the 3 alignments,
    the characters that depend on RAW's bytes alone (std and urlsafe), plus the whole encoding with
    and without padding."""
    out: set[str] = set()
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        whole = encode(raw).decode()
        out.update({whole, whole.rstrip("=")})
        for k in range(3):
            full = encode(b"\0" * k + raw).decode()
            out.add(full[_B64_SKIP[k]:(k + len(raw)) // 3 * 4])
    return out


def _base32_cores(raw: bytes) -> set[str]:
    """The base32 text of RAW wherever it sits in a longer encoded text (5 alignments, the characters
    that depend on RAW alone), upper and lower case, with and without padding."""
    whole = base64.b32encode(raw).decode()
    out = {whole, whole.rstrip("=")}
    for k in range(5):
        full = base64.b32encode(b"\0" * k + raw).decode()
        out.add(full[-(-k * 8 // 5):(k + len(raw)) * 8 // 5])
    return out | {v.lower() for v in out}


def variants(secret: str) -> list[str]:
    """SECRET and its simple transforms (reversed, base64, base32, hex, URL-encoded), longest first;
    parts shorter than SECRET_MIN are dropped (they would match by chance)."""
    raw = secret.encode("utf-8")
    out = {secret, secret[::-1], raw.hex(), raw.hex().upper(), quote(secret, safe=""), quote_plus(secret),
           *_base64_cores(raw), *_base32_cores(raw)}
    return sorted((v for v in out if len(v) >= SECRET_MIN), key=len, reverse=True)


def _trie(words: Iterable[str]) -> str:
    """A regex matching any of WORDS, shaped as a trie: one pass over a text costs a few comparisons
    per character however many words there are (a flat alternation tries every word at every place)."""
    root: dict[str, Any] = {}
    for word in words:
        node = root
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: dict[str, Any]) -> str:
        alts = [re.escape(ch) + build(sub) for ch, sub in sorted(node.items()) if ch]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        return f"(?:{body})?" if "" in node else body
    return build(root)


@functools.lru_cache(maxsize=16)
def _pattern(forms: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(_trie(forms))


def _compact(text: str) -> str:
    """TEXT without whitespace (any kind, any length)."""
    return "".join(text.split())


def _runs(text: str) -> tuple[list[int], list[int]]:
    """Where each whitespace run of TEXT sits in its compact text, and how much whitespace lies up
    to and including it: what maps a compact place back (built only when a form was found)."""
    at: list[int] = []
    upto: list[int] = []
    removed = 0
    for m in re.finditer(r"\s+", text):
        at.append(m.start() - removed)
        removed += m.end() - m.start()
        upto.append(removed)
    return at, upto


def _original(i: int, at: list[int], upto: list[int]) -> int:
    """The place in the original text of compact character I."""
    j = bisect.bisect_right(at, i) - 1
    return i + (upto[j] if j >= 0 else 0)


_ENCODED_RUN = re.compile(r"[A-Za-z0-9+/_\-]{16,}={0,2}(?:\s+[A-Za-z0-9+/_\-]+={0,2})*")
"""A base64-looking run, possibly wrapped or indented over lines: decoded in search of a compressed
stream holding a secret."""
INFLATE_LIMIT = 16 << 20
"""At most this much is inflated from one run; a run that holds more is replaced whole (UNCHECKED)."""
_CHUNK = 1 << 16
_MAX_STARTS = 4096
"""Compressed-stream starts tried in one run; a run with more is replaced whole (UNCHECKED)."""
_URLSAFE = str.maketrans("-_", "+/")


def _starts(raw: bytes) -> Iterator[tuple[int, int]]:
    """(offset, wbits) of every place in RAW a compressed stream could start: raw deflate at 0, each
    gzip magic, each zlib header with a 32 KiB window."""
    yield 0, -zlib.MAX_WBITS
    for m in re.finditer(rb"\x1f\x8b\x08|\x78[\x01\x5e\x9c\xda]", raw):
        yield m.start(), zlib.MAX_WBITS | 32 if raw[m.start()] == 0x1F else zlib.MAX_WBITS


def _inflate(data: bytes, wbits: int) -> Iterator[bytes]:
    """DATA inflated in chunks of at most _CHUNK bytes, up to the end of the stream or the first error
    (what came before the error is still given); the caller stops when it has seen enough."""
    d = zlib.decompressobj(wbits)
    for pos in range(0, len(data), 4096):
        piece = data[pos:pos + 4096]
        while piece:
            before = d.copy()
            try:
                out = d.decompress(piece, _CHUNK)
            except zlib.error:
                yield from _replay(before, piece)
                return
            piece = d.unconsumed_tail
            if out:
                yield out
            if d.eof:
                return


def _replay(d: Any, piece: bytes) -> Iterator[bytes]:
    """What D yields from PIECE byte by byte before the error it hits (the error call loses its output)."""
    for i in range(len(piece)):
        try:
            out = d.decompress(piece[i:i + 1])
        except zlib.error:
            return
        if out:
            yield out
        if d.eof:
            return


def _decodings(run: str) -> Iterator[bytes]:
    """The bytes of RUN (whitespace and padding dropped, urlsafe read as std) at each of the 4
    alignments a run glued to other base64-alphabet text can have."""
    compact = "".join(run.split()).replace("=", "").translate(_URLSAFE)
    for k in range(4):
        part = compact[k:]
        try:
            yield binascii.a2b_base64(part[:len(part) // 4 * 4])
        except binascii.Error:
            continue


class Redactor:
    """Replaces path labels (longest first) and login secrets (whole or cut short) in any nested value.

    `paths` maps a path to its label (empty paths are ignored); each of `secrets` becomes `<login>`.
    """

    def __init__(self, paths: Mapping[str, str] | None = None, secrets: Sequence[str] = ()) -> None:
        self.pairs = sorted(((k, v) for k, v in (paths or {}).items() if k), key=lambda kv: -len(kv[0]))
        self.secrets = sorted(set(secrets), key=len, reverse=True)
        self.forms = sorted({v for s in self.secrets for v in variants(s)}, key=len, reverse=True)
        compact = sorted({"".join(f.split()) for f in self.forms} - {""}, key=len, reverse=True)
        self._any = _pattern(tuple(compact)) if compact else None
        """Every form, whitespace dropped: searched in a text whose whitespace is dropped too."""
        self._longest = len(compact[0]) if compact else 0

    def text(self, value: str) -> str:
        """One string with every secret and path replaced."""
        for path, label in self.pairs:
            value = value.replace(path, label)
        if self._any is None:
            return value
        value = _ENCODED_RUN.sub(self._compressed, value)
        value = self._forms_out(value)
        for secret in self.secrets:
            for cut in range(len(secret) - 1, SECRET_MIN - 1, -1):
                if value.endswith(secret[:cut]):
                    value = value[:-cut] + LOGIN
                    break
        return value

    def _forms_out(self, value: str) -> str:
        """VALUE with every form replaced, also one split by whitespace anywhere inside it."""
        assert self._any is not None
        compact = self._compact(value)
        spans = [m.span() for m in self._any.finditer(compact) if m.end() > m.start()]
        if not spans:
            return value
        at, upto = _runs(value) if len(compact) < len(value) else ([], [])
        out, last = [], 0
        for start, end in spans:
            a, b = _original(start, at, upto), _original(end - 1, at, upto) + 1
            out += [value[last:a], LOGIN]
            last = b
        return "".join(out) + value[last:]

    _compact = staticmethod(_compact)

    def _compressed(self, match: re.Match[str]) -> str:
        """A base64 run holding a compressed stream that holds a secret (in any form) -> LOGIN; one
        that holds more than INFLATE_LIMIT, or too many stream starts, -> UNCHECKED."""
        spent, starts = 0, 0
        for raw in _decodings(match.group(0)):
            for offset, wbits in _starts(raw):
                starts += 1
                if starts > _MAX_STARTS:
                    return UNCHECKED
                tail = b""
                for chunk in _inflate(raw[offset:], wbits):
                    spent += len(chunk)
                    if spent > INFLATE_LIMIT:
                        return UNCHECKED
                    window = tail + b"".join(chunk.split())
                    if self._holds(window):
                        return LOGIN
                    tail = window[-4 * self._longest:]
        return match.group(0)

    def _holds(self, data: bytes) -> bool:
        """Whether DATA (inflated, whitespace dropped) holds a form of a secret."""
        assert self._any is not None
        return self._any.search(data.decode("utf-8", errors="replace")) is not None
    def __call__(self, value: Any) -> Any:
        """VALUE (a string, or lists and dicts of them, at any depth) redacted; other values as they are."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self(v) for v in value]
        if isinstance(value, dict):
            return {k: self(v) for k, v in value.items()}
        return value

    def record(self, record: RunRecord) -> RunRecord:
        """RECORD with every string field redacted (a new record)."""
        return RunRecord.model_validate(self(record.model_dump()))

    def call(self, call: Call) -> Call:
        """CALL with every string field redacted."""
        return Call.model_validate(self(call.model_dump()))

    def event(self, event: Event) -> Event:
        """A live EVENT with its text and calls redacted (what a view shows is what a record would say)."""
        if not self.forms and not self.pairs:
            return event
        if isinstance(event, CallFinished | CallStarted):
            return dataclasses.replace(event, call=self.call(event.call))
        if isinstance(event, CallsReset):
            return CallsReset(tuple(self.call(c) for c in event.calls))
        if isinstance(event, TextSeen):
            return TextSeen(self.text(event.text))
        if isinstance(event, RunEnded):
            return dataclasses.replace(event, text=self(event.text), error=self(event.error))
        return event


def login_secrets(targets: Iterable[Path]) -> list[str]:
    """The values in the login files a run was given (JSON strings, else long words): a host whose
    shell may read its own login (Codex) must not carry them into a record."""
    out: set[str] = set()
    for target in targets:
        path = Path(os.path.realpath(target))
        if not path.is_file() or path.stat().st_size > 1_000_000:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        try:
            values = list(_strings(json.loads(text)))
        except ValueError:
            values = re.findall(r"[^\s\"'=:,]+", text)
        out.update(v for v in values if len(v) >= SECRET_MIN)
    return sorted(out, key=len, reverse=True)


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)
