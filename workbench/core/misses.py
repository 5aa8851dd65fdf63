"""Why a link that reaches no file misses: the hint audit's DANGLING finding carries.

The first that applies, in order: a file beside it whose name differs only in case; a file of that name
elsewhere in the linking Skill's folder; for a bare `NAME/SKILL.md`, no Skill folder NAME in the
workspace (a Skill the host or another plugin provides); the one file of the workspace whose path ends
as the link's does, its last folder included, a bare `SKILL.md` never (a Skill renamed or moved: the
path to write; a rule the repository keeps in its own `.claude/rules/`, outside the row's plugin: a file
no installed plugin ships).
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

from workbench.core.linkfiles import TEMPLATE, is_project_file

_NOT_WALKED = (".git", "node_modules")


class Tree:
    """The files, Skill folders and plugins under a workspace's plugin folder TOP, each found once, when
    first asked."""

    def __init__(self, top: Path | None) -> None:
        self.top = top.resolve() if top is not None else None

    @functools.cached_property
    def _walk(self) -> tuple[dict[str, list[Path]], set[str]]:
        files: dict[str, list[Path]] = {}
        skills: set[str] = set()
        for folder, subfolders, names in os.walk(self.top) if self.top is not None else ():
            subfolders[:] = [d for d in subfolders if d not in _NOT_WALKED]
            skills |= {d for d in subfolders if os.path.isfile(os.path.join(folder, d, "SKILL.md"))}  # symlinks too
            for name in names:
                files.setdefault(name, []).append(Path(folder, name))
        return files, skills

    @functools.cached_property
    def roots(self) -> list[Path]:
        """TOP and every plugin inside it, deepest first (`reach.plugin_roots`)."""
        from workbench.core.reach import plugin_roots

        return plugin_roots(self.top) if self.top is not None else []

    @property
    def files(self) -> dict[str, list[Path]]:
        """File name -> every file of that name."""
        return self._walk[0]

    @property
    def skill_names(self) -> set[str]:
        """The names of the folders that hold a SKILL.md, symlinked folders included."""
        return self._walk[1]


def hint(target: str, path: Path, file: Path | None, tree: Tree, own: Path | None) -> str:
    """The parenthesised hint for the missing TARGET (resolved to PATH) that FILE links, or ''. OWN is the
    row's plugin in a marketplace (None: the workspace is one plugin)."""
    twin = next((p.name for p in path.parent.iterdir() if p.name.lower() == path.name.lower()),
                None) if path.parent.is_dir() else None
    if twin:
        return f" ({twin} differs only in case)"
    return _found_in_skill(path.name, file) or _no_such_skill(target, tree) or _ends_alike(target, file, tree, own)


def _found_in_skill(name: str, file: Path | None) -> str:
    """" (the Skill has it at references/x.md)" when the folder of FILE holds a file NAME elsewhere: the
    link as written does not resolve, but the fix is its folder (`csrf.md` for `references/csrf.md`).
    FILE itself is never the answer: a missing `other/SKILL.md` is another Skill, not the linking one."""
    if file is None or not (file.parent / "SKILL.md").is_file():
        return ""  # a Skill's own folder only: a root AGENTS.md would search the whole repo
    found = sorted(p.relative_to(file.parent).as_posix() for p in file.parent.rglob(name)
                   if p.is_file() and p.resolve() != file.resolve())
    if not found:
        return ""
    return f" (the Skill has it at {', '.join(found[:3])}{', …' if len(found) > 3 else ''})"


def _no_such_skill(target: str, tree: Tree) -> str:
    """" (no Skill xlsx in the workspace: one the host or another plugin provides?)" when TARGET is a bare
    `NAME/SKILL.md` and no Skill folder of that name is in the workspace ("Read `xlsx/SKILL.md` before
    generating", a document Skill some hosts ship, not this plugin). A longer path (`../old-name/SKILL.md`)
    is a stale link, not a Skill from elsewhere."""
    parts = target.split("#")[0].split("/")
    if len(parts) != 2 or parts[1] != "SKILL.md" or parts[0] in ("", ".", "..") or parts[0] in tree.skill_names:
        return ""
    return f" (no Skill {parts[0]} in the workspace: one the host or another plugin provides?)"


def _ends_alike(target: str, file: Path | None, tree: Tree, own: Path | None) -> str:
    """The one file of TREE whose path ends as TARGET's, with as many trailing parts as match and at least
    its last folder (a bare name: its name; `../gone/README.md` is no `README.md` anywhere): " (did you mean
    ../charts/SKILL.md?)" inside the row's plugin OWN, or, outside it, where the workspace has it."""
    parts = [p for p in target.split("#")[0].split("/") if p not in ("", ".", "..")]
    if parts in ([], ["SKILL.md"]) or file is None or tree.top is None or TEMPLATE.search(target) or \
            is_project_file(target):
        return ""  # every Skill has a SKILL.md: a bare one names none of them
    named = [p for p in tree.files.get(parts[-1], []) if p.resolve() != file.resolve()]
    for size in range(len(parts), min(2, len(parts)) - 1, -1):
        found = [p for p in named if p.parts[-size:] == tuple(parts[-size:])]
        if found:
            break
    else:
        return ""
    if len(found) != 1:
        return ""
    hit = found[0]
    if own is not None and own not in hit.parents:
        return (f" (the workspace has it at {hit.relative_to(tree.top).as_posix()}, outside the plugin {own.name}: "
                "an installed plugin does not ship it)")
    return f" (did you mean {Path(os.path.relpath(hit, file.resolve().parent)).as_posix()}?)"
