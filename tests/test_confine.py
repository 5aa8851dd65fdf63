"""The bwrap wrapper with real bubblewrap: measured flags, real refusals, login binds, Claude's settings,
and the proof (a fake real home, plus one proof against the real HOME that only checks refusals)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from batch_support import SECRET, make_world

from workbench.hosts.base import Launch, clean_env
from workbench.runner.confine import (
    BWRAP_FLAGS,
    DROP,
    SANDBOX_UID,
    USERNS_FLAGS,
    Confinement,
    bwrap_path,
    claude_settings,
)
from workbench.runner.proof import ProofFailed, prove

pytestmark = pytest.mark.skipif(bwrap_path() is None, reason="never: .ci/run installs bubblewrap")


def _run_dir(tmp: Path) -> Path:
    rd = tmp / "run"
    for sub in ("home", "tmp", "repo"):
        (rd / sub).mkdir(parents=True)
    return rd


def _inside(conf: Confinement, rd: Path, script: str, binds: dict[Path, Path] | None = None) -> str:
    argv = conf.argv(rd, rd / "repo", ["/bin/sh", "-c", script], binds=binds)
    done = subprocess.run(argv, env=clean_env(os.environ), capture_output=True, text=True, check=False)
    return done.stdout + done.stderr


def test_argv_has_the_measured_flags(tmp_path: Path) -> None:
    argv = Confinement(tmp_path / "home", (tmp_path / "ws",), run_as=None).argv(tmp_path / "run",
                                                                                tmp_path / "run" / "repo", ["x"])
    joined = " ".join(argv)
    assert " ".join(BWRAP_FLAGS) in joined and "--unshare-user --uid 1000 --gid 1000 --cap-drop ALL" in joined
    assert f"--tmpfs {tmp_path / 'home'}" in joined and f"--remount-ro {tmp_path / 'ws'}" in joined
    assert "--unshare-net" in argv and argv[-2:] == ["--", "x"]  # closed network, nothing to bridge
    shared = Confinement(tmp_path / "home", share_net=True).argv(tmp_path / "run", tmp_path / "run" / "repo", ["x"])
    assert "--unshare-net" not in shared
    dropped = " ".join(Confinement(tmp_path / "home", run_as=59999).argv(tmp_path / "run", tmp_path / "run" / "repo",
                                                                         ["x"]))
    assert " ".join(USERNS_FLAGS) in dropped and dropped.endswith(" ".join((*DROP, "x")))
    assert "dropuid.py 59999 " in dropped and "--unshare-user" not in dropped


@pytest.mark.parametrize("run_as", [None, SANDBOX_UID], ids=["caller-uid", "dropped-uid"])
def test_the_sandbox_names_no_host_account(tmp_path: Path, run_as: int | None) -> None:
    """`id`, `ls -l` of a masked home and `getent` inside show only root, agent and nobody: every
    account name the host has (the user's among them) stays outside."""
    if run_as is not None and os.geteuid() != 0:
        pytest.skip("the dropped uid needs root outside")
    w = make_world(tmp_path)
    rd = _run_dir(tmp_path)
    owners = f"ls -la {w.home} /tmp | awk 'NF>8 {{print $3; print $4}}'"
    out = _inside(Confinement(w.home, run_as=run_as), rd,
                  f"id; echo ==; {owners}; echo ==; getent passwd; echo ==; getent group")
    ident, owners, users, groups = out.split("==\n")
    assert ident.startswith("uid=1000(agent) gid=1000(agent)"), out
    assert set(owners.split()) <= {"root", "agent"}, out
    assert {line.split(":")[0] for line in users.splitlines()} == {"root", "agent", "nobody"}, out
    assert {line.split(":")[0] for line in groups.splitlines()} == {"root", "agent", "nogroup"}, out
    assert Path("/etc/passwd").read_text() != (rd / "accounts" / "passwd").read_text()  # the host's file untouched


def test_no_capabilities_and_no_unmounting_the_mask(tmp_path: Path) -> None:
    w = make_world(tmp_path)
    rd = _run_dir(tmp_path)
    out = _inside(Confinement(w.home, (w.ws,)), rd,
                  f"grep CapEff /proc/self/status; id -u; umount -l {w.home}; cat {w.home}/secret.txt")
    assert "CapEff:\t0000000000000000" in out and "\n1000\n" in out
    assert SECRET not in out


def test_refusals_outside_and_work_inside(tmp_path: Path) -> None:
    w = make_world(tmp_path)
    rd = _run_dir(tmp_path)
    script = (f"cat {w.home}/secret.txt; touch {w.home}/x; touch {w.ws}/x; touch /usr/x; "
              f"echo in > {rd}/repo/f && echo h > $HOME/h && echo TMP=$TMPDIR HOME=$HOME")
    out = _inside(Confinement(w.home, (w.ws,)), rd, script)
    assert SECRET not in out
    assert not (w.home / "x").exists() and not (w.ws / "x").exists() and not Path("/usr/x").exists()
    assert (rd / "repo" / "f").read_text() == "in\n" and (rd / "home" / "h").exists()
    assert f"TMP={rd / 'tmp'} HOME={rd / 'home'}" in out


def test_login_file_is_bound_not_linked(tmp_path: Path) -> None:
    """A symlink into the hidden home would dangle: wrap() turns it into a bind of the login file."""
    w = make_world(tmp_path)
    (w.home / ".claude" / ".credentials.json").write_text('{"token": "t"}', encoding="utf-8")
    rd = _run_dir(tmp_path)
    link = rd / "home" / ".claude" / ".credentials.json"
    launch = Launch(["/bin/sh", "-c", f"wc -c < {link}; cat {w.home}/secret.txt"], clean_env(os.environ),
                    rd / "repo", links={link: w.home / ".claude" / ".credentials.json"})
    launch.materialize()
    wrapped = Confinement(w.home, (w.ws,)).wrap(launch, "claude", rd, rd / "repo")
    done = subprocess.run(wrapped.argv, env=wrapped.env, capture_output=True, text=True, check=False)
    assert done.stdout.split()[0] == "14" and SECRET not in done.stdout + done.stderr
    assert not link.is_symlink() and link.read_text() == ""  # only a mount point outside; never a copy
    settings = json.loads((rd / "home" / ".claude" / "settings.json").read_text())
    assert settings["sandbox"]["enableWeakerNestedSandbox"] is True
    assert f"Read({link})" in settings["permissions"]["deny"] and str(link) in settings["sandbox"]["filesystem"]["denyRead"]


def test_claude_settings_merge_keeps_existing_keys(tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"permissions": {"deny": ["Bash(rm:*)"]}, "model": "x"}))
    claude_settings(tmp_path, [])
    data = json.loads(path.read_text())
    assert data["model"] == "x" and "Bash(rm:*)" in data["permissions"]["deny"]
    assert data["sandbox"]["enabled"] and data["sandbox"]["allowUnsandboxedCommands"] is False


