"""The texts of a plugin copy's procedures, for content evidence (workbench.core.fingerprints)."""

from __future__ import annotations

from pathlib import Path

from workbench.core.errors import InputError

MAX_BYTES = 1024 * 1024
"""Larger files are not procedures a model reads; they are left out instead of slowing every run."""


def load_procedures(plugin: Path) -> dict[str, str]:
    """Every Markdown file under PLUGIN (hidden folders skipped), keyed by its path inside the plugin.

    A missing folder is bad input: scoring without the procedures would silently fall back to
    command analysis."""
    if not plugin.is_dir():
        raise InputError("not a plugin folder", file=str(plugin))
    found: dict[str, str] = {}
    for path in sorted(plugin.rglob("*.md")):
        rel = path.relative_to(plugin)
        if any(part.startswith(".") for part in rel.parts) or not path.is_file():
            continue
        try:
            if path.stat().st_size > MAX_BYTES:
                continue
            found[rel.as_posix()] = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
    return found
