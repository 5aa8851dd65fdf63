"""The arm: a named version of the plugin a run measures (pure data; git resolution is `runner/arms`).

An arm is a git ref of the plugin repo resolved to a sha (`baseline` is HEAD, `workbench arm new`
commits on `workbench/arm/NAME`), the plugin folder as it is (`@worktree`, canaries only), or an
unsaved draft (`@draft`: the folder with the draft's files applied in the run's copy), plus the env
the host gets. `workbench arm list`, the batch plan, the request and the TUI all hold this one type.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from workbench.core.errors import InputError
from workbench.core.identity import env_digest

BASELINE = "baseline"
"""The arm every workspace has: the plugin repo's HEAD."""
BRANCH_PREFIX = "workbench/arm/"
"""Where `workbench arm new` commits an arm NAME: branch `workbench/arm/NAME`."""
WORKTREE = "@worktree"
"""The ref of the plugin folder as it is, uncommitted edits included (canaries only)."""
DRAFT = "@draft"
"""The ref of an unsaved draft. Its records name the arm `draft` (`ref_name`: a recorded arm name
never starts with `@`)."""

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


@dataclass(frozen=True)
class Arm:
    """One arm: its name, the ref as given, the resolved sha (None for @worktree, @draft or a ref that
    does not exist), where the plugin is, the host's env, and the row it edits."""

    name: str
    ref: str
    sha: str | None
    repo_root: Path
    """The git repo holding the plugin folder."""
    subdir: str = ""
    """The plugin folder relative to the repo root ('' when the plugin is the whole repo)."""
    env: Mapping[str, str] = field(default_factory=dict)
    """Environment the host gets for this arm (e.g. a hook's off-switch, `EVAL_INJECTION_OFF=1`)."""
    row: str | None = None
    """The routing row the arm edits (as stored in `[arms.NAME]` or by `arm new`; None: not known)."""
    cases: frozenset[str] | None = None
    """The case ids this arm runs in a batch (None: every case); a no-row control runs only its row's cases."""
    edits: Mapping[str, str] = field(default_factory=dict)
    """A draft's files (path inside the plugin folder -> full text), written into the run's copy only."""

    @property
    def source(self) -> str | None:
        """What the record names as the arm's source: the sha, or a draft's content hash (`draft-…`)."""
        if self.sha is not None or not self.edits:
            return self.sha
        digest = hashlib.sha256()
        for path in sorted(self.edits):
            digest.update(path.encode() + b"\0" + self.edits[path].encode() + b"\0")
        return f"draft-{digest.hexdigest()[:16]}"

    @property
    def key(self) -> str:
        """What tells this arm's records apart (`core.summary.arm_key` of its records): the source, else
        the name, with `+env-<digest>` when the arm gives the host an environment."""
        base = self.source or self.name
        env = env_digest(self.env)
        return f"{base}+env-{env}" if env else base


def ref_name(ref: str) -> str:
    """The arm name a special ref runs under (`@draft` -> `draft`)."""
    return ref.removeprefix("@")


def check_arm_name(name: str) -> None:
    """An InputError unless NAME can name an arm (and a branch)."""
    if not _NAME.match(name) or name == BASELINE:
        raise InputError(f"arm name {name!r}: use letters, digits, '.', '_' or '-' (not 'baseline')",
                         field="--name")


def split_spec(spec: str) -> tuple[str, str]:
    """`NAME=REF` -> (NAME, REF); a bare NAME -> (NAME, "")."""
    name, _, ref = spec.partition("=")
    return name.strip(), ref.strip()


def parse_arms(spec: str) -> list[tuple[str, str]]:
    """`A=REF,B` -> [(A, REF), (B, "")]; a bare name is an arm of the workspace (`workbench arm list`),
    resolved by the caller. Names must be unique and non-empty."""
    out: list[tuple[str, str]] = []
    for part in (p.strip() for p in spec.split(",") if p.strip()):
        name, sep, ref = part.partition("=")
        if not name.strip() or (sep and not ref.strip()):
            raise InputError(f"expected NAME=REF or an arm name, got {part!r}", field="--arms")
        if name.strip() in (n for n, _ in out):
            raise InputError(f"arm {name.strip()!r} given twice", field="--arms")
        out.append((name.strip(), ref.strip()))
    if not out:
        raise InputError("no arm given", field="--arms")
    return out
