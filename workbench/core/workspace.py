"""The workspace file `workbench.toml`: where a plugin's routing rows, cases, canaries and records live.

`load_workspace()` finds `workbench.toml` upward from the current folder; with none, it returns the
bundled demo workspace (this package's repo root), so `workbench` always has something to show.
Every path in the file is relative to the file's folder; errors name file, line and key.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from workbench.core.errors import InputError
from workbench.core.locate import field_name, key_line
from workbench.core.tiers import Tier, merged_tiers

FILENAME = "workbench.toml"
PACKAGE_ROOT = Path(__file__).resolve().parent.parent.parent
"""The repo root of this package: the bundled demo workspace."""


class PluginConfig(BaseModel):
    """The plugin under test: its repo (git) folder and the Skill the routing starts from."""

    model_config = ConfigDict(extra="forbid")

    path: str = Field(default="plugin", description="Plugin folder (inside a git repo for arms).")
    entry_skill: str | None = Field(default=None, description="Skill name whose load means 'entry loaded'.")
    routing: list[str] = Field(default_factory=lambda: ["skills/*/SKILL.md"],
                               description="Globs (relative to the plugin folder) of files holding routing rows.")
    procedures: list[str] = Field(default_factory=lambda: ["skills/*/workflows/*.md"],
                                  description="Globs of procedure files; audit reports those no row links.")
    always_loaded: list[str] = Field(default_factory=list,
                                     description="Globs of text loaded into every session (budget audit); "
                                                 "default: the routing files.")


class Defaults(BaseModel):
    """Host, model and effort used when a command does not name them."""

    model_config = ConfigDict(extra="forbid")

    hosts: list[str] = Field(default_factory=lambda: ["sim"])
    models: list[str] = Field(default_factory=list)
    effort: str | None = None


class AuditConfig(BaseModel):
    """Caps for `workbench audit`."""

    model_config = ConfigDict(extra="forbid")

    token_cap: int = Field(default=2000, ge=0, description="Estimated-token cap for always-loaded text.")
    line_cap: int | None = Field(default=None, ge=0)
    char_cap: int | None = Field(default=None, ge=0)
    max_row_chars: int = Field(default=160, ge=10, description="Lint: longest acceptable routing row.")


class ArmConfig(BaseModel):
    """A stored arm: a git ref of the plugin repo and environment variables for the host."""

    model_config = ConfigDict(extra="forbid")

    ref: str | None = Field(default=None, description="Git ref; default workbench/arm/NAME (baseline: HEAD).")
    env: dict[str, str] = Field(default_factory=dict)
    row: str | None = Field(default=None, description="The routing row the arm edits, if it edits one.")
    note: str | None = None


class WorkspaceFile(BaseModel):
    """The validated content of `workbench.toml`."""

    model_config = ConfigDict(extra="forbid")

    name: str = "workspace"
    plugin: PluginConfig = Field(default_factory=PluginConfig)
    cases: str = "cases"
    canaries: str = "canaries"
    records: str = "records"
    base_fixture: str = "fixtures/base"
    defaults: Defaults = Field(default_factory=Defaults)
    guarded: list[str] = Field(default_factory=list, description="Paths the guard protects (globs).")
    audit: AuditConfig = Field(default_factory=AuditConfig)
    arms: dict[str, ArmConfig] = Field(default_factory=dict)
    tiers: dict[str, Tier] = Field(default_factory=lambda: merged_tiers({}),
                                   description="Batch presets (`batch --tier NAME`); smoke, decide, publish built in.")

    @field_validator("tiers", mode="before")
    @classmethod
    def _builtin_tiers(cls, raw: Any) -> Any:
        return merged_tiers(raw)


class Workspace(BaseModel):
    """A loaded workspace: its root folder, its file (None for defaults) and resolved paths."""

    root: Path
    file: Path | None
    config: WorkspaceFile
    demo: bool = False

    def path(self, rel: str) -> Path:
        """A path of the workspace file, resolved against the workspace root."""
        return (self.root / rel).resolve()

    @property
    def plugin_dir(self) -> Path:
        return self.path(self.config.plugin.path)

    @property
    def cases_dir(self) -> Path:
        return self.path(self.config.cases)

    @property
    def canaries_dir(self) -> Path:
        return self.path(self.config.canaries)

    @property
    def records_dir(self) -> Path:
        return self.path(self.config.records)

    @property
    def base_fixture(self) -> Path:
        return self.path(self.config.base_fixture)

    def _glob(self, patterns: list[str]) -> list[Path]:
        found: dict[Path, None] = {}
        for pattern in patterns:
            for p in sorted(self.plugin_dir.glob(pattern)):
                if p.is_file():
                    found[p.resolve()] = None
        return list(found)

    def routing_files(self) -> list[Path]:
        """Files matching the routing globs, in glob order, without duplicates."""
        return self._glob(self.config.plugin.routing)

    def procedure_files(self) -> list[Path]:
        """Files matching the procedure globs, routing files excluded."""
        routing = set(self.routing_files())
        return [p for p in self._glob(self.config.plugin.procedures) if p not in routing]

    def always_loaded_files(self) -> list[Path]:
        """Always-loaded files (default: the routing files)."""
        return self._glob(self.config.plugin.always_loaded) if self.config.plugin.always_loaded \
            else self.routing_files()


def parse_workspace(text: str, *, file: Path) -> WorkspaceFile:
    """Validate the text of a workspace file; bad input -> InputError with file, line and key."""
    try:
        data: Any = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"line (\d+)", str(exc))
        raise InputError(f"invalid TOML: {exc}", file=str(file),
                         line=int(found.group(1)) if found else None) from None
    try:
        return WorkspaceFile.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        raise InputError(str(err["msg"]), file=str(file), line=key_line(text, err["loc"]),
                         field=field_name(err["loc"]) or None) from None


def read_workspace(file: Path) -> Workspace:
    """Load one workspace file."""
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read workspace file: {exc}", file=str(file)) from None
    root = file.resolve().parent
    return Workspace(root=root, file=file.resolve(), config=parse_workspace(text, file=file),
                     demo=root == PACKAGE_ROOT)


def find_workspace_file(start: Path | None = None) -> Path | None:
    """The nearest `workbench.toml` in START (default cwd) or a parent folder."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / FILENAME).is_file():
            return folder / FILENAME
    return None