def test_proof_passes_with_the_batch_wrapper(tmp_path: Path) -> None:
    w = make_world(tmp_path)
    results = prove(Confinement(w.home, (w.ws,)), tmp_path / "proof", clean_env(os.environ))
    names = [r.name for r in results]
    assert all(r.passed for r in results)
    assert names[:4] == ["read real home", "write real home", f"write guarded checkout {w.ws}", "write /usr"]
    assert {"write repo", "read+write temp HOME", "git status", "python3 runs", "node runs"} <= set(names)


class _Leaky(Confinement):
    """A wrapper that forgets to hide the real home: the proof must catch it."""

    def masks(self, extra: Any = ()) -> list[Path]:
        return [m for m in super().masks(extra) if m != self.real_home]

    def argv(self, *args: Any, **kwargs: Any) -> list[str]:
        argv = super().argv(*args, **kwargs)
        at = argv.index("/tmp", argv.index("--tmpfs")) + 1  # the fake home lives under /tmp: show it again
        return [*argv[:at], "--ro-bind", str(self.real_home), str(self.real_home), *argv[at:]]


def test_proof_names_the_failed_check(tmp_path: Path) -> None:
    w = make_world(tmp_path)
    with pytest.raises(ProofFailed) as err:
        prove(_Leaky(w.home, (w.ws,)), tmp_path / "proof", clean_env(os.environ))
    assert err.value.check == "read real home"
    assert SECRET not in str(err.value)


