"""The live-install door: the host runs with the user's REAL home and config, guarded.

No temp HOME and no plugin copy: the host loads the plugin the way the user installed it. The
launch the adapter built is pointed at the live HOME here; the guard over the checkouts and the
live config files is taken in `runner/execute.py` around the run.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

from workbench.core.hostinfo import HOSTS
from workbench.hosts.base import Launch

DEFAULT_CASE = "canaries/post-install.toml"
"""The workspace's post-install case, relative to its root."""

def live_logins(host: str, home: Path) -> list[Path]:
    """HOST's login files in the live HOME that exist: their values are redacted; those the host need
    not write are read-only inside and hashed before and after the run."""
    from workbench.hosts import adapter

    source = "claude" if host == "sim" else host  # the sim sees Claude's live config (`live_reads`)
    return [home / rel for rel in adapter(source).login_files if (home / rel).is_file()]


def guarded_logins(host: str, home: Path) -> list[Path]:
    """The live login files a post-install run must leave unchanged (all but what the host must write)."""
    writes = {home / rel for rel in HOSTS[host].live_writes}
    return [p for p in live_logins(host, home) if p not in writes]


def live_paths(host: str, home: Path) -> tuple[tuple[Path, ...], tuple[Path, ...]]:
    """(read-only, writable) paths of HOST's live install under HOME for a confined post-install run:
    the config, then the login files again (read-only even inside a writable folder)."""
    writable = tuple(home / rel for rel in HOSTS[host].live_writes)
    for path in writable:
        if not path.suffix and not path.exists():
            path.mkdir(parents=True, exist_ok=True)
    visible = (*(home / rel for rel in HOSTS[host].live_reads), *guarded_logins(host, home))
    return visible, writable


def live_launch(launch: Launch, temp_home: Path, home: Path, *, scripted: bool) -> Launch:
    """The adapter's launch pointed at the live HOME instead of its temp HOME (argv and environment).
    Scripted runs keep CODEX_HOME: it holds the adapter's config for the model server."""
    argv = [str(home) if a == str(temp_home) else a for a in launch.argv]
    env = dict(launch.env)
    env.update({"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "XDG_CACHE_HOME": str(home / ".cache")})
    if not scripted:
        env["CODEX_HOME"] = str(home / ".codex")
    return replace(launch, argv=argv, env=env)


def live_binary(host: str) -> Path | None:
    """The user's own install on PATH (sim: None, it is this Python)."""
    if host == "sim":
        return None
    found = shutil.which(host)
    return Path(found) if found else None
