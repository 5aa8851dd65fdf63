"""The one redaction walker: what a record must not carry, replaced in every string of it.

A run's own paths become their labels (`<repo>`, `<plugin>`, `~`), longest first so a run folder
inside the home is not cut at the home; values of the login files the run was given become
`<login>`, also when an excerpt cut one short at its end, and in the simple transforms a hostile
agent could print to slip past an exact match (`variants`: reversed, base64 std and urlsafe with or
without padding and at any alignment inside a longer encoding, base32 likewise, hex lower and upper,
URL-encoded), each also split across lines, and base64 of a gzip or zlib stream that holds one.
Every door's record goes through `Redactor.record` in the one record builder (runner/execute.py),
and every live event through `Redactor.event` before a view sees it.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
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


_ENCODED_RUN = re.compile(r"[A-Za-z0-9+/_\-]{16,}={0,2}(?:\r?\n[A-Za-z0-9+/_\-]+={0,2})*")
"""A base64-looking run, possibly wrapped over lines (`base64` wraps at 76): decoded in search of a
gzip or zlib stream holding a secret."""
INFLATE_LIMIT = 1 << 20
"""At most this much is inflated from one run (a bomb costs nothing)."""


def _inflated(run: str) -> bytes | None:
    """The gzip or zlib stream base64-encoded in RUN, inflated (capped), or None."""
    compact = re.sub(r"\s", "", run)
    for decode in (base64.b64decode, base64.urlsafe_b64decode):
        try:
            raw = decode(compact + "=" * (-len(compact) % 4))
        except (binascii.Error, ValueError):
            continue
        if raw[:2] == b"\x1f\x8b" or (len(raw) > 2 and raw[0] & 0x0F == 8 and int.from_bytes(raw[:2]) % 31 == 0):
            try:
                return zlib.decompressobj(zlib.MAX_WBITS | 32).decompress(raw, INFLATE_LIMIT)
            except zlib.error:
                return None
    return None


def variants(secret: str) -> list[str]:
    """SECRET and its simple transforms (reversed, base64, base32, hex, URL-encoded), longest first;
    parts shorter than SECRET_MIN are dropped (they would match by chance)."""
    raw = secret.encode("utf-8")
    out = {secret, secret[::-1], raw.hex(), raw.hex().upper(), quote(secret, safe=""), quote_plus(secret),
           *_base64_cores(raw), *_base32_cores(raw)}
    return sorted((v for v in out if len(v) >= SECRET_MIN), key=len, reverse=True)


class Redactor:
    """Replaces path labels (longest first) and login secrets (whole or cut short) in any nested value.

    `paths` maps a path to its label (empty paths are ignored); each of `secrets` becomes `<login>`.
    """

    def __init__(self, paths: Mapping[str, str] | None = None, secrets: Sequence[str] = ()) -> None:
        self.pairs = sorted(((k, v) for k, v in (paths or {}).items() if k), key=lambda kv: -len(kv[0]))
        self.secrets = sorted(set(secrets), key=len, reverse=True)
        self.forms = sorted({v for s in self.secrets for v in variants(s)}, key=len, reverse=True)
        self._split = re.compile("|".join("(?:\r?\n)?".join(map(re.escape, f)) for f in self.forms)) if self.forms \
            else None
        """Every form split across lines (`fold`, a wrapped base64): a newline may sit between any two characters."""

    def text(self, value: str) -> str:
        """One string with every secret and path replaced."""
        for path, label in self.pairs:
            value = value.replace(path, label)
        if self.secrets:
            value = _ENCODED_RUN.sub(self._compressed, value)
        for form in self.forms:
            value = value.replace(form, LOGIN)
        if self._split is not None and "\n" in value:
            value = self._split.sub(LOGIN, value)
        for secret in self.secrets:
            for cut in range(len(secret) - 1, SECRET_MIN - 1, -1):
                if value.endswith(secret[:cut]):
                    value = value[:-cut] + LOGIN
                    break
        return value

    def _compressed(self, match: re.Match[str]) -> str:
        """A base64 run that is a gzip/zlib stream holding a secret (in any of its forms) -> LOGIN."""
        inflated = _inflated(match.group(0))
        if inflated is None:
            return match.group(0)
        text = inflated.decode("utf-8", errors="replace")
        return LOGIN if any(form in text for form in (*self.secrets, *self.forms)) else match.group(0)

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
