"""The workspace file `workbench.toml`: where a plugin's routing rows, cases, canaries and records live.

`load_workspace()` finds `workbench.toml` upward from the current folder; with none, it returns the
bundled demo workspace (this package's repo root), so `workbench` always has something to show.
Every path in the file is relative to the file's folder; errors name file, line and key.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from workbench.core.errors import InputError
from workbench.core.locate import field_name, key_line, parse_toml
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
                                  description="Globs of procedure files; audit reports those no row links. "
                                              "A glob led by ! takes out the files it matches (\"!**/README.md\").")
    always_loaded: list[str] = Field(default_factory=list,
                                     description="Globs of extra text every host loads at session start "
                                                 "(budget audit), beside what the audit finds itself.")

    @field_validator("routing", "procedures", "always_loaded")
    @classmethod
    def _whole_double_stars(cls, globs: list[str]) -> list[str]:
        for glob in globs:
            if any("**" in part and part != "**" for part in glob.removeprefix("!").split("/")):
                raise ValueError(f"glob {glob!r}: `**` must be a whole folder name (`skills/**/x.md`)")
        return globs


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
    rows: dict[str, str] = Field(default_factory=dict,
                                 description="Row ids cases and arms refer to -> what the row said (trigger -> links); "
                                             "written by workbench so a vanished row fails loudly.")
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
        """The files PATTERNS match, in pattern order; a `!pattern` takes out what it matches (as in
        `.gitignore`: `"!**/README.md"`)."""
        found: dict[Path, None] = {}
        for pattern in patterns:
            if pattern.startswith("!"):
                for p in self.plugin_dir.glob(pattern[1:]):
                    found.pop(p.resolve(), None)
                continue
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
        """Files the `always_loaded` globs add to every host's session-start text."""
        return self._glob(self.config.plugin.always_loaded)


def parse_workspace(text: str, *, file: Path) -> WorkspaceFile:
    """Validate the text of a workspace file; bad input -> InputError with file, line and key."""
    data: Any = parse_toml(text, file=str(file))
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


@dataclass
class Layout:
    """What `init` found in a plugin repo, and a sentence per guess it made."""

    routing: list[str]
    procedures: list[str]
    entry: str | None
    guesses: list[str] = field(default_factory=list)


def _entry_skill(folder: Path, skills: list[Path]) -> tuple[str | None, str]:
    """The entry Skill and why: injected by a SessionStart hook, named `using-*`, the only one, or the
    one whose SKILL.md names the most other Skills."""
    from workbench.core.session_load import hook_injected

    names = [s.name for s in skills]
    for path in hook_injected(folder):
        if path.name == "SKILL.md" and path.parent.name in names:
            return path.parent.name, "its SKILL.md is injected by a SessionStart hook (hooks/)"
    using = [n for n in names if n.startswith("using-")]
    if len(using) == 1:
        return using[0], "its name starts with `using-`"
    if len(names) == 1:
        return names[0], "the only Skill"
    if not names:
        return None, ""
    def mentions(skill: Path) -> int:
        text = (skill / "SKILL.md").read_text(encoding="utf-8", errors="replace")
        return sum(1 for n in names if n != skill.name and re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", text))
    best = max(skills, key=mentions)
    return (best.name, f"its SKILL.md names {mentions(best)} other Skills, the most") if mentions(best) else \
        (None, "")


def _glob_for(folder: Path, files: list[Path]) -> list[str]:
    rels = sorted({p.relative_to(folder.resolve()).as_posix() for p in files})
    parents = {str(Path(r).parent.parent) for r in rels}
    if len(rels) > 1 and len(parents) == 1 and all(Path(r).name == "SKILL.md" for r in rels):
        every = sorted(p.relative_to(folder.resolve()).as_posix()
                       for p in folder.resolve().glob(f"{parents.pop()}/*/SKILL.md"))
        if every == rels:
            return [f"{Path(rels[0]).parent.parent.as_posix()}/*/SKILL.md".removeprefix("./")]
    return rels


def guess_layout(folder: Path) -> Layout:
    """Routing files, procedure globs and the entry Skill of the plugin repo at FOLDER."""
    from workbench.core.hostinfo import HOSTS
    from workbench.core.session_load import has_manifest, manifest_skills

    folder = folder.resolve()
    guesses: list[str] = []
    skills, manifest = manifest_skills(folder)
    if manifest:
        guesses.append(f"Skills: the {len(skills)} named in {manifest}")
    else:
        skills = sorted(p.parent for p in folder.glob("skills/*/SKILL.md")) or \
            sorted(p.parent for p in folder.glob("**/SKILL.md") if ".git" not in p.parts)
        if skills:
            guesses.append(f"Skills: {len(skills)} folder(s) holding a SKILL.md (no manifest lists them)")
    nested = [p for s in skills for p in sorted(s.glob("*/**/SKILL.md")) if ".git" not in p.parts]
    routing = _glob_for(folder, [s / "SKILL.md" for s in skills] + nested)
    if nested:  # a Skill's sub-Skills (`skills/sdk/ios/SKILL.md`): no host lists them, but their rows route
        guesses.append(f"routing: {len(nested)} SKILL.md file(s) inside those Skills' folders too")
    if not has_manifest(folder):
        for name in dict.fromkeys(n for h in HOSTS.values() for n in h.instructions):
            path = folder / name
            if path.is_file() and not path.is_symlink() and ".md" in path.read_text(encoding="utf-8", errors="replace"):
                routing.append(name)
                guesses.append(f"routing: {name} (no manifest, so the repo's instruction file routes)")
    if not routing:
        routing = ["skills/*/SKILL.md"]
        guesses.append("routing: no SKILL.md found; the default glob is written (audit will say EMPTY-GLOB)")
    procedures = sorted({f"{s.relative_to(folder).as_posix()}/**/*.md" for s in skills}) \
        if len(skills) <= 3 else sorted({f"{Path(r).parent.parent.as_posix()}/**/*.md" for r in
                                         (s.relative_to(folder) / "SKILL.md" for s in skills)})
    procedures = procedures or ["skills/*/workflows/*.md"]
    guesses.append(f"procedures: every markdown file under the Skills ({', '.join(procedures)})")
    if any(p.is_file() for s in skills for p in s.rglob("README.md")):  # what the glob it writes matches
        procedures.append("!**/README.md")
        guesses.append("procedures: READMEs left out (\"!**/README.md\"): they are for people reading the repo")
    entry, why = _entry_skill(folder, skills)
    guesses.append(f"entry Skill: {entry} ({why})" if entry else "entry Skill: none found; set plugin.entry_skill")
    return Layout(routing, procedures, entry, guesses)


def init_layout(folder: Path) -> tuple[str, Layout]:
    """The starting `workbench.toml` text and the layout (with its guesses) it was written from."""
    layout = guess_layout(folder)
    entry = f'entry_skill = "{layout.entry}"\n' if layout.entry else ""
    fmt = "[" + ", ".join(json.dumps(r) for r in layout.routing) + "]"
    pfmt = "[" + ", ".join(json.dumps(r) for r in layout.procedures) + "]"
    return INIT_TEMPLATE.format(name=folder.resolve().name, entry=entry, routing=fmt, procedures=pfmt), layout
