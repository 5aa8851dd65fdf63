"""Audit of a workspace's plugin: links that go nowhere, procedures nothing links, always-loaded budget.

EMPTY-GLOB: a routing or procedure glob matches no file. DANGLING: a row links a file that does
not exist. UNINDEXED: a procedure file (the workspace's procedure globs) that no row links and nothing
reaches from what the hosts load (`core.reach`). BUDGET: per host, the text it loads at
session start (`session_load`: Skill front matter, instruction files, hook-injected files; lines,
characters, estimated tokens at ~4 characters a token) against the workspace's caps.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from workbench.core.lint import Finding
from workbench.core.listing import LIMITS, Entry, Listing, listed_name, listing, offered
from workbench.core.reach import TEMPLATE, exists_exactly, host_starts, reachable
from workbench.core.routing import Row
from workbench.core.session_load import Loaded, hosts, session_load
from workbench.core.workspace import Workspace

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

    def as_dict(self) -> dict[str, object]:
        return {"host": self.host, "files": [str(f) for f in self.files], "parts": self.parts, "lines": self.lines,
                "chars": self.chars, "tokens": self.tokens, "token_cap": self.token_cap, "line_cap": self.line_cap,
                "char_cap": self.char_cap}


@dataclass
class AuditReport:
    """Findings (DANGLING, UNINDEXED, BUDGET) and the measured budget."""

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


def link_exists(target: str, path: Path) -> bool:
    """The linked file exists; a templated path (`{language}/x.md`, `<name>.md`) exists when any file matches."""
    if TEMPLATE.search(target):
        pattern = TEMPLATE.sub("*", path.as_posix())
        root = Path(pattern.split("*", 1)[0]).parent
        return root.is_dir() and any(root.glob(pattern[len(root.as_posix()) + 1:]))
    return exists_exactly(path)


def dangling(rows: list[Row]) -> list[Finding]:
    """A finding per link whose file does not exist (case-sensitive; templated paths match a glob)."""
    out: list[Finding] = []
    for row in rows:
        for target, path in dict.fromkeys((lk.target, lk.path) for lk in row.links):
            if link_exists(target, path):
                continue
            twin = next((p.name for p in path.parent.iterdir() if p.name.lower() == path.name.lower()),
                        None) if path.parent.is_dir() else None
            note = f" ({twin} differs only in case)" if twin else ""
            out.append(Finding("DANGLING", "error", f"{target} does not exist{note}", row.file, row.line, row.id))
    return out


def empty_globs(ws: Workspace) -> list[Finding]:
    """A warning per routing or procedure glob that matches no file (a mistyped glob hides every row)."""
    out: list[Finding] = []
    for key, patterns in (("routing", ws.config.plugin.routing), ("procedures", ws.config.plugin.procedures)):
        for pattern in patterns:
            if not any(p.is_file() for p in ws.plugin_dir.glob(pattern)):
                out.append(Finding("EMPTY-GLOB", "warning", f"plugin.{key} glob {pattern!r} matches no file",
                                   ws.file, None))
    return out


def unindexed(rows: list[Row], procedures: list[Path], *, plugin: Path | None = None,
              starts: list[Path] | None = None) -> list[Finding]:
    """A finding per procedure file that no row links and nothing reaches (`core.reach`) from what the
    hosts load from PLUGIN, the routing files and STARTS (session-start files); routing files excluded."""
    linked = {link.path.resolve() for row in rows for link in row.links}
    sources = {row.file.resolve() for row in rows if row.file is not None}
    twins: dict[Path, str] = {}
    if plugin is not None:
        loaded = host_starts(plugin)
        reached, twins = reachable([*sources, *(starts or []), *loaded, *(p for p in linked if p.is_file())],
                                   plugin)
        linked |= reached | set(loaded)
    out: list[Finding] = []
    for p in procedures:
        if p.resolve() in linked or p.resolve() in sources or p.name == "SKILL.md":
            continue  # a SKILL.md is a Skill the host lists, not a procedure a row must link
        twin = twins.get(p.resolve())
        why = f"mentioned only as {twin} (case differs: a miss on a case-sensitive disk)" if twin else \
            "reached from nothing a host loads (no row, Skill, command, agent or procedure names it)"
        out.append(Finding("UNINDEXED", "error", f"{p.name} is {why}", p, None))
    return out


def measure(host: str, loaded: list[Loaded], *, token_cap: int, line_cap: int | None = None,
            char_cap: int | None = None) -> tuple[Budget, list[Finding]]:
    """HOST's session-start budget over LOADED and a BUDGET finding per cap exceeded."""
    texts = [item.text for item in loaded]
    joined = "\n".join(texts)
    files = list(dict.fromkeys(item.path for item in loaded))
    measured = Budget(files, sum(t.count("\n") + (0 if t.endswith("\n") or not t else 1) for t in texts),
                      len(joined), estimate_tokens(joined), token_cap, line_cap, char_cap, host,
                      [f"{item.path.name}: {item.why}" for item in loaded])
    findings: list[Finding] = []
    for what, value, cap in (("estimated tokens", measured.tokens, token_cap), ("lines", measured.lines, line_cap),
                             ("characters", measured.chars, char_cap)):
        if cap is not None and value > cap:
            findings.append(Finding("BUDGET", "error", f"{host}: session-start text is {value} {what} (cap {cap})",
                                    files[0] if files else None, None))
    return measured, findings


