"""Audit of a workspace's plugin: links that go nowhere, procedures nothing links, always-loaded budget.

EMPTY-GLOB: a routing or procedure glob matches no file. DANGLING: a row links a file that does
not exist. UNSHIPPED: a row of a marketplace's plugin links a file that exists, but outside that plugin,
so the installed plugin does not have it (the fix is to move the file, not to mend the path).
UNINDEXED: a procedure file (the workspace's procedure globs) that no row links and nothing
reaches from what the hosts load (`core.reach`). BUDGET: per host and per plugin (a
user installs plugins, not marketplaces), the text it loads at session start (`session_load`: Skill
front matter, instruction files, hook-injected files; lines, characters, estimated tokens at ~4
characters a token) against the workspace's caps, filed on the file whose text crosses the cap.
NOT-OFFERED: per plugin and per modelled host (`core.listing`), a row the host would not show.
STUB: a linked or procedure file that holds only a path (`../../references/x.md`): a symlink git stored
as text, which a host reads as that path (`linkfiles.symlink_stub`); such a file is never UNINDEXED too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from workbench.core.linkfiles import is_project_file, link_exists, stub_note, symlink_stub
from workbench.core.lint import Finding
from workbench.core.listing import LIMITS, Entry, Listing, listed_name, listing, not_offered_reason
from workbench.core.misses import Tree, hint
from workbench.core.reach import host_starts, named_by_stem, own_root, plugin_roots, reachable
from workbench.core.routing import Row
from workbench.core.session_load import Loaded, hosts, session_load
from workbench.core.workspace import Workspace

BROKEN_LINK_RULES = ("DANGLING", "UNSHIPPED", "STUB")
"""The rules of a link that reaches no file once the plugin is installed: the editor asks before it runs
or saves such a wording."""
CHARS_PER_TOKEN = 4
"""A rough, host-neutral estimate; real tokenizers differ by tens of percent."""


@dataclass
class Budget:
    """Size of the text one host loads at session start."""

    files: list[Path]
    lines: int
    chars: int
    tokens: int
    token_cap: int
    line_cap: int | None = None
    char_cap: int | None = None
    host: str = ""
    parts: list[str] = field(default_factory=list)
    plugin: str = ""
    """The plugin of a marketplace ('' for the workspace's own plugin or files outside any plugin)."""

    def as_dict(self) -> dict[str, object]:
        return {"host": self.host, "plugin": self.plugin, "files": [str(f) for f in self.files], "parts": self.parts,
                "lines": self.lines,
                "chars": self.chars, "tokens": self.tokens, "token_cap": self.token_cap, "line_cap": self.line_cap,
                "char_cap": self.char_cap}


@dataclass
class AuditReport:
    """Findings (DANGLING, UNSHIPPED, UNINDEXED, BUDGET, ...) and the measured budget."""

    findings: list[Finding] = field(default_factory=list)
    budget: Budget | None = None
    """The largest host budget."""
    budgets: list[Budget] = field(default_factory=list)
    """One budget per host."""
    listings: list[Listing] = field(default_factory=list)
    """Per modelled host, what it would offer (`core.listing`)."""


def estimate_tokens(text: str) -> int:
    """Estimated tokens of TEXT (ceil of characters / CHARS_PER_TOKEN)."""
    return -(-len(text) // CHARS_PER_TOKEN)


def dangling(rows: list[Row], plugin: Path | None = None, tree: Tree | None = None) -> list[Finding]:
    """A DANGLING finding per link whose file does not exist (case-sensitive; templated paths match a
    glob), and an UNSHIPPED one per link that, inside the marketplace PLUGIN, lies outside the row's own
    plugin (each plugin installs on its own, so a link to the marketplace's `.claude/rules/` or to a
    sibling plugin reaches nothing once installed). TREE: the walk of PLUGIN behind the hints, when a
    caller keeps one across calls (the TUI editor's lint)."""
    tree = tree if tree is not None else Tree(plugin)
    roots = tree.roots
    out: list[Finding] = []
    for row in rows:
        own = own_root(row.file, roots) if roots and row.file is not None else None
        for target, path in dict.fromkeys((lk.target, lk.path) for lk in row.links):
            if link_exists(target, path):
                stub = symlink_stub(path)
                if stub is not None:
                    out.append(Finding("STUB", "error", f"{target} {stub_note(path, stub)}", row.file, row.line, row.id))
                    continue
                if own is None or own in path.parents or is_project_file(target):
                    continue
                out.append(Finding("UNSHIPPED", "error", f"{target} is outside the plugin {own.name}: an installed "
                                   "plugin does not ship it", row.file, row.line, row.id))
                continue
            note = hint(target, path, row.file, tree, own)
            out.append(Finding("DANGLING", "error", f"{target} does not exist{note}", row.file, row.line, row.id))
    return out


def empty_globs(ws: Workspace) -> list[Finding]:
    """A warning per routing or procedure glob that matches no file (a mistyped glob hides every row);
    a `!` glob that takes out nothing is one too."""
    out: list[Finding] = []
    for key, patterns in (("routing", ws.config.plugin.routing), ("procedures", ws.config.plugin.procedures)):
        for pattern in patterns:
            if not any(p.is_file() for p in ws.plugin_dir.glob(pattern.removeprefix("!"))):
                out.append(Finding("EMPTY-GLOB", "warning", f"plugin.{key} glob {pattern!r} matches no file",
                                   ws.file, None))
    return out


def unindexed(rows: list[Row], procedures: list[Path], *, plugin: Path | None = None,
              starts: list[Path] | None = None, roots: list[Path] | None = None) -> list[Finding]:
    """A finding per procedure file that no row links and nothing reaches (`core.reach`) from what the
    hosts load from PLUGIN, the routing files and STARTS (session-start files); routing files excluded.
    ROOTS: PLUGIN's `plugin_roots`, when the caller has them."""
    linked = {link.path.resolve() for row in rows for link in row.links}
    sources = {row.file.resolve() for row in rows if row.file is not None}
    hints: dict[Path, str] = {}
    reached: set[Path] = set()
    if plugin is not None:
        roots = roots if roots is not None else plugin_roots(plugin)
        loaded = host_starts(plugin, roots)
        reached, hints = reachable([*sources, *(starts or []), *loaded, *(p for p in linked if p.is_file())],
                                   plugin, roots)
        reached |= set(loaded)
    out: list[Finding] = []
    words: dict[Path, dict[str, str]] = {}
    for p in procedures:
        if p.resolve() in linked or p.resolve() in sources or p.name == "SKILL.md":
            continue  # a SKILL.md is a Skill the host lists, not a procedure a row must link
        stub = symlink_stub(p)
        if stub is not None:  # reached or not: what it holds is a path
            out.append(Finding("STUB", "error", f"{p.name} {stub_note(p, stub)}", p, None))
            continue
        if p.resolve() in reached:
            continue
        stem = named_by_stem(p.resolve(), plugin.resolve(), words) if plugin is not None else None
        why = hints.get(p.resolve()) or (
            f"named only as \"{stem}\" in SKILL.md, with no path: the agent has to search for it (write its path)"
            if stem else "reached from nothing a host loads (no row, Skill, command, agent or procedure names it)")
        out.append(Finding("UNINDEXED", "error", f"{p.name} is {why}", p, None))
    return out


def measure(host: str, loaded: list[Loaded], *, token_cap: int, line_cap: int | None = None,
            char_cap: int | None = None, plugin: str = "") -> tuple[Budget, list[Finding]]:
    """HOST's session-start budget over LOADED (one plugin's) and a BUDGET finding per cap exceeded,
    filed on the file whose text first takes the running total over the cap."""
    texts = [item.text for item in loaded]
    joined = "\n".join(texts)
    files = list(dict.fromkeys(item.path for item in loaded))
    count = [t.count("\n") + (0 if t.endswith("\n") or not t else 1) for t in texts]
    measured = Budget(files, sum(count), len(joined), estimate_tokens(joined), token_cap, line_cap, char_cap, host,
                      [f"{item.path.name}: {item.why}" for item in loaded], plugin)
    running = {"estimated tokens": [estimate_tokens("\n".join(texts[:i + 1])) for i in range(len(texts))],
               "lines": [sum(count[:i + 1]) for i in range(len(texts))],
               "characters": [len("\n".join(texts[:i + 1])) for i in range(len(texts))]}
    where = f"{host}" + (f", plugin {plugin}" if plugin else "")
    findings: list[Finding] = []
    for what, value, cap in (("estimated tokens", measured.tokens, token_cap), ("lines", measured.lines, line_cap),
                             ("characters", measured.chars, char_cap)):
        if cap is not None and value > cap:
            culprit = next(i for i, total in enumerate(running[what]) if total > cap)
            findings.append(Finding("BUDGET", "error",
                                    f"{where}: session-start text is {value} {what} (cap {cap}); this file "
                                    f"takes it over", loaded[culprit].path, None))
    return measured, findings


def by_plugin(items: list[Path], top: Path, roots: list[Path] | None = None) -> dict[str, list[int]]:
    """Indices of ITEMS grouped by the plugin (of TOP's marketplace) each belongs to ('' for TOP itself);
    ROOTS: TOP's `plugin_roots`, when the caller has them."""
    roots = roots if roots is not None else plugin_roots(top)
    out: dict[str, list[int]] = {}
    for i, path in enumerate(items):
        root = own_root(path, roots)
        out.setdefault("" if root == top.resolve() else root.name, []).append(i)
    return out


def listing_findings(rows: list[Row], instructions: dict[str, list[Path]] | None = None,
                     data: dict[Path, bytes] | None = None, *, context: dict[str, int] | None = None
                     ) -> tuple[list[Listing], list[Finding]]:
    """Per plugin (`row.plugin`: a user installs plugins, not marketplaces) and per modelled host, what it
    would offer of ROWS' Skills (description rows, in row order) and INSTRUCTIONS files (host -> files,
    root first, with their DATA), for a model of CONTEXT tokens (host -> tokens; else the host's
    default); a NOT-OFFERED finding per row the host would omit or cut away."""
    plugins = list(dict.fromkeys(r.plugin for r in rows)) or [""]
    out: list[Listing] = []
    findings: list[Finding] = []
    for plugin in plugins:
        mine = [r for r in rows if r.plugin == plugin]
        entries = [Entry(listed_name(r), r.file, r.trigger) for r in mine
                   if r.kind == "description" and r.file is not None]
        for host in LIMITS:
            files = (instructions or {}).get(host, []) if plugin == plugins[0] else []
            shown = listing(host, entries, tuple((f, (data or {}).get(f, b"")) for f in files),
                            context_tokens=(context or {}).get(host), plugin=plugin)
            out.append(shown)
            for row in mine:
                why = not_offered_reason(row, shown)
                if why is not None:
                    findings.append(Finding("NOT-OFFERED", "error", why, row.file, row.line, row.id))
    return out, findings


def plugin_listings(ws: Workspace, rows: list[Row], *, context: dict[str, int] | None = None
                    ) -> tuple[list[Listing], list[Finding]]:
    """`listing_findings` for the workspace: its routing AGENTS.md counts for Codex."""
    routing = {p.resolve() for p in ws.routing_files()}
    agents = [p for p in (ws.plugin_dir / "AGENTS.md",) if p.is_file() and p.resolve() in routing]
    return listing_findings(rows, {"codex": agents}, {p: p.read_bytes() for p in agents}, context=context)


def audit(ws: Workspace, rows: list[Row], tree: Tree | None = None) -> AuditReport:
    """Audit the workspace's plugin given its parsed ROWS (TREE: its walk, as `dangling` takes it)."""
    cfg = ws.config.audit
    tree = tree if tree is not None else Tree(ws.plugin_dir)
    routing, extra = ws.routing_files(), ws.always_loaded_files()
    budgets: list[Budget] = []
    over: list[Finding] = []
    starts: list[Path] = list(extra)
    for host in hosts():
        loaded = session_load(ws.plugin_dir, host, routing=routing, extra=extra)
        starts += [item.path for item in loaded]
        for plugin, index in by_plugin([item.path for item in loaded], ws.plugin_dir, tree.roots).items():
            measured, found = measure(host, [loaded[i] for i in index], token_cap=cfg.token_cap,
                                      line_cap=cfg.line_cap, char_cap=cfg.char_cap, plugin=plugin)
            budgets.append(measured)
            over += found
    listings, not_offered = plugin_listings(ws, rows)
    over += not_offered
    orphans = unindexed(rows, ws.procedure_files(), plugin=ws.plugin_dir, starts=list(dict.fromkeys(starts)),
                        roots=tree.roots)
    return AuditReport(empty_globs(ws) + dangling(rows, ws.plugin_dir, tree) + orphans + over,
                       max(budgets, key=lambda b: b.tokens) if budgets else None, budgets, listings)
