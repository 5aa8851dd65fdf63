"""The import contracts in pyproject.toml ([tool.importlinter]) hold: core < parts < runner < front ends, a
pure core (no Textual, git or subprocess), front ends set runs up through `runner.doors` only. The suite fails
on a violation; the second test shows the same checker refuses a package that breaks each contract."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"
PACKAGE = (".", "commands", "tui", "runner", "authoring", "hosts", "sim", "modelstub", "export", "report", "core")
MODULES = ("cli.py", "runner/arms.py", "runner/guard.py", "runner/confine.py", "runner/request.py", "hosts/base.py")
"""A skeleton of the package: every module the contracts name must exist."""


def lint_imports(cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(LINT_IMPORTS), "--no-cache", "--no-logo"], cwd=cwd, capture_output=True, text=True,
                          env={"PYTHONPATH": str(cwd), "PATH": "/usr/bin:/bin"})


def test_the_import_contracts_are_kept() -> None:
    out = lint_imports(ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "3 kept, 0 broken" in out.stdout, out.stdout


@pytest.mark.parametrize(("module", "source", "says"), [
    ("core/view.py", "import textual\n", "workbench.core.view -> textual"),
    ("tui/form.py", "from workbench.runner.request import confinement_for\n",
     "workbench.tui.form -> workbench.runner.request"),
    ("commands/run.py", "from workbench.runner import arms\n", "workbench.commands.run -> workbench.runner.arms"),
    ("commands/env.py", "from workbench.hosts.base import clean_env\n", "workbench.commands.env -> workbench.hosts.base"),
])
def test_a_module_breaking_a_contract_is_refused(tmp_path: Path, module: str, source: str, says: str) -> None:
    package = tmp_path / "workbench"
    for name in PACKAGE:
        (package / name).mkdir(parents=True, exist_ok=True)
        (package / name / "__init__.py").write_text("", encoding="utf-8")
    for name in MODULES:
        (package / name).write_text("", encoding="utf-8")
    (package / module).write_text(source, encoding="utf-8")
    config = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(config[config.index("[tool.importlinter]"):], encoding="utf-8")
    out = lint_imports(tmp_path)
    assert out.returncode != 0, out.stdout
    assert says in out.stdout, out.stdout
