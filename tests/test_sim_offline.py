"""`workbench canary` on sim works with no Node and no network: the offline default really is offline.

The command runs in a child process whose PATH is one temp dir of symlinks to the few tools a run
needs (git for the throwaway repo, bash and coreutils for the sim's shell calls) and nothing
else, so `node`/`npm` cannot be found. The venv's Python is called by its absolute path (its
`pyvenv.cfg` is found next to it). Where `unshare -rn` works, the child also gets a network
namespace with no interface but loopback, so any outside connection would fail the run.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ("git", "bash", "sh", "cat", "ls", "env", "mkdir", "rm", "cp", "mv", "head", "tail", "grep", "sed", "tr",
         "wc", "sort", "dirname", "basename", "uname", "id")


def bare_bin(dest: Path) -> Path:
    """A bin dir with symlinks to TOOLS only (whichever exist here)."""
    dest.mkdir()
    for tool in TOOLS:
        found = shutil.which(tool)
        if found:
            (dest / tool).symlink_to(found)
    return dest


def no_network_prefix() -> list[str]:
    """`unshare -rn` when this machine allows an unprivileged network namespace, else nothing."""
    unshare = shutil.which("unshare")
    if unshare and subprocess.run([unshare, "-rn", "true"], capture_output=True, check=False).returncode == 0:
        return [unshare, "-rn"]
    return []


def test_sim_canary_without_node_or_network(tmp_path: Path) -> None:
    bin_dir = bare_bin(tmp_path / "bin")
    assert shutil.which("node", path=str(bin_dir)) is None and shutil.which("npm", path=str(bin_dir)) is None
    assert shutil.which("git", path=str(bin_dir)) is not None
    records = tmp_path / "records.jsonl"
    env = {"PATH": str(bin_dir), "HOME": str(tmp_path / "home"), "LANG": "C.UTF-8"}
    (tmp_path / "home").mkdir()
    argv = [*no_network_prefix(), sys.executable, "-m", "workbench", "canary", "commit-typo-fix", "--host", "sim",
            "--record", str(records), "--json"]
    refused = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert refused.returncode == 2 and "--unconfined" in refused.stderr  # no bwrap here: never silently unconfined
    done = subprocess.run([*argv, "--unconfined"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout)
    assert record["condition"] == "unconfined" and "UNCONFINED" in done.stderr
    assert record["host"] == "sim" and record["case_id"] == "commit-typo-fix"
    assert record["verdict"] == {"workflows/commit.md": record["overall"]} and record["overall"] == "fired"
    assert record["valid"] is True and record["calls"][-1]["tool"] == "Bash"  # the commit ran through bash
    assert record["host_version"].startswith("sim-") and record["entry"]["offered"] is True
    stored = [json.loads(line) for line in records.read_text().splitlines()]
    assert len(stored) == 1 and stored[0]["overall"] == "fired"
