"""Content digests that tell runs apart: a script, an arm's environment, a case as run.

Two runs are the same measurement only when everything that changes how the run behaves is the
same; the digests below are how a plan key and a record name those inputs (`runner/batch.py`
RunKey, `runner/execute.py` build_record). A digest is of the canonical JSON of the content, so
the same script in TOML or in JSON, or a case file reformatted, keeps its digest.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from workbench.core.models import Case

UNKNOWN = "unknown"
"""The key of an input a record does not name (records written before it was recorded)."""


def digest(value: Any) -> str:
    """16 hex digits of the SHA-256 of VALUE's canonical JSON (sorted keys, no spaces)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def case_digest(case: Case) -> str:
    """The case as run: prompt, required files, moment, files, branches, exceptions (an edited case
    under the same id is another measurement)."""
    return digest(case.model_dump(mode="json"))


def env_digest(env: Mapping[str, str]) -> str | None:
    """The environment an arm gives the host, names and values (None: no environment)."""
    return digest(sorted(env.items())) if env else None
