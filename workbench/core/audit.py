"""Audit of a workspace's plugin: links that go nowhere, procedures nothing links, always-loaded budget.

DANGLING: a row links a file that does not exist. UNINDEXED: a procedure file (the workspace's
procedure globs) that no row links. BUDGET: the text loaded into every session (lines, characters,
estimated tokens at ~4 characters a token) against the workspace's caps.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from workbench.core.lint import Finding
from workbench.core.routing import Row
from workbench.core.workspace import Workspace

CHARS_PER_TOKEN = 4
"""A rough, host-neutral estimate; real tokenizers differ by tens of percent."""


@dataclass
class Budget:
    """Size of the always-loaded text."""

    files: list[Path]
    lines: int
    chars: int
    tokens: int
    token_cap: int
    line_cap: int | None = None
    char_cap: int | None = None

    def as_dict(self) -> dict[str, object]:
        return {"files": [str(f) for f in self.files], "lines": self.lines, "chars": self.chars,
                "tokens": self.tokens, "token_cap": self.token_cap, "line_cap": self.line_cap,
                "char_cap": self.char_cap}


@dataclass
class AuditReport:
    """Findings (DANGLING, UNINDEXED, BUDGET) and the measured budget."""

    findings: list[Finding] = field(default_factory=list)
    budget: Budget | None = None


def estimate_tokens(text: str) -> int:
    """Estimated tokens of TEXT (ceil of characters / CHARS_PER_TOKEN)."""
    return -(-len(text) // CHARS_PER_TOKEN)


_TEMPLATE = re.compile(r"\{[^}/]*\}|<[^>/]*>|\*+")


def exists_exactly(path: Path) -> bool:
    """PATH is a file whose every component matches case-sensitively (also on case-folding disks)."""
    if not path.is_file():
        return False
    parent = path.parent
    return path.name in {p.name for p in parent.iterdir()} if parent.is_dir() else False


def link_exists(target: str, path: Path) -> bool:
    """The linked file exists; a templated path (`{language}/x.md`, `<name>.md`) exists when any file matches."""
    if _TEMPLATE.search(target):
        pattern = _TEMPLATE.sub("*", path.as_posix())
        root = Path(pattern.split("*", 1)[0]).parent
        return root.is_dir() and any(root.glob(pattern[len(root.as_posix()) + 1:]))
    return exists_exactly(path)


def dangling(rows: list[Row]) -> list[Finding]:
    """A finding per link whose file does not exist (case-sensitive; templated paths match a glob)."""
    return [Finding("DANGLING", "error", f"{link.target} does not exist", row.file, row.line, row.id)
            for row in rows for link in row.links if not link_exists(link.target, link.path)]


def empty_globs(ws: Workspace) -> list[Finding]:
    """A warning per routing or procedure glob that matches no file (a mistyped glob hides every row)."""
    out: list[Finding] = []
    for key, patterns in (("routing", ws.config.plugin.routing), ("procedures", ws.config.plugin.procedures)):
        for pattern in patterns:
            if not any(p.is_file() for p in ws.plugin_dir.glob(pattern)):
                out.append(Finding("EMPTY-GLOB", "warning", f"plugin.{key} glob {pattern!r} matches no file",
                                   ws.file, None))
    return out


def unindexed(rows: list[Row], procedures: list[Path]) -> list[Finding]:
    """A finding per procedure file that no row links (routing files themselves excluded)."""
    linked = {link.path.resolve() for row in rows for link in row.links}
    sources = {row.file.resolve() for row in rows if row.file is not None}
    return [Finding("UNINDEXED", "error", f"{p.name} is linked by no routing row", p, None)
            for p in procedures if p.resolve() not in linked and p.resolve() not in sources]


def budget(files: list[Path], *, token_cap: int, line_cap: int | None = None,
           char_cap: int | None = None) -> tuple[Budget, list[Finding]]:
    """The always-loaded budget of FILES and a BUDGET finding per cap exceeded."""
    texts = [f.read_text(encoding="utf-8") for f in files]
    joined = "\n".join(texts)
    measured = Budget(files, sum(t.count("\n") + (0 if t.endswith("\n") or not t else 1) for t in texts),
                      len(joined), estimate_tokens(joined), token_cap, line_cap, char_cap)
    findings: list[Finding] = []
    for what, value, cap in (("estimated tokens", measured.tokens, token_cap), ("lines", measured.lines, line_cap),
                             ("characters", measured.chars, char_cap)):
        if cap is not None and value > cap:
            findings.append(Finding("BUDGET", "error", f"always-loaded text is {value} {what} (cap {cap})",
                                    files[0] if files else None, None))
    return measured, findings


def audit(ws: Workspace, rows: list[Row]) -> AuditReport:
    """Audit the workspace's plugin given its parsed ROWS."""
    cfg = ws.config.audit
    measured, over = budget(ws.always_loaded_files(), token_cap=cfg.token_cap, line_cap=cfg.line_cap,
                            char_cap=cfg.char_cap)
    return AuditReport(empty_globs(ws) + dangling(rows) + unindexed(rows, ws.procedure_files()) + over, measured)
