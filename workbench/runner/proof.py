"""The proof before every batch: real refusals through the SAME bwrap wrapper the runs use.

Outside what a run may touch, reads and writes must be refused (the real home, every guarded
checkout, /usr); inside, the work must be possible (write the repo, read and write the temp HOME,
`git status`, python3 and node). Only exit codes are looked at and nothing is printed from any
file. The first failed check stops the batch before its first run, by name.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import socket
import subprocess
import tempfile
import threading
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


def probe_file(home: Path, shown: tuple[Path, ...] = ()) -> Path | None:
    """A readable regular file directly in HOME, not one of SHOWN (bound back inside: a post-install
    run's live config); its contents are never read by the proof itself."""
    try:
        for p in sorted(home.iterdir()):
            if p in shown:
                continue
            if p.is_file() and not p.is_symlink() and os.access(p, os.R_OK):
                return p
    except OSError:
        return None
    return None


def root_only(run_dir: Path) -> Path:
    """A file only root may read (mode 0600), visible inside (RUN_DIR is bound) and under no mask:
    the sandbox uid must be refused it by the kernel, not by a mask."""
    path = run_dir / "root-only"
    if not path.exists():
        path.write_text("proof\n", encoding="utf-8")
    os.chmod(path, 0o600)
    return path


def checks(conf: Confinement, run_dir: Path) -> list[Check]:
    """Every check for this confinement, outside refusals first."""
    tag = f".workbench-proof-{uuid.uuid4().hex[:8]}"
    q = shlex.quote
    out: list[Check] = []
    secret = probe_file(conf.real_home, (*conf.visible, *conf.writable))
    if secret is not None:
        out.append(Check("read real home", f"cat -- {q(str(secret))} >/dev/null", False))
    out.append(Check("write real home", f"touch -- {q(str(conf.real_home / tag))}", False, conf.real_home / tag))
    for checkout in conf.hidden:
        out.append(Check(f"write guarded checkout {checkout}", f"touch -- {q(str(checkout / tag))}", False,
                         checkout / tag))
    out.append(Check("write /usr", f"touch -- /usr/{tag}", False, Path("/usr") / tag))
    if conf.run_as is not None:
        out.append(Check("read a root-only file outside the masks", f"cat -- {q(str(root_only(run_dir)))} >/dev/null",
                         False))
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


def _net_checks(server: int, outside: int) -> list[Check]:
    """A closed network: the run's model server (bridged in) answers; a listener outside on 127.0.0.1 does not."""
    def connect(port: int) -> str:  # succeeds only when the listener's greeting comes back through the chain
        return (f"python3 -c \"import socket, sys; s = socket.create_connection(('127.0.0.1', {port}), 5); "
                f"s.settimeout(10); sys.exit(0 if s.recv(3) == b'ok' else 1)\"")
    return [Check("reach the run's model server", connect(server), True),
            Check("connect to a listener outside on 127.0.0.1", connect(outside), False)]


class _Listener:
    """A listener on the outer 127.0.0.1 that counts the connections it accepted (judged from outside)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.05)
        self.accepted = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True, name="proof-listener")
        self._thread.start()

    @property
    def port(self) -> int:
        return int(self.sock.getsockname()[1])

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except (TimeoutError, OSError):
                continue
            self.accepted += 1
            with contextlib.suppress(OSError):
                conn.sendall(b"ok")
            conn.close()

    def close(self) -> int:
        self._stop.set()
        self._thread.join()
        self.sock.close()
        return self.accepted


_CACHE: dict[tuple[object, ...], list[CheckResult]] = {}
_CACHE_LOCK = threading.Lock()


def prove_cached(conf: Confinement, root: Path, env: Mapping[str, str]) -> list[CheckResult]:
    """`prove` once per process (session) and configuration: a later canary with the same confinement
    and environment reuses the passed proof (costs nothing). A failure is never cached."""
    key = (conf, tuple(sorted(env.items())))
    with _CACHE_LOCK:
        if key in _CACHE:
            return _CACHE[key]
        run_dir = Path(tempfile.mkdtemp(prefix="proof-", dir=root))
        try:
            results = prove(conf, run_dir, env)
        finally:
            shutil.rmtree(run_dir, ignore_errors=True)
        _CACHE[key] = results
        return results


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
    server, outside = (None, None) if conf.share_net else (_Listener(), _Listener())
    reach: list[str] = []
    if server is not None and outside is not None:
        items += _net_checks(server.port, outside.port)
        reach = [f"127.0.0.1:{server.port}"]
    argv = conf.argv(run_dir, repo, ["/bin/sh", "-c", _script(items)], reach=reach)
    try:
        done = subprocess.run(argv, env=dict(env), capture_output=True, text=True, check=False, timeout=120)
    finally:
        served = server.close() if server is not None else 0
        leaked = outside.close() if outside is not None else 0
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
    if server is not None and not served:
        raise ProofFailed("reach the run's model server", "the model server saw no connection")
    if leaked:
        raise ProofFailed("connect to a listener outside on 127.0.0.1",
                          f"the listener outside accepted {leaked} connection(s)")
    return results
