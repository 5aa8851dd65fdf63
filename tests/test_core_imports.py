"""The core must stay usable without the TUI: importing it must never load Textual."""

import subprocess
import sys

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
