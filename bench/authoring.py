"""The authoring layer's cost on whole marketplaces: `rows` (read every routing file) and `audit` of
the rows, CPU seconds in one process, least of N, each from cold caches (not a timed test;
docs/benchmarks.md). Point it at checkouts of real plugin repos (a marketplace is not bundled).

Usage: python bench/authoring.py [--repeat N] PLUGIN_DIR...
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from workbench.core import markdown, routing
from workbench.core.audit import audit
from workbench.core.workspace import load_workspace


def cold() -> None:
    """Forget what the core remembers between reads, so each pass pays for every file."""
    for module, name in ((markdown, "_every_block"), (markdown, "drawn_trees"), (routing, "_sources_read")):
        cached = getattr(module, name, None)  # absent in older code, which the bench also measures
        if cached is not None:
            cached.cache_clear()


def best(repeat: int, fn: object) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        cold()
        start = time.process_time()
        result = fn()  # type: ignore[operator]
        times.append(time.process_time() - start)
    return min(times), result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("plugins", nargs="+", type=Path)
    args = parser.parse_args()
    sys.stdout.write("| plugin | routing files | rows | rows CPU s | rows + audit CPU s |\n|---|---:|---:|---:|---:|\n")
    for plugin in args.plugins:
        sys.stdout.write(measure(plugin, args.repeat))
    return 0


def measure(plugin: Path, repeat: int) -> str:
    """One table line for PLUGIN: its routing files, rows, and the two CPU times."""
    ws = load_workspace(plugin)
    files = ws.routing_files()
    spent, result = best(repeat, lambda: routing.read_files(files, plugin=ws.plugin_dir))
    rows = result[0]  # type: ignore[index]
    total, _ = best(repeat, lambda: audit(ws, routing.read_files(files, plugin=ws.plugin_dir)[0]))
    return f"| {plugin.resolve().name} | {len(files)} | {len(rows)} | {spent:.2f} | {total:.2f} |\n"


if __name__ == "__main__":
    raise SystemExit(main())
