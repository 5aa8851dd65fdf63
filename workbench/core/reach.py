"""What an agent can reach from what the hosts load: the reachability behind audit's UNINDEXED.

Starts are the files a host loads or offers from each plugin of the workspace (`plugin_roots`):
every Skill's SKILL.md (`skills/*/`), and Claude Code's commands and subagents (`commands/` and
`agents/` markdown, the default folders, plus what plugin.json's `skills` / `commands` / `agents` keys
name); the caller adds the session-start files (`session_load`) and the routing files. From each
file reached, every mention (`markdown.mentions`) is followed when it names an existing file INSIDE
the mentioning file's own plugin (a marketplace installs each plugin on its own):

- relative to the file, then its Skill's folder, then (only a path with a folder part) its plugin root;
  `{baseDir}`, `${CLAUDE_SKILL_DIR}` and `${CLAUDE_PLUGIN_ROOT}` as the hosts expand them;
- a bare project-file name (`CLAUDE.md`, `AGENTS.md`, `README.md` ... in a code span or a word) is the
  user's project file ("update the `AGENTS.md` of your project"), never the repo's own: only a markdown
  link to it counts;
- a `folder/` code span reaches the markdown files directly in it, and only below the file's folder
  or its Skill's folder (`./`, `../other-skill/` and the plugin root reach nothing);
- a bare name that misses there, in the one folder the text names that holds it (`### references/`,
  "(in `references/`)", or in words beside a Skill's SKILL.md: "## Reference Files" for `references/`):
  `in_named_folder`, as the routing read resolves a link;
- files a Skill indexes by ID (`by_id`): a one-name code span (`async-parallel`) names the `.md` file of
  that stem in a folder of the Skill the text shows by writing out one of its files as a path
  (`rules/async-parallel.md`, a code block counts).
A file of the Skill named only by its stem of two or more words ("an Evolution-log entry" for
`references/evolution-log.md`: `named_by_stem`) is not reached; audit's finding says how it is named.
"""

from __future__ import annotations

import glob
import re
from pathlib import Path

from workbench.core.errors import InputError
from workbench.core.linkfiles import (
    TEMPLATE,
    exists_exactly,
    glob_pattern,
    is_project_file,
    json_object,
    skill_folders,
    str_items,
)
from workbench.core.markdown import (
    Mention,
    code_names,
    folders_in_words,
    mentions,
    named_folders,
    path_words,
    read_text_lossy,
    words_before,
)
from workbench.core.routing import MANIFESTS, host_path


def plugin_roots(top: Path) -> list[Path]:
    """TOP (the workspace's plugin folder) and every plugin inside it: a folder holding a plugin.json
    manifest, or a `source` of TOP's `.claude-plugin/marketplace.json`; deepest first."""
    top = top.resolve()
    found = {top}
    for rel in MANIFESTS:
        found |= {p.parents[1].resolve() for p in top.rglob(Path(rel).name)
                  if p.parent.name == Path(rel).parent.name and ".git" not in p.parts}
    entries = json_object(top / ".claude-plugin/marketplace.json").get("plugins")
    for entry in entries if isinstance(entries, list) else []:
        source = entry.get("source") if isinstance(entry, dict) else None
        if isinstance(source, str) and source.startswith("./") and (top / source).is_dir():
            found.add((top / source).resolve())
    return sorted(found, key=lambda p: len(p.parts), reverse=True)


def own_root(file: Path, roots: list[Path]) -> Path:
    """The plugin FILE belongs to: the deepest of ROOTS holding it (the last root when none does)."""
    resolved = str(file.resolve())
    return next((r for r in roots if _inside(resolved, str(r))), roots[-1])


def _inside(path: str, folder: str) -> bool:
    """PATH (resolved) is FOLDER (resolved) or lies under it; by text, as `Path.is_relative_to` decides."""
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _named(root: Path, value: object) -> list[Path]:
    return [(root / item).resolve() for item in str_items(value)]