def load_workspace(start: Path | None = None) -> Workspace:
    """The workspace found upward from START, else the bundled demo workspace."""
    file = find_workspace_file(start)
    if file is not None:
        return read_workspace(file)
    demo = PACKAGE_ROOT / FILENAME
    if demo.is_file():
        return read_workspace(demo)
    return Workspace(root=PACKAGE_ROOT, file=None, config=WorkspaceFile(name="demo"), demo=True)


INIT_TEMPLATE = """\
# Trigger Workbench workspace: paths are relative to this file.
name = "{name}"
cases = "workbench/cases"
canaries = "workbench/canaries"
records = "workbench/records"
base_fixture = "workbench/fixtures/base"
guarded = []

[plugin]
path = "."
{entry}routing = {routing}
procedures = {procedures}

[defaults]
hosts = ["sim"]
models = []

[audit]
token_cap = 2000
max_row_chars = 160
"""


def init_text(folder: Path) -> str:
    """A starting `workbench.toml` for a plugin repo at FOLDER (guesses the entry skill)."""
    skills = sorted(folder.glob("skills/*/SKILL.md")) or sorted(folder.glob("**/SKILL.md"))
    routing = sorted({p.relative_to(folder).as_posix() for p in skills}) or ["skills/*/SKILL.md"]
    entry = f'entry_skill = "{skills[0].parent.name}"\n' if skills else ""
    procs = sorted({(p.parent.relative_to(folder) / "**" / "*.md").as_posix() for p in skills})
    procs = procs or ["skills/*/workflows/*.md"]
    fmt = "[" + ", ".join(f'"{r}"' for r in routing) + "]"
    pfmt = "[" + ", ".join(f'"{r}"' for r in procs) + "]"
    return INIT_TEMPLATE.format(name=folder.resolve().name, entry=entry, routing=fmt, procedures=pfmt)
