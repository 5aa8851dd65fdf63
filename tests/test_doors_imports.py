"""Front ends reach run set-up only through the doors (`runner/doors.py`), and host names are spelled
out in the host registry alone. Whole modules (arms, guard, confine, hosts.base) are an import contract
in pyproject.toml; this scan covers what import-linter cannot: single names and host-name literals."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FRONT_ENDS = ("commands", "tui")
FORBIDDEN_NAMES = {("workbench.runner.request", "confinement_for"), ("workbench.hosts.base", "clean_env"),
                   ("workbench.hosts", "clean_env")}
HOST_NAMES = ("claude", "codex", "opencode", "gemini", "grok", "sim")


def imports(path: Path) -> list[tuple[int, str, str | None]]:
    """(line, module, name) of every import in PATH, type-checking-only ones included."""
    out: list[tuple[int, str, str | None]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name, None) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            out += [(node.lineno, node.module, a.name) for a in node.names]
            out += [(node.lineno, f"{node.module}.{a.name}", None) for a in node.names]
    return out


def front_end_files() -> list[Path]:
    return [p for d in FRONT_ENDS for p in sorted((ROOT / "workbench" / d).rglob("*.py"))]


def test_front_ends_import_no_run_set_up_internals() -> None:
    offenders = []
    for path in front_end_files():
        for line, module, name in imports(path):
            if (module, name) in FORBIDDEN_NAMES:
                offenders.append(f"{path.relative_to(ROOT)}:{line}: {module}{'.' + name if name else ''}")
    assert offenders == [], "front ends set runs up through workbench.runner.doors only:\n" + "\n".join(offenders)


def test_the_scan_sees_a_forbidden_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from workbench.runner.arms import resolve\nfrom workbench.runner.request import confinement_for\n",
                   encoding="utf-8")
    found = imports(bad)
    assert (1, "workbench.runner.arms", "resolve") in found
    assert ("workbench.runner.request", "confinement_for") in {(m, n) for _, m, n in found}


REGISTRY = "workbench/core/hostinfo.py"


def host_lists(source: str) -> list[tuple[int, str]]:
    """(line, what) of every second host registry in SOURCE: a tuple, list or set literal naming four or
    more hosts, a dict literal keyed by them, or another name for `hostinfo.NAMES` (an alias by
    assignment or by `import ... as`)."""
    out: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        elts: list[ast.expr | None] = []
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            elts = list(node.elts)
        elif isinstance(node, ast.Dict):
            elts = list(node.keys)
        names = {e.value for e in elts if isinstance(e, ast.Constant) and e.value in HOST_NAMES}
        if len(names) >= 4:
            out.append((node.lineno, f"lists {sorted(names)}"))
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            value = node.value
            if (isinstance(value, ast.Name) and value.id == "NAMES") or \
                    (isinstance(value, ast.Attribute) and value.attr == "NAMES"):
                out.append((node.lineno, "another name for hostinfo.NAMES"))
        if isinstance(node, ast.ImportFrom) and node.module and node.module.endswith("hostinfo"):
            out += [(node.lineno, f"imports NAMES as {a.asname}") for a in node.names
                    if a.name == "NAMES" and a.asname not in (None, "NAMES")]
    return sorted(out)


def test_host_names_are_listed_only_by_the_registry() -> None:
    """Host names are spelled out in `core/hostinfo.py` alone; everything else reads `NAMES` there."""
    offenders = []
    for path in sorted((ROOT / "workbench").rglob("*.py")):
        if path.relative_to(ROOT).as_posix() == REGISTRY:
            continue
        offenders += [f"{path.relative_to(ROOT)}:{line}: {what}"
                      for line, what in host_lists(path.read_text(encoding="utf-8"))]
    assert offenders == [], "host names come from workbench.core.hostinfo.NAMES:\n" + "\n".join(offenders)


def test_the_scan_sees_a_second_host_registry() -> None:
    found = [what for _, what in host_lists(
        'CHOICES = ("claude", "codex", "opencode", "gemini")\n'
        'PARSERS = {"claude": 1, "codex": 2, "opencode": 3, "grok": 4}\n'
        "HOST_NAMES = NAMES\n"
        "HOSTS: tuple[str, ...] = hostinfo.NAMES\n"
        "from workbench.core.hostinfo import NAMES as HOSTS\n"
        'ONE = {"claude": 1}\n')]
    assert found == ["lists ['claude', 'codex', 'gemini', 'opencode']", "lists ['claude', 'codex', 'grok', 'opencode']",
                     "another name for hostinfo.NAMES", "another name for hostinfo.NAMES", "imports NAMES as HOSTS"]
    assert host_lists("from workbench.core.hostinfo import NAMES\nhosts = list(NAMES)\n") == []
