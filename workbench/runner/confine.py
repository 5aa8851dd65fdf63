"""Bubblewrap around one host process, exactly as measured (docs/confinement.md).

Root-started bwrap without a user namespace keeps every capability and can unmount its own masks,
so the argv always has `--unshare-user --uid 1000 --gid 1000 --cap-drop ALL`. The root is
read-only; the real home and every guarded checkout are hidden under read-only tmpfs (toolchain
folders inside them bound back read-only); only the run's repo, temp HOME and tmp are writable.
Login files are BOUND into the temp HOME (a symlink into the hidden home would dangle). Claude
Code also gets its own sandbox in its temp settings: nested mode, reads of the login denied.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from workbench.hosts.base import Launch, login_digests
from workbench.runner.egress import PROXY_PORT

INNER_UID = 1000
"""The uid the agent runs as inside (`--uid`, `DROP`)."""
BWRAP_FLAGS = ("--die-with-parent", "--new-session", "--unshare-user", "--uid", str(INNER_UID), "--gid", str(INNER_UID),
               "--cap-drop", "ALL", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try")
"""The namespace part of the argv; never without the user namespace and the dropped capabilities."""
USERNS_FLAGS = ("--die-with-parent", "--new-session", "--userns", "@userns", "--cap-drop", "ALL",
                "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP",
                "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try")
"""Root outside: bwrap joins dropuid's user namespace (inner 0 = root sets the sandbox up) and keeps
only what `DROP` needs to become inner 1000 = the outer sandbox uid, with no capability at all."""

PACKAGE_ROOT = Path(__file__).resolve().parent.parent.parent
LOOPBACK = ("127.0.0.1", "localhost")
SOCAT = shutil.which("socat") or "socat"
SETPRIV = shutil.which("setpriv") or "setpriv"
SLEEP = shutil.which("sleep") or "sleep"
DROP = (SETPRIV, "--reuid", str(INNER_UID), "--regid", str(INNER_UID), "--clear-groups", "--inh-caps=-all",
        "--bounding-set=-all", "--")
"""First inside a root-started sandbox: become inner 1000 (the outer sandbox uid) with every capability gone."""
"""The bridges' helpers by absolute path: the wrapper never depends on the run's PATH."""
WAIT_STEPS = 2000
"""Polls (1 ms apart, each a few ms) for the inner listener before the wrapper gives up with exit 97."""
_LISTENING = '{{ f=1; while read -r _ l _ st _; do [ "$l $st" = "{port} 0A" ] && f=0; done </proc/net/tcp; [ $f = 0 ]; }}'
"""A shell test (builtins only): is 127.0.0.1:PORT (hex) listening in this network namespace?"""
TMP = Path("/tmp")


SECRET_FILES = ("/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/sudoers",
                "/etc/security/opasswd", "/etc/ssh/ssh_host_*_key", "/etc/machine-id")
SECRET_DIRS = ("/etc/ssl/private", "/etc/sudoers.d", "/etc/NetworkManager/system-connections", "/var/lib/sss",
               "/root", "/home/*/.ssh", "/var/spool/cron")
"""Root-only files hidden inside (read as empty / an empty folder). Started by root, the sandbox runs
as SANDBOX_UID (file modes then protect every other root-only file too); these stay masked for a
non-root user's runs, whose inner uid maps to the outer user."""

SANDBOX_UID = 59999
"""The outer uid a root-started sandbox runs as (`WORKBENCH_SANDBOX_UID` overrides): one no account
and no file uses, so the agent can read only what every user may read (docs/confinement.md)."""
DROPUID = Path(__file__).with_name("dropuid.py")


def sandbox_uid() -> int | None:
    """The outer uid runs drop to: SANDBOX_UID (or `WORKBENCH_SANDBOX_UID`) when this process is root,
    None otherwise (the inner uid then maps to the user, who is not root)."""
    if os.geteuid() != 0:
        return None
    raw = os.environ.get("WORKBENCH_SANDBOX_UID", "").strip() or str(SANDBOX_UID)
    if not raw.isdigit() or int(raw) == 0:
        from workbench.core.errors import InputError

        raise InputError(f"WORKBENCH_SANDBOX_UID must be a uid other than 0, not {raw!r}", field="WORKBENCH_SANDBOX_UID")
    return int(raw)


