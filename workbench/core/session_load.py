"""What each host loads into every session from a plugin, before the agent reads anything.

Every host lists the plugin's Skills at session start, so each Skill's front matter (name,
description) is loaded, never its body. A plugin with a manifest (`.claude-plugin/plugin.json` or
`marketplace.json`, `.codex-plugin/plugin.json`, `gemini-extension.json`) is installed, so its root
CLAUDE.md / AGENTS.md are documentation of the repo, not loaded; a plugin without one routes
through the repo's instruction file, which the host loads: CLAUDE.md (claude, sim), AGENTS.md
(codex, grok; opencode, else CLAUDE.md), GEMINI.md (gemini). Gemini loads an extension's
`contextFileName` (default GEMINI.md). Claude Code runs a plugin's SessionStart hooks: the `*.md`
files its hook scripts name are injected whole. `@path` imports of a loaded CLAUDE.md / GEMINI.md
are followed. The workspace's `[plugin] always_loaded` globs are added for every host.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from workbench.core.hostinfo import HOSTS, NAMES
from workbench.core.linkfiles import json_object, str_items
from workbench.core.markdown import path_words, read_text_lossy

MANIFESTS = (".claude-plugin/plugin.json", ".claude-plugin/marketplace.json", ".codex-plugin/plugin.json",
             "gemini-extension.json")
_IMPORT = re.compile(r"^\s*@(\S+\.md)\s*$", re.MULTILINE)


@dataclass(frozen=True)
class Loaded:
    """One text a host loads at session start: the file, the loaded part and why it is loaded."""

    path: Path
    text: str
    why: str


def has_manifest(plugin: Path) -> bool:
    """The plugin is packaged for a host (installed, not copied into the repo)."""
    return any((plugin / rel).is_file() for rel in MANIFESTS)


def front_matter_source(text: str) -> str:
    """The leading `---` block of TEXT, fences included ('' without one)."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return ""
    end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), None)
    return "\n".join(lines[:end + 1]) + "\n" if end is not None else ""


def manifest_skills(folder: Path, *, defaults: bool = True) -> tuple[list[Path], str | None]:
    """Skill folders a manifest names: `marketplace.json` plugins' `skills`, from each plugin's local
    source (a plugin kept elsewhere, a `git-subdir` or URL source, adds none; with DEFAULTS, an entry
    without the key gives its source's own `plugin.json` `skills`, else the source's `skills/*/`), else
    `plugin.json` `skills`. The marketplace comes first: a repo that is also a Codex plugin installs its
    Claude Code plugins from the marketplace. A path that cannot be a folder is skipped."""
    for rel in (".claude-plugin/marketplace.json", ".claude-plugin/plugin.json", ".codex-plugin/plugin.json"):
        data = json_object(folder / rel)
        named: list[tuple[Path, str]] = [(folder, item) for item in str_items(data.get("skills"))]
        for entry in (p for p in data.get("plugins", []) if isinstance(p, dict)):
            source = entry.get("source", "./")
            if not isinstance(source, str) or not source.startswith("./"):
                continue
            root = folder / source
            if "skills" in entry:
                named += [(root, item) for item in str_items(entry.get("skills"))]
            elif defaults and root.is_dir():
                own = json_object(root / ".claude-plugin/plugin.json")
                named += [(root, item) for item in str_items(own.get("skills"))] if "skills" in own else [(root, "skills")]
        dirs: list[Path] = []
        for base_dir, item in named:
            try:
                base = (base_dir / item).resolve()
                dirs += [base] if (base / "SKILL.md").is_file() else sorted(p.parent for p in base.glob("*/SKILL.md"))
            except (OSError, ValueError):  # a NUL byte, a path too long: no folder
                continue
        if dirs:
            return list(dict.fromkeys(dirs)), rel
    return [], None


def skill_files(plugin: Path, routing: list[Path]) -> list[Path]:
    """Every Skill a host lists: those a manifest names by its `skills` keys (else the plugin's
    `skills/*/SKILL.md`) and the routing files named SKILL.md."""
    listed, _ = manifest_skills(plugin, defaults=False)
    skills = [d / "SKILL.md" for d in listed] if listed else sorted(plugin.glob("skills/*/SKILL.md"))
    found = {p.resolve(): None for p in skills}
    found.update({p.resolve(): None for p in routing if p.name == "SKILL.md"})
    return list(found)


def hook_injected(plugin: Path) -> list[Path]:
    """Files a SessionStart hook injects: `*.md` paths (from the plugin root) named in `hooks/` scripts."""
    hooks = plugin / "hooks" / "hooks.json"
    try:
        data = json.loads(hooks.read_text(encoding="utf-8")) if hooks.is_file() else {}
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return []
    if not isinstance(data, dict) or "SessionStart" not in (data.get("hooks") or {}):
        return []
    out: dict[Path, None] = {}
    for script in sorted((plugin / "hooks").iterdir()):
        if script.is_file() and script.suffix != ".json":
            try:
                text = script.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            for word in path_words(text):
                word = re.sub(r"^(?:[^/]*[{$][^/]*/)+", "", word)  # `${PLUGIN_ROOT}/skills/x.md`
                path = (plugin / word.lstrip("/")).resolve()
                if path.is_file():
                    out[path] = None
    return list(out)


def _extension_context(manifest: Path, default: tuple[str, ...]) -> tuple[str, ...]:
    """The instruction files an extension manifest names (`contextFileName`; the host's own when unset)."""
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return ()
    name = data.get("contextFileName") if isinstance(data, dict) else None
    if name is None:
        return default
    return tuple(name) if isinstance(name, list) else (str(name),)


def _with_imports(path: Path, why: str, *, follow: bool, seen: set[Path]) -> list[Loaded]:
    if path in seen or not path.is_file():
        return []
    seen.add(path)
    text = read_text_lossy(path)[0]  # the routing read warns about bytes that are not UTF-8
    out = [Loaded(path, text, why)]
    if follow:
        for target in _IMPORT.findall(text):
            out += _with_imports((path.parent / target).resolve(), f"imported by {path.name}", follow=True, seen=seen)
    return out


def session_load(plugin: Path, host: str, *, routing: list[Path], extra: list[Path]) -> list[Loaded]:
    """Every text HOST loads from PLUGIN at session start (see the module docstring)."""
    seen: set[Path] = set()
    whole: list[Loaded] = []
    instruction: tuple[str, ...] = ()
    info = HOSTS.get(host)
    manifest = info.extension_manifest if info else None
    if manifest and (plugin / manifest).is_file():
        instruction = _extension_context(plugin / manifest, info.instructions if info else ())
    elif not has_manifest(plugin):
        instruction = info.instructions if info else ()
    for name in instruction:
        if (plugin / name).is_file():
            whole += _with_imports((plugin / name).resolve(), f"{host} loads {name}",
                                   follow=bool(info and info.follows_imports), seen=seen)
            break
    if info and info.session_hooks:
        for path in hook_injected(plugin):
            whole += _with_imports(path, "injected by a SessionStart hook", follow=False, seen=seen)
    for path in extra:
        whole += _with_imports(path.resolve(), "[plugin] always_loaded", follow=False, seen=seen)
    descriptions = [Loaded(p, front_matter_source(read_text_lossy(p)[0]), "Skill front matter (name, description)")
                    for p in skill_files(plugin, routing) if p not in seen]
    return whole + [d for d in descriptions if d.text]


def hosts() -> tuple[str, ...]:
    """The hosts a budget is measured for."""
    return NAMES