def listing_findings(rows: list[Row], instructions: dict[str, list[Path]] | None = None,
                     data: dict[Path, bytes] | None = None) -> tuple[list[Listing], list[Finding]]:
    """Per modelled host, what it would offer of ROWS' Skills (description rows, in row order) and
    INSTRUCTIONS files (host -> files, root first, with their DATA); a NOT-OFFERED finding per row the
    host would drop or clip away."""
    entries = [Entry(listed_name(r), r.file, r.trigger) for r in rows if r.kind == "description" and r.file is not None]
    out: list[Listing] = []
    findings: list[Finding] = []
    for host in LIMITS:
        files = (instructions or {}).get(host, [])
        shown = listing(host, entries, tuple((f, (data or {}).get(f, b"")) for f in files))
        out.append(shown)
        for row in rows:
            if not offered(row, shown):
                why = "its Skill is dropped from the listing (budget)" if listed_name(row) in shown.dropped else \
                    "clipped away (description cap or instruction-file cap)"
                findings.append(Finding("NOT-OFFERED", "error", f"{host} {shown.version}: {why}", row.file, row.line,
                                        row.id))
    return out, findings


def audit(ws: Workspace, rows: list[Row]) -> AuditReport:
    """Audit the workspace's plugin given its parsed ROWS."""
    cfg = ws.config.audit
    routing, extra = ws.routing_files(), ws.always_loaded_files()
    budgets: list[Budget] = []
    over: list[Finding] = []
    starts: list[Path] = list(extra)
    for host in hosts():
        loaded = session_load(ws.plugin_dir, host, routing=routing, extra=extra)
        starts += [item.path for item in loaded]
        measured, found = measure(host, loaded, token_cap=cfg.token_cap, line_cap=cfg.line_cap,
                                  char_cap=cfg.char_cap)
        budgets.append(measured)
        over += found
    agents = [p for p in (ws.plugin_dir / "AGENTS.md",) if p.is_file() and p.resolve() in set(routing)]
    listings, not_offered = listing_findings(rows, {"codex": agents}, {p: p.read_bytes() for p in agents})
    over += not_offered
    orphans = unindexed(rows, ws.procedure_files(), plugin=ws.plugin_dir, starts=list(dict.fromkeys(starts)))
    return AuditReport(empty_globs(ws) + dangling(rows) + orphans + over,
                       max(budgets, key=lambda b: b.tokens) if budgets else None, budgets, listings)
