"""The one redaction walker: what a record must not carry, replaced in every string of it.

A run's own paths become their labels (`<repo>`, `<plugin>`, `~`), longest first so a run folder
inside the home is not cut at the home; values of the login files the run was given become
`<login>`, also when an excerpt cut one short at its end. Every door's record goes through
`Redactor.record` in the one record builder (runner/execute.py).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from workbench.core.models import RunRecord

LOGIN = "<login>"
SECRET_MIN = 8
"""Shortest login value treated as secret (shorter ones are flags and names like "oauth")."""


class Redactor:
    """Replaces path labels (longest first) and login secrets (whole or cut short) in any nested value.

    `paths` maps a path to its label (empty paths are ignored); each of `secrets` becomes `<login>`.
    """

    def __init__(self, paths: Mapping[str, str] | None = None, secrets: Sequence[str] = ()) -> None:
        self.pairs = sorted(((k, v) for k, v in (paths or {}).items() if k), key=lambda kv: -len(kv[0]))
        self.secrets = sorted(set(secrets), key=len, reverse=True)

    def text(self, value: str) -> str:
        """One string with every secret and path replaced."""
        for path, label in self.pairs:
            value = value.replace(path, label)
        for secret in self.secrets:
            value = value.replace(secret, LOGIN)
            for cut in range(len(secret) - 1, SECRET_MIN - 1, -1):
                if value.endswith(secret[:cut]):
                    value = value[:-cut] + LOGIN
                    break
        return value

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
