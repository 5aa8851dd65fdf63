"""Pinned host CLIs: install them from npm into a user cache and find their binaries.

`npm install --ignore-scripts` is enough: each CLI ships its native binary in a platform package
(an optional dependency), so the binary is looked up there instead of in the `.bin` shim, which for
Claude Code and OpenCode is a placeholder the skipped postinstall would have replaced.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from platformdirs import user_cache_dir

from workbench.core.errors import InputError
from workbench.core.hostinfo import HOSTS, NPM_HOSTS


def pin(host: str) -> tuple[str, str]:
    """HOST's (npm package, exact version) from the registry (`core.hostinfo`); an InputError for a
    host not installed from npm."""
    npm = HOSTS[host].npm if host in HOSTS else None
    if npm is None:
        raise InputError(f"{host}: not installed from npm; npm hosts: {', '.join(NPM_HOSTS)}", field="host")
    return npm


ENV_DIR = "WORKBENCH_HOSTS_DIR"


def hosts_dir() -> Path:
    """Where pinned CLIs are installed: $WORKBENCH_HOSTS_DIR, else the user cache."""
    given = os.environ.get(ENV_DIR)
    return Path(given) if given else Path(user_cache_dir("trigger-workbench")) / "hosts"


def _platform_tags() -> list[str]:
    """npm platform-package suffixes to try, best first (e.g. linux-x64, linux-x64-baseline, linux-x64-musl)."""
    system = {"linux": "linux", "darwin": "darwin", "win32": "win32"}.get(sys.platform, sys.platform)
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(
        platform.machine().lower(), platform.machine().lower())
    base = f"{system}-{arch}"
    musl = system == "linux" and any(Path("/lib").glob("ld-musl-*"))
    tags = [base, f"{base}-baseline", f"{base}-musl", f"{base}-baseline-musl"]
    return sorted(tags, key=lambda t: ("musl" in t) != musl)


def _candidates(host: str, modules: Path) -> list[Path]:
    """Where HOST's runnable binary may be, best first."""
    tags = _platform_tags()
    if host == "claude":
        return [modules / "@anthropic-ai" / f"claude-code-{t}" / name for t in tags for name in ("claude", "claude.exe")]
    if host == "opencode":
        return [modules / f"opencode-{t}" / "bin" / name for t in tags for name in ("opencode", "opencode.exe")]
    return [modules / ".bin" / host]


def find_binary(host: str, root: Path | None = None) -> Path | None:
    """The runnable binary of an installed host, or None. A hosts folder reached through a symlink is
    named by its real path: a confined run binds real paths only, so the link itself is not there."""
    modules = Path(os.path.realpath(root or hosts_dir())) / "node_modules"
    return next((p for p in _candidates(host, modules) if p.is_file()), None)


def require_binary(host: str, root: Path | None = None) -> Path:
    """The binary, or a one-line InputError naming what is missing and how to get it."""
    found = find_binary(host, root)
    if found is None:
        where = (root or hosts_dir()) / "node_modules"
        raise InputError(f"{host}: no installed binary under {where}; run `workbench hosts install --only {host}`",
                         field="host")
    return found


def installed_version(host: str, root: Path | None = None) -> str | None:
    """The version npm installed, from the package's package.json."""
    package, _ = pin(host)
    meta = (root or hosts_dir()) / "node_modules" / package / "package.json"
    try:
        version = json.loads(meta.read_text(encoding="utf-8")).get("version")
    except (OSError, ValueError):
        return None
    return str(version) if version else None


def probe_version(binary: Path, timeout: float = 120.0) -> str | None:
    """What `BINARY --version` prints (first line), or None when it does not run."""
    try:
        done = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = done.stdout.strip().splitlines()
    return lines[0].strip() if done.returncode == 0 and lines else None


@dataclass(frozen=True)
class HostStatus:
    """One row of `workbench hosts`."""

    host: str
    package: str
    pinned: str
    installed: str | None
    binary: str | None
    version: str | None
    usable: bool


def status(host: str, root: Path | None = None, probe: bool = True) -> HostStatus:
    """Pinned vs installed version, the binary and whether `--version` runs."""
    package, pinned = pin(host)
    binary = find_binary(host, root)
    version = probe_version(binary) if binary and probe else None
    return HostStatus(host, package, pinned, installed_version(host, root), str(binary) if binary else None,
                      version, version is not None)


def install(hosts: list[str], root: Path | None = None, npm: str = "npm") -> Path:
    """`npm install` the pinned packages of HOSTS into ROOT (created); raises InputError when npm fails."""
    target = root or hosts_dir()
    target.mkdir(parents=True, exist_ok=True)
    exe = shutil.which(npm)
    if exe is None:
        raise InputError(f"`{npm}` not found on PATH: install Node.js and npm to install host CLIs", field="npm")
    specs = ["@".join(pin(h)) for h in hosts]
    argv = [exe, "install", "--prefix", str(target), "--ignore-scripts", "--no-audit", "--no-fund",
            "--save-exact", "--loglevel", "error", *specs]
    done = subprocess.run(argv, capture_output=True, text=True, stdin=subprocess.DEVNULL, check=False)
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise InputError(f"npm install failed (exit {done.returncode}): {tail}", field="npm")
    for host in hosts:
        require_binary(host, target)
    return target