def test_proof_inside_check_fails_without_the_toolchain(tmp_path: Path) -> None:
    w = make_world(tmp_path)
    env = {**clean_env(os.environ), "PATH": "/nonexistent"}
    with pytest.raises(ProofFailed) as err:
        prove(Confinement(w.home, (w.ws,)), tmp_path / "proof", env)
    assert err.value.check == "read real home" and "could not run" in err.value.detail  # no cat: no proof


def test_proof_against_the_real_home_only_refusals(tmp_path: Path) -> None:
    """The real HOME: its files stay unreadable and unwritable inside (nothing printed, nothing left)."""
    w = make_world(tmp_path)
    home = Path.home()
    before = sorted(p.name for p in home.iterdir())
    results = prove(Confinement(home, (w.ws,)), tmp_path / "proof", clean_env(os.environ))
    refused = {r.name for r in results if r.exit_code != 0}
    assert {"write real home", "write /usr", f"write guarded checkout {w.ws}"} <= refused
    assert sorted(p.name for p in home.iterdir()) == before


def test_proof_checks_the_closed_network(tmp_path: Path) -> None:
    w = make_world(tmp_path)
    results = prove(Confinement(w.home, (w.ws,)), tmp_path / "proof", clean_env(os.environ))
    names = {r.name for r in results}
    assert {"reach the run's model server", "connect to a listener outside on 127.0.0.1"} <= names


class _OpenNet(Confinement):
    """A wrapper that claims a closed network but shares it: the proof must catch it from the listener."""

    def argv(self, *args: Any, **kwargs: Any) -> list[str]:
        return [a for a in super().argv(*args, **kwargs) if a != "--unshare-net"]


def test_proof_fails_when_the_network_is_shared(tmp_path: Path) -> None:
    w = make_world(tmp_path)
    with pytest.raises(ProofFailed) as err:
        prove(_OpenNet(w.home, (w.ws,)), tmp_path / "proof", clean_env(os.environ))
    assert err.value.check == "connect to a listener outside on 127.0.0.1"


def test_proof_is_cached_per_configuration(tmp_path: Path) -> None:
    from workbench.runner.proof import prove_cached

    w = make_world(tmp_path)
    env = clean_env(os.environ)
    first = prove_cached(Confinement(w.home, (w.ws,)), tmp_path, env)
    assert prove_cached(Confinement(w.home, (w.ws,)), tmp_path, env) is first
    assert prove_cached(Confinement(w.home, (w.ws, tmp_path / "other")), tmp_path, env) is not first
    assert not list(tmp_path.glob("proof-*"))  # its run folders are removed


def test_closed_network_works_from_a_run_folder_with_a_long_path(tmp_path: Path) -> None:
    """A unix socket address holds 108 bytes: the bridges must not depend on the run folder's path length."""
    w = make_world(tmp_path)
    deep = tmp_path / ("d" * 60) / ("e" * 60) / "proof"
    results = prove(Confinement(w.home, (w.ws,)), deep, clean_env(os.environ))
    assert len(str(deep / "net" / "65535.sock")) > 108
    assert any(r.name == "reach the run's model server" and r.passed for r in results)


