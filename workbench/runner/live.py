"""The live-install door: the host runs with the user's REAL home and config, guarded.

No temp HOME and no plugin copy: the host loads the plugin the way the user installed it. The
launch the adapter built is pointed at the live HOME here; the guard over the checkouts and the
live config files is taken in `runner/execute.py` around the run.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

from workbench.hosts.base import Launch

DEFAULT_CASE = "canaries/post-install.toml"
"""The workspace's post-install case, relative to its root."""


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