def login_copy(src: Path, run_dir: Path, uid: int) -> Path:
    """A copy of login SRC only UID can read (0400 in a 0700 folder of the run, hidden inside, removed with it).

    A file on disk, not bwrap's `--ro-bind-data`: Claude Code's own nested sandbox masks the login
    by mounting over it, which fails on a data mount (every Bash call then errors)."""
    folder = run_dir / ".logins"
    folder.mkdir(mode=0o700, exist_ok=True)
    os.lchown(folder, uid, uid)
    copy = folder / f"{len(list(folder.iterdir()))}-{src.name}"
    copy.write_bytes(Path(src).read_bytes())
    os.chmod(copy, 0o400)
    os.lchown(copy, uid, uid)
    return copy


WRITE_BACK = "write-back.json"
"""In RUN/.live: each writable copy of a post-install run, its live path and its files' state when copied."""


def _state(root: Path) -> dict[str, list[int]]:
    """Each regular file under ROOT (or ROOT itself): relative path -> [size, mtime_ns]; links are not followed."""
    if root.is_file() and not root.is_symlink():
        st = root.lstat()
        return {".": [st.st_size, st.st_mtime_ns]}
    out: dict[str, list[int]] = {}
    for folder, _, files in os.walk(root):
        for name in files:
            path = Path(folder) / name
            st = path.lstat()
            if path.is_file() and not path.is_symlink():
                out[str(path.relative_to(root))] = [st.st_size, st.st_mtime_ns]
    return out


def live_copy(src: Path, run_dir: Path, uid: int, *, writable: bool = False, skip: Iterable[Path] = ()) -> Path:
    """SRC of the live home (a file or a folder, links kept as links) copied into RUN_DIR/.live for UID, the
    sandbox uid of a post-install run: the caller's files are not its to read. Folders in SKIP (bound
    writable on their own) are copied empty, as mount points. A WRITABLE copy is noted for `write_back`."""
    folder = run_dir / ".live"
    folder.mkdir(mode=0o700, exist_ok=True)
    dest = folder / f"{len([p for p in folder.iterdir() if p.name != WRITE_BACK])}-{src.name}"
    skipped = {Path(os.path.realpath(p)) for p in skip if Path(p) != src}
    if src.is_dir() and not src.is_symlink():
        shutil.copytree(src, dest, symlinks=True,
                        ignore=lambda d, names: names if Path(os.path.realpath(d)) in skipped else [])
    else:
        shutil.copy2(src, dest, follow_symlinks=False)
    hand_over(dest, uid)
    if writable:
        notes = folder / WRITE_BACK
        known = json.loads(notes.read_text(encoding="utf-8")) if notes.is_file() else []
        known.append({"copy": str(dest), "live": str(src), "state": _state(dest)})
        notes.write_text(json.dumps(known), encoding="utf-8")
    return dest


def write_back(run_dir: Path, never: Iterable[Path] = ()) -> list[Path]:
    """After a post-install run that dropped to the sandbox uid: each regular file the host made or changed in
    a writable copy written to its live path (as the caller, links never followed, no path through a link,
    never a file in NEVER: the live logins). The live paths written."""
    notes = run_dir / ".live" / WRITE_BACK
    if not notes.is_file():
        return []
    barred = {Path(os.path.realpath(p)) for p in never}
    written: list[Path] = []
    for entry in json.loads(notes.read_text(encoding="utf-8")):
        copy, live, before = Path(entry["copy"]), Path(entry["live"]), entry["state"]
        for rel, state in _state(copy).items():
            if before.get(rel) == state:
                continue
            target = live if rel == "." else live / rel
            through_link = any(p.is_symlink() for p in (target, *target.parents) if _under(p, live))
            if through_link or Path(os.path.realpath(target)) in barred:
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            source = copy if rel == "." else copy / rel
            temp = target.with_name(f".{target.name}.wb-{os.getpid()}")
            shutil.copyfile(source, temp, follow_symlinks=False)
            os.chmod(temp, source.lstat().st_mode & 0o666)
            os.replace(temp, target)
            written.append(target)
    return written