def test_egress_proxy_tunnels_only_the_allowed_endpoint(tmp_path: Path) -> None:
    """The proxy (outside) tunnels CONNECT to an allowed host:port and refuses the rest; judged by listeners."""
    import socket
    import threading

    from workbench.runner.egress import serve

    allowed, other = socket.socket(), socket.socket()
    for s in (allowed, other):
        s.bind(("127.0.0.1", 0))
        s.listen(4)
        s.settimeout(10)
    a_port, o_port = allowed.getsockname()[1], other.getsockname()[1]
    sock = tmp_path / "egress.sock"
    threading.Thread(target=serve, args=(sock, [f"127.0.0.1:{a_port}"]), daemon=True).start()

    def ask(port: int) -> bytes:
        c = socket.socket(socket.AF_UNIX)
        for _ in range(200):
            try:
                c.connect(str(sock))
                break
            except OSError:
                threading.Event().wait(0.01)
        c.sendall(f"CONNECT 127.0.0.1:{port} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        return c.recv(100)

    assert ask(o_port).startswith(b"HTTP/1.1 403")
    assert ask(a_port).startswith(b"HTTP/1.1 200")
    conn, _ = allowed.accept()
    conn.close()
    other.setblocking(False)
    with pytest.raises(BlockingIOError):
        other.accept()
    log = (tmp_path / "egress.sock.log").read_text()
    assert f"deny CONNECT 127.0.0.1:{o_port}" in log and f"allow CONNECT 127.0.0.1:{a_port}" in log


def test_real_model_endpoints_go_through_the_proxy_and_nothing_else(tmp_path: Path) -> None:
    """Inside, HTTPS_PROXY points at the bridged egress proxy; a CONNECT to anything not allowed gets 403."""
    w = make_world(tmp_path)
    rd = _run_dir(tmp_path)
    script = ("python3 -c \"import os, socket; p = os.environ['HTTPS_PROXY'].rsplit(':', 1)[1]; "
              "s = socket.create_connection(('127.0.0.1', int(p)), 5); "
              "s.sendall(b'CONNECT 127.0.0.1:22 HTTP/1.1\\r\\n\\r\\n'); print(s.recv(40))\"")
    argv = Confinement(w.home, (w.ws,)).argv(rd, rd / "repo", ["/bin/sh", "-c", script], reach=["api.example.com:443"])
    done = subprocess.run(argv, env=clean_env(os.environ), capture_output=True, text=True, check=False, timeout=60)
    assert "403 Forbidden" in done.stdout, done.stdout + done.stderr
    assert "deny CONNECT 127.0.0.1:22" in (rd / "net" / "egress.sock.log").read_text()


@pytest.mark.skipif(os.geteuid() != 0, reason="the sandbox uid is for root-started runs")
def test_root_outside_runs_as_the_sandbox_uid_with_no_way_back(tmp_path: Path) -> None:
    """Judged from outside: a mode-0600 root file outside every mask stays unread, what the run writes
    belongs to the sandbox uid; inside, no capability (bounding set too) and no setuid back to root."""
    w = make_world(tmp_path)
    rd = _run_dir(tmp_path)
    key = Path("/var/tmp") / f"wb-confine-{os.getpid()}.key"
    key.write_text(SECRET, encoding="utf-8")
    os.chmod(key, 0o600)
    try:
        out = _inside(Confinement(w.home, (w.ws,)), rd,
                      f"cat {key} > stolen; grep -E 'Cap(Eff|Prm|Bnd)' /proc/self/status; "
                      f"setpriv --reuid 0 cat {key}; echo done > mine")
        control = _inside(Confinement(w.home, (w.ws,), run_as=None), _run_dir(tmp_path / "c"), f"cat {key}")
    finally:
        key.unlink()
    assert SECRET not in out and SECRET not in (rd / "repo" / "stolen").read_text()
    assert SECRET in control  # the root mapping would have read it
    assert out.count("\t0000000000000000") == 3
    assert (rd / "repo" / "mine").stat().st_uid == SANDBOX_UID
