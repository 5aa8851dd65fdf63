"""The proof before every batch: real refusals through the SAME bwrap wrapper the runs use.

Outside what a run may touch, reads and writes must be refused (the real home, every guarded
checkout, /usr); inside, the work must be possible (write the repo, read and write the temp HOME,
`git status`, python3 and node). Only exit codes are looked at and nothing is printed from any
file. The first failed check stops the batch before its first run, by name.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import git

from workbench.runner.confine import Confinement


class ProofFailed(RuntimeError):
    """A confinement check did not come out as required; the batch must not start."""

    def __init__(self, check: str, detail: str) -> None:
        self.check = check
        self.detail = detail
        super().__init__(f"confinement proof failed: {check}: {detail}")


@dataclass(frozen=True)
class Check:
    """One check: a shell command run inside the wrapper, and whether it must succeed."""

    name: str
    command: str
    must_succeed: bool
    leaves: Path | None = None
    """A file the command tries to create outside; it must not exist afterwards."""


@dataclass(frozen=True)
class CheckResult:
    name: str
    passed: bool
    exit_code: int


def probe_file(home: Path) -> Path | None:
    """A readable regular file directly in HOME (its contents are never read by the proof itself)."""
    try:
        for p in sorted(home.iterdir()):
            if p.is_file() and not p.is_symlink() and os.access(p, os.R_OK):
                return p
    except OSError:
        return None
    return None


def checks(conf: Confinement, run_dir: Path) -> list[Check]:
    """Every check for this confinement, outside refusals first."""
    tag = f".workbench-proof-{uuid.uuid4().hex[:8]}"
    q = shlex.quote
    out: list[Check] = []
    secret = probe_file(conf.real_home)
    if secret is not None:
        out.append(Check("read real home", f"cat -- {q(str(secret))} >/dev/null", False))
    out.append(Check("write real home", f"touch -- {q(str(conf.real_home / tag))}", False, conf.real_home / tag))
    for checkout in conf.hidden:
        out.append(Check(f"write guarded checkout {checkout}", f"touch -- {q(str(checkout / tag))}", False,
                         checkout / tag))
    out.append(Check("write /usr", f"touch -- /usr/{tag}", False, Path("/usr") / tag))
    home = run_dir / "home"
    out += [Check("write repo", f"echo proof > {tag}", True),
            Check("read+write temp HOME", f"echo proof > {q(str(home / tag))} && cat {q(str(home / tag))} >/dev/null",
                  True),
            Check("git status", "git status --porcelain >/dev/null", True),
            Check("python3 runs", "python3 -c pass", True),
            Check("node runs", "node -e 0", True)]
    return out


def _script(items: list[Check]) -> str:
    """One shell script running every check, printing only `index exit-code` lines."""
    lines = [f"( {c.command} ) </dev/null >/dev/null 2>&1; echo \"{i} $?\"" for i, c in enumerate(items)]
    return "\n".join(lines) + "\n"


def prove(conf: Confinement, run_dir: Path, env: Mapping[str, str]) -> list[CheckResult]:
    """Run every check in RUN_DIR (a fresh folder) through CONF's wrapper; ProofFailed on the first miss."""
    repo = run_dir / "repo"
    for sub in ("home", "tmp", "repo"):
        (run_dir / sub).mkdir(parents=True, exist_ok=True)
    r = git.Repo.init(repo, initial_branch="main")
    (repo / "README.md").write_text("proof\n", encoding="utf-8")
    r.index.add(["README.md"])
    actor = git.Actor("workbench", "workbench@localhost")
    r.index.commit("proof", author=actor, committer=actor)
    items = checks(conf, run_dir)
    argv = conf.argv(run_dir, repo, ["/bin/sh", "-c", _script(items)])
    done = subprocess.run(argv, env=dict(env), capture_output=True, text=True, check=False, timeout=120)
    codes: dict[int, int] = {}
    for line in done.stdout.splitlines():
        idx, _, code = line.partition(" ")
        if idx.isdigit() and code.lstrip("-").isdigit():
            codes[int(idx)] = int(code)
    results = []
    for i, check in enumerate(items):
        if i not in codes:
            raise ProofFailed(check.name, f"the wrapper did not run it (exit {done.returncode}: "
                                          f"{done.stderr.strip().splitlines()[-1:] or ''})")
        leaked = check.leaves is not None and (check.leaves.exists() or check.leaves.is_symlink())
        if leaked and check.leaves is not None:
            check.leaves.unlink()
        if codes[i] in (126, 127):  # a refusal only counts when the command itself could run
            raise ProofFailed(check.name, f"the check could not run (exit {codes[i]}: command not found)")
        passed = (codes[i] == 0) == check.must_succeed and not leaked
        if not passed:
            want = "succeed" if check.must_succeed else "be refused"
            raise ProofFailed(check.name, f"must {want}, exit code {codes[i]}" + (", file created" if leaked else ""))
        results.append(CheckResult(check.name, passed, codes[i]))
    return results