def hand_over(path: Path, uid: int) -> None:
    """Make PATH and everything in it belong to UID (the run's own folders; links are not followed)."""
    os.lchown(path, uid, uid)
    for root, dirs, files in os.walk(path):
        for name in (*dirs, *files):
            os.lchown(os.path.join(root, name), uid, uid)


def secret_masks() -> tuple[list[str], list[str]]:
    """The existing SECRET_FILES and SECRET_DIRS (globs expanded), to mask."""
    import glob

    files = [p for pattern in SECRET_FILES for p in sorted(glob.glob(pattern)) if os.path.isfile(p)]
    dirs = [p for pattern in SECRET_DIRS for p in sorted(glob.glob(pattern)) if os.path.isdir(p)]
    return files, dirs


def bwrap_path() -> str | None:
    """The bwrap binary on PATH, or None."""
    return shutil.which("bwrap")


def _under(path: Path, root: Path) -> bool:
    return path == root or path.is_relative_to(root)


def default_toolchain(env_path: str | None = None) -> list[Path]:
    """Folders the hosts need that may sit inside a hidden folder: the interpreter, the venv, the
    workbench package (the sim imports it), the pinned host CLIs, node and every PATH entry."""
    from workbench.hosts.install import hosts_dir

    paths = [Path(sys.base_prefix), Path(sys.prefix), PACKAGE_ROOT / "workbench", PACKAGE_ROOT / ".cache" / "hosts",
             hosts_dir()]
    for entry in (env_path if env_path is not None else os.environ.get("PATH", "")).split(os.pathsep):
        if entry and Path(entry).is_absolute():
            p = Path(entry)
            # version managers keep shims in one folder and the interpreters in another
            paths.append(next((p.parents[i] for i, part in enumerate(reversed(p.parts[:-1]))
                               if part in (".pyenv", ".nvm", ".volta")), p))
    node = shutil.which("node")
    if node:
        paths.append(Path(os.path.realpath(node)).parent)
    out: list[Path] = []
    for p in paths:
        r = Path(os.path.realpath(p))
        if r.is_dir() and r not in out:
            out.append(r)
    return out


