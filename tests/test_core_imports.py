"""The core must stay usable without the TUI and free of side effects: importing it never loads
Textual, and no core module imports git or subprocess (commits and processes live outside core)."""

import ast
import subprocess
import sys
from pathlib import Path

CORE = Path(__file__).resolve().parent.parent / "workbench" / "core"
FORBIDDEN = ("git", "gitdb", "subprocess", "textual")

SCRIPT = """
import importlib, pkgutil, sys
import workbench.core as core
names = [m.name for m in pkgutil.walk_packages(core.__path__, "workbench.core.")]
for name in names:
    importlib.import_module(name)
assert len(names) >= 3, names
leaked = sorted(m for m in sys.modules if m == "textual" or m.startswith("textual."))
print("LEAKED" if leaked else "CLEAN", len(names))
"""


def test_core_never_imports_textual() -> None:
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True)
    assert out.stdout.startswith("CLEAN"), out.stdout + out.stderr


def imported_modules(path: Path) -> set[str]:
    """Top-level names of every module PATH imports (also inside functions)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def test_core_never_imports_git_or_subprocess() -> None:
    modules = sorted(CORE.rglob("*.py"))
    assert len(modules) > 10
    offenders = {p.relative_to(CORE).as_posix(): sorted(imported_modules(p) & set(FORBIDDEN)) for p in modules}
    assert {k: v for k, v in offenders.items() if v} == {}