def host_loaded(root: Path) -> list[Path]:
    """The markdown files a host loads or offers from one plugin ROOT: each Skill's SKILL.md and
    Claude Code's commands and subagents (default folders and the manifest's keys)."""
    manifest = next((json_object(root / rel) for rel in MANIFESTS if (root / rel).is_file()), {})
    out: dict[Path, None] = {}
    for key in ("skills", "commands", "agents"):
        for place in [root / key, *_named(root, manifest.get(key))]:
            if key == "skills":
                files = [place / "SKILL.md"] if (place / "SKILL.md").is_file() else sorted(place.glob("*/SKILL.md"))
            else:
                files = [place] if place.is_file() else sorted(place.rglob("*.md")) if place.is_dir() else []
            out.update({f.resolve(): None for f in files if f.suffix.lower() == ".md"})
    return list(out)


def _skill_dir(file: Path, root: Path) -> Path | None:
    """The folder of the nearest SKILL.md at or above FILE's folder, inside ROOT."""
    for folder in (file.parent, *file.parent.parents):
        if (folder / "SKILL.md").is_file():
            return folder
        if folder == root or root not in folder.parents:
            break
    return None


def _bases(mention: Mention, file: Path, root: Path) -> tuple[list[Path], str]:
    """The folders MENTION may be relative to, in order, and the path to look up in them."""
    clean = mention.target.removeprefix("@").lstrip("/")
    expanded = host_path(clean, file.parent, root)
    if expanded is not None:
        return [expanded[0]], expanded[1]
    bare = "/" not in clean.removeprefix("./").rstrip("/")
    near = [b for b in (file.parent, _skill_dir(file, root)) if b is not None]
    if mention.kind == "folder":
        parts = clean.rstrip("/").split("/")
        return ([] if clean in ("./", ".") or ".." in parts else near), clean
    if mention.kind != "link" and is_project_file(clean):
        return [], clean
    return list(dict.fromkeys(near + ([] if bare else [root]))), clean


def resolve_mention(mention: Mention, file: Path, root: Path) -> list[Path]:
    """The existing files inside ROOT that MENTION (in FILE) names: one file, every file a templated
    path (`{language}/x.md`) matches, or the markdown files directly in a mentioned folder."""
    bases, clean = _bases(mention, file, root)
    for base in bases:
        if mention.kind == "folder":
            folders = [p for p in base.glob(glob_pattern(clean.rstrip("/")))] if TEMPLATE.search(clean) \
                else [base / clean]
            found = sorted(p.resolve() for d in folders if d.is_dir() and d.resolve() != base.resolve()
                           for p in d.glob("*.md") if p.is_file())
        elif TEMPLATE.search(clean):
            found = sorted(p.resolve() for p in base.glob(glob_pattern(clean)) if p.is_file())
        else:
            path = (base / clean).resolve()
            found = [path] if exists_exactly(path) else []
        found = [p for p in found if root in p.parents]
        if found:
            return found
    return []


def by_id(text: str, file: Path, root: Path) -> list[Path]:
    """The files of FILE's Skill that TEXT indexes by ID: in the folder of each path it writes out relative
    to FILE that exists inside the Skill (code blocks included: "Read the rule files: ```rules/a.md```"),
    the `.md` file of each one-name code span outside code blocks (`async-parallel`), and every `.md` file
    a prefix span names the start of (`query-`: a category of rules, `rules/query-*.md`)."""
    skill = _skill_dir(file, root) or file.parent
    folders = {path.parent for word in path_words(text) if "/" in word
               if exists_exactly(path := (file.parent / word).resolve()) and skill in path.parents}
    if not folders:
        return []
    names = code_names(text)
    return sorted({path for folder in folders for name in names
                   for path in (folder.glob(f"{glob.escape(name)}*.md") if name[-1] in "-_" else [folder / f"{name}.md"])
                   if exists_exactly(path)})