@dataclass(frozen=True)
class Confinement:
    """What to hide and what to keep: the real home, the guarded checkouts, toolchain folders."""

    real_home: Path
    hidden: tuple[Path, ...] = ()
    toolchain: tuple[Path, ...] = field(default_factory=lambda: tuple(default_toolchain()))
    share_net: bool = False
    """False (the default): `--unshare-net`, and only the launch's `reach` endpoints are bridged in
    (the model server through a unix socket; a real model's API through the egress proxy)."""
    bwrap: str = field(default_factory=lambda: bwrap_path() or "bwrap")
    visible: tuple[Path, ...] = ()
    """Paths inside the hidden home bound back READ-ONLY (a post-install run's live host config)."""
    writable: tuple[Path, ...] = ()
    """Paths inside the hidden home bound back WRITABLE (what the live host must write; existing ones)."""
    live: bool = False
    """A post-install run: HOME (and XDG_*, CODEX_HOME) stay the launch's live ones, not the run's temp HOME."""
    run_as: int | None = field(default_factory=sandbox_uid)
    """The outer uid bwrap runs as (root outside: SANDBOX_UID; None keeps the caller's uid). Its binds
    then come as fds opened by root (`runner/dropuid.py`), logins as the sandbox uid's own read-only copies
    (`login_copy`), and the run's repo, temp HOME and tmp are handed over to it. A post-install run
    (`live`) drops too: it sees the live install's config as the sandbox uid's own copies (`live_copy`),
    and what it wrote into a writable copy is written back to the live home after it (`write_back`)."""

    def masks(self, extra: Iterable[str | Path] = ()) -> list[Path]:
        """Real home, checkouts (and EXTRA secret folders), outermost first, without nested repeats."""
        roots = sorted({Path(os.path.realpath(p)) for p in (self.real_home, *self.hidden, *extra)},
                       key=lambda p: len(p.parts))
        out: list[Path] = []
        for root in roots:
            if not any(_under(root, o) for o in out):
                out.append(root)
        return out

    def argv(self, run_dir: Path, repo: Path, command: Sequence[str], *, binds: Mapping[Path, Path] | None = None,
             writable: Iterable[Path] = (), env: Mapping[str, str] | None = None, reach: Sequence[str] = (),
             ro_binds: Mapping[Path, Path] | None = None) -> list[str]:
        """The full argv for COMMAND in REPO: run dir read-only, its home/tmp and REPO writable, BINDS
        (source -> destination) read-write, RO_BINDS (login files) read-only. With a closed network
        the endpoints in REACH are bridged in (see `network`); the argv then starts with /bin/sh."""
        run_dir = Path(os.path.realpath(run_dir))
        outer, inner, net_env = self.network(run_dir, reach)
        if inner:
            command = ["/bin/sh", "-c", inner, "wb-net", *command]
        env = {**net_env, **(env or {})}
        home, tmp = run_dir / "home", run_dir / "tmp"
        logins: list[str] = []  # dropping to run_as: the login files dropuid opens as root, in order
        made: set[Path] = set()

        def parents(dest: Path, roots: Iterable[Path]) -> list[str]:
            """Dropping to run_as: the folders bwrap would make for DEST inside a tmpfs ROOT, made 0755
            first (bwrap makes them 0700 as root; the sandbox uid could not pass them)."""
            root = next((r for r in roots if _under(dest, r) and dest != r), None)
            if self.run_as is None or root is None:
                return []
            out: list[str] = []
            for folder in reversed(dest.parents):
                if _under(folder, root) and folder != root and folder not in made:
                    made.add(folder)
                    out += ["--perms", "0755", "--dir", str(folder)]
            return out

        argv = [self.bwrap, *(BWRAP_FLAGS if self.run_as is None else USERNS_FLAGS)]
        if not self.share_net:
            argv.append("--unshare-net")
        argv += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--perms", "1777", "--tmpfs", "/tmp"]
        files, dirs = secret_masks()
        for secret in files:
            argv += ["--ro-bind", "/dev/null", secret]
        for name, path in accounts(run_dir).items():
            argv += ["--ro-bind", str(path), f"/etc/{name}"]
        masks = self.masks(dirs)
        for keep in self.toolchain:  # a checkout or venv under /tmp (CI clones there) must stay visible
            if _under(keep, TMP) and keep != TMP and not any(_under(keep, m) for m in masks):
                argv += [*parents(keep, [TMP]), "--ro-bind", str(keep), str(keep)]
        for mask in masks:
            if _under(run_dir, mask):
                continue  # never mask the run itself (tests keep runs under a fake home's parent)
            argv += ["--tmpfs", str(mask)]
            for keep in self.toolchain:
                if _under(keep, mask) and keep != mask and not any(_under(keep, h) for h in self._inner(mask)):
                    argv += [*parents(keep, [mask]), "--ro-bind", str(keep), str(keep)]
            shown = [*(("--ro-bind", p) for p in self.visible), *(("--bind", p) for p in self.writable)]
            for kind, keep in sorted(shown, key=lambda kp: len(kp[1].parts)):  # a login inside a writable folder
                if _under(keep, mask) and (keep.exists() or keep.is_symlink()):  # is bound read-only after it
                    source = keep if self.run_as is None else live_copy(
                        keep, run_dir, self.run_as, writable=kind == "--bind", skip=self.writable)
                    argv += [*parents(keep, [mask]), kind, str(source), str(keep)]
            argv += ["--remount-ro", str(mask)]
        own = (home, tmp, Path(os.path.realpath(repo)), *map(Path, writable))
        if self.run_as is not None and run_dir.is_dir():  # the run's own folders become the sandbox uid's;
            os.chmod(run_dir, 0o755)                      # the rest of RUN_DIR stays root's
            for path in own:
                if path.exists():
                    hand_over(path, self.run_as)
        argv += [*parents(run_dir, [TMP]), "--ro-bind", str(run_dir), str(run_dir)]
        for path in own:
            argv += ["--bind", str(path), str(path)]
        for src, dest in (binds or {}).items():
            argv += ["--bind", str(src), str(dest)]
        for src, dest in (ro_binds or {}).items():
            if self.run_as is None:
                argv += ["--ro-bind", str(src), str(dest)]
            else:  # the sandbox uid could not read the root-only file: its own read-only copy, bound read-only
                argv += ["--ro-bind", str(login_copy(src, run_dir, self.run_as)), str(dest)]
        for copies in (".logins", ".live"):  # the copies are seen only where they are bound
            if (run_dir / copies).is_dir():
                argv += ["--tmpfs", str(run_dir / copies)]
        for name, value in self.inner_env(run_dir, env).items():
            argv += ["--setenv", name, value]
        argv += ["--chdir", str(Path(os.path.realpath(repo))), "--", *(DROP if self.run_as is not None else ()),
                 *command]
        if self.run_as is not None:
            argv = [sys.executable, "-I", str(DROPUID), str(self.run_as), str(len(logins)), *logins, "--", *argv]
        return ["/bin/sh", "-c", outer, "wb-net", *argv] if outer else argv

    def network(self, run_dir: Path, reach: Sequence[str]) -> tuple[str, str, dict[str, str]]:
        """The closed network's bridges for REACH: (outer shell script, inner shell script, inner env).

        Loopback endpoints (the model server): outside, socat serves RUN/net/PORT.sock and forwards to
        127.0.0.1:PORT; inside the new network namespace, socat listens on 127.0.0.1:PORT and forwards
        to that socket. Other endpoints (a real model's API) go through one egress proxy allowing
        exactly them (runner/egress.py), with HTTPS_PROXY set inside. The outer helpers die with bwrap
        (`setpriv --pdeathsig KILL`), the inner ones with its pid namespace. Empty when shared."""
        if self.share_net or not reach:
            return "", "", {}
        net = run_dir / "net"
        net.mkdir(exist_ok=True)
        q = shlex.quote
        cd = f"cd {q(str(net))} && exec"  # socket paths relative to net/: a sockaddr holds only 108 bytes
        outer, inner, socks, ports = [], [], [], []
        loop = [int(p) for h, _, p in (r.rpartition(":") for r in reach) if h in LOOPBACK]
        remote = sorted({r for r in reach if r.rpartition(":")[0] not in LOOPBACK})
        for port in loop:
            outer.append(f"({cd} {SETPRIV} --pdeathsig KILL {SOCAT} UNIX-LISTEN:{port}.sock,fork,unlink-early,"
                         f"perm=0666 TCP:127.0.0.1:{port} </dev/null >/dev/null 2>&1) &")
            socks.append(f"{port}.sock")
            ports.append(port)
        env: dict[str, str] = {}
        if remote:
            egress = Path(__file__).with_name("egress.py")
            outer.append(f"({cd} {SETPRIV} --pdeathsig KILL {q(sys.executable)} -I {q(str(egress))} egress.sock "
                         f"{' '.join(map(q, remote))} </dev/null >/dev/null 2>&1) &")
            socks.append("egress.sock")
            ports.append(PROXY_PORT)
            proxy = f"http://127.0.0.1:{PROXY_PORT}"
            env = {"HTTPS_PROXY": proxy, "https_proxy": proxy, "HTTP_PROXY": proxy, "http_proxy": proxy,
                   "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}  # the bridges: direct
        outer.append('exec "$@"')  # no wait here: the inner side retries its connect until the socket is up
        for port, sock in zip(ports, socks, strict=True):
            inner.append(f"({cd} {SOCAT} TCP-LISTEN:{port},bind=127.0.0.1,fork,reuseaddr "
                         f"UNIX-CONNECT:{sock},retry=500,interval=0.01 </dev/null >/dev/null 2>&1) &")
        for port in ports:  # the host must not connect before the listener is up
            inner.append(f"n=0; until {_LISTENING.format(port=f'0100007F:{port:04X}')}; do n=$((n+1)); "
                         f"[ $n -gt {WAIT_STEPS} ] && exit 97; {SLEEP} 0.001; done")
        inner.append('exec "$@"')
        return "\n".join(outer), "\n".join(inner), env

    def _inner(self, mask: Path) -> list[Path]:
        """Hidden folders nested inside MASK (their toolchain is bound after their own mask)."""
        return [Path(os.path.realpath(h)) for h in self.hidden if Path(os.path.realpath(h)) != mask
                and _under(Path(os.path.realpath(h)), mask)]

    def wrap(self, launch: Launch, host: str, run_dir: Path, repo: Path) -> Launch:
        """LAUNCH (already materialized) run inside bwrap: login links become binds, Claude gets its sandbox."""
        binds: dict[Path, Path] = {}
        for link, target in launch.links.items():
            real = Path(os.path.realpath(target))
            if _under(real, Path(os.path.realpath(self.real_home))) and real.is_file():
                if link.is_symlink():
                    link.unlink()
                    link.touch()  # a mount point for the bind; the login itself is never copied
                binds[real] = link
        if host == "claude":
            claude_settings(run_dir / "home", list(binds.values()))
        kept = ("HOME", "TMPDIR", *(("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "CODEX_HOME")
                                    if self.live else ()))
        env = {k: v for k, v in launch.env.items() if k in kept}
        argv = self.argv(run_dir, repo, launch.argv, ro_binds=binds, env=env, reach=launch.reach)
        inner = {**launch.env, **self.network(Path(os.path.realpath(run_dir)), launch.reach)[2],
                 **self.inner_env(run_dir, env)}
        before = launch.login_before or login_digests(binds)
        return replace(launch, argv=argv, env=inner, logins=tuple(binds), login_before=before)

    @staticmethod
    def inner_env(run_dir: Path, env: Mapping[str, str] | None = None) -> dict[str, str]:
        """The variables `argv` sets inside (`--setenv`), on top of the launch's own."""
        home = Path(os.path.realpath(run_dir)) / "home"
        return {"HOME": str(home), "TMPDIR": str(home.parent / "tmp"), "XDG_CONFIG_HOME": str(home / ".config"),
                "XDG_CACHE_HOME": str(home / ".cache"), "XDG_DATA_HOME": str(home / ".local" / "share"),
                **(env or {})}


def accounts(run_dir: Path) -> dict[str, Path]:
    """The sandbox's own /etc/passwd and /etc/group (written in RUN_DIR when it exists): root, the
    agent (INNER_UID, HOME the run's) and nobody, so `id`, `ls -l` and `getent` inside name no host
    account and the user's login name never reaches a record."""
    home = Confinement.inner_env(run_dir)["HOME"]
    texts = {"passwd": f"root:x:0:0:root:/root:/usr/sbin/nologin\nagent:x:{INNER_UID}:{INNER_UID}:agent:{home}:/bin/sh\n"
                       "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n",
             "group": f"root:x:0:\nagent:x:{INNER_UID}:\nnogroup:x:65534:\n"}
    folder = run_dir / "accounts"
    if run_dir.is_dir():
        folder.mkdir(exist_ok=True)
        for name, text in texts.items():
            (folder / name).write_text(text, encoding="utf-8")
            os.chmod(folder / name, 0o644)
    return {name: folder / name for name in texts}


def claude_settings(home: Path, logins: Sequence[Path]) -> Path:
    """Merge Claude Code's own sandbox into HOME/.claude/settings.json: nested mode (inside our bwrap
    its secure mode cannot mount /proc), no unsandboxed fallback, and the login unreadable to its
    Bash (sandbox.filesystem.denyRead) and to its Read tool (permissions.deny)."""
    path = home / ".claude" / "settings.json"
    data = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    login_paths = [str(p) for p in logins] or [str(home / ".claude" / ".credentials.json"), str(home / ".claude.json")]
    sandbox = data.setdefault("sandbox", {})
    sandbox.update({"enabled": True, "enableWeakerNestedSandbox": True, "allowUnsandboxedCommands": False})
    fs = sandbox.setdefault("filesystem", {})
    fs["denyRead"] = sorted({*fs.get("denyRead", []), *login_paths})
    perms = data.setdefault("permissions", {})
    perms["deny"] = sorted({*perms.get("deny", []), *(f"Read({p})" for p in login_paths)})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path