def named_by_stem(file: Path, root: Path, words: dict[Path, dict[str, str]]) -> str | None:
    """How FILE's Skill (the nearest SKILL.md above it, inside ROOT) names FILE when it writes its name of two
    or more words without `.md`, right before a word for a file or an entry, outside code blocks ("an
    Evolution-log entry" for `references/evolution-log.md`): the word as written, else None. Not a
    reach: the agent has to search for the file; audit's UNINDEXED finding says how the Skill names it.
    A concept of the same name ("Chain-of-Thought with …", "a follow-up call") is no mention. WORDS
    keeps each SKILL.md's words, read once per audit."""
    skill = _skill_dir(file, root)
    if skill is None or not _MULTI_WORD.search(file.stem):
        return None
    if skill not in words:
        try:
            words[skill] = words_before(read_text_lossy(skill / "SKILL.md")[0], _ENTRY_NOUNS)
        except InputError:
            words[skill] = {}
    return words[skill].get(file.stem.lower())


_ENTRY_NOUNS = r"entry|entries|files?|guides?|docs?|documents?|templates?|checklists?|logs?|notes|references?"
"""What a file's name stands before when the text means that file: "an Evolution-log entry"."""
_MULTI_WORD = re.compile(r"\w[-_]\w")


def in_named_folder(mention: Mention, file: Path, root: Path, folders: set[str]) -> list[Path]:
    """The one file MENTION (`api.md`, `context/api.md`: a path that climbs nowhere) names in a folder
    FILE's text names (`### references/`, "organized in the `references/` folder:"), as the routing read
    resolves such a link (`markdown.named_folders`)."""
    if mention.kind == "folder" or ".." in mention.target.split("/") or mention.target.startswith("/") or (
            TEMPLATE.search(mention.target)) or (mention.kind != "link" and is_project_file(mention.target)):
        return []
    found = {path for folder in folders
             if exists_exactly(path := (file.parent / folder / mention.target).resolve()) and root in path.parents}
    return list(found) if len(found) == 1 else []


def case_twin(mention: Mention, file: Path, root: Path) -> Path | None:
    """A file MENTION names only when case is ignored (`FORMS.md` for `forms.md`): a real break on a
    case-sensitive disk, reported as such rather than as an unlinked procedure."""
    if mention.kind == "folder":
        return None
    bases, clean = _bases(mention, file, root)
    for base in bases:
        folder = (base / clean).parent
        if folder.is_dir():
            twin = next((p for p in folder.iterdir() if p.name.lower() == Path(clean).name.lower()
                         and p.name != Path(clean).name), None)
            if twin is not None:
                return twin.resolve()
    return None


def reachable(starts: list[Path], top: Path, roots: list[Path] | None = None) -> tuple[set[Path], dict[Path, str]]:
    """Every markdown file reached from STARTS (see the module docstring), and for files not reached
    but named in a way that misses, how (file -> "mentioned only as FORMS.md in SKILL.md (case …)").
    ROOTS: TOP's `plugin_roots`, when the caller has them."""
    roots = roots if roots is not None else plugin_roots(top)
    seen: set[Path] = set()
    hints: dict[Path, str] = {}
    todo = [p.resolve() for p in starts]
    while todo:
        file = todo.pop()
        if file in seen or not file.is_file() or file.suffix.lower() != ".md":
            continue
        seen.add(file)
        try:
            text = read_text_lossy(file)[0]  # the routing read warns about bytes that are not UTF-8
        except InputError:
            continue
        root = own_root(file, roots)
        todo += [p for p in by_id(text, file, root) if p not in seen]
        folders = {f for _, f in named_folders(text) if ".." not in f.split("/")} | folders_in_words(
            text, skill_folders(file))
        for mention in mentions(text):
            found = resolve_mention(mention, file, root) or in_named_folder(mention, file, root, folders)
            todo += [p for p in found if p not in seen]
            if not found:
                twin = case_twin(mention, file, root)
                if twin is not None:
                    hints.setdefault(twin, f"mentioned only as {mention.target} in {file.name} (case differs: a miss "
                                           "on a case-sensitive disk)")
    return seen, hints


def host_starts(top: Path, roots: list[Path] | None = None) -> list[Path]:
    """What the hosts load from every plugin of the workspace TOP (`host_loaded` per plugin root; ROOTS:
    TOP's `plugin_roots`, when the caller has them)."""
    return list(dict.fromkeys(p for root in (roots if roots is not None else plugin_roots(top))
                              for p in host_loaded(root)))
