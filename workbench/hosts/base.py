"""What every host adapter shares: the run spec, the launch it builds, and the cleaned environment.

An adapter turns a `RunSpec` (prompt, repo, a run dir with a temporary HOME, model choice) into a
`Launch` (argv, env, files to write, login files to link). Nothing is started here: the runner
materializes the launch and runs it, so adapters stay pure and testable without the CLIs.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from workbench.hosts.stubs import stub_files

SCRIPTED = "scripted"
"""The model name that points a host at the scripted model server instead of its vendor."""

FAKE_KEY = "sk-workbench-scripted"
"""An API key for the scripted server: any non-empty value passes the hosts' checks."""

BASE_ENV = ("PATH", "HOME", "LANG", "LANGUAGE", "TERM", "TZ", "USER", "LOGNAME", "SHELL", "SSL_CERT_FILE",
            "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS")
"""Outer variables every host may see (plus `LC_*`); HOME and PATH are then replaced by the run's.
Everything else is dropped: tokens and keys (GITHUB_TOKEN, AWS_*, *_API_KEY), proxies, the session's
own host settings. A host's own auth variables pass only for real models (`HostAdapter.auth_env`)."""


def clean_env(outer: Mapping[str, str], allow: Iterable[str] = ()) -> dict[str, str]:
    """Only the allow-listed variables of OUTER (BASE_ENV, `LC_*`, and ALLOW), so no run inherits a secret."""
    names = {*BASE_ENV, *allow}
    return {name: value for name, value in outer.items() if name in names or name.startswith("LC_")}


def file_digest(path: Path) -> str | None:
    """sha256 of a file's bytes; None when it is missing or unreadable."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


_WRITE_ERROR = re.compile(r"EROFS|EACCES|EBUSY|EPERM|read-only file system|permission denied|"
                          r"resource busy|operation not permitted|os error (30|13|16|1)\b", re.IGNORECASE)
"""An OS refusal to write, as Node (`EROFS: read-only file system, open '...'`) and Rust (`Read-only file
system (os error 30)`) print it."""


def login_digests(paths: Iterable[Path]) -> dict[str, str | None]:
    """sha256 of each login file, taken before a run (compared after it: `runner.guard.login_files_changed`)."""
    return {os.path.realpath(p): file_digest(Path(p)) for p in paths}


@dataclass(frozen=True)
class RunSpec:
    """One host run: where it happens and which model answers.

    `run_dir` holds `home/` (the temporary HOME), `tmp/` and `bin/` (stubs and aliases); `repo` is
    the working tree the host works in (usually `run_dir/repo`). `model` is SCRIPTED (then
    `server_url` is the model server) or a real model name (then the user's login files are linked).
    """

    prompt: str
    repo: Path
    run_dir: Path
    binary: Path
    model: str = SCRIPTED
    server_url: str | None = None
    add_dirs: tuple[Path, ...] = ()
    login_home: Path | None = None
    """Where the user's login files live (default: the outer HOME); only used with a real model."""
    plugin: Path | None = None
    """The run's plugin copy, given to the host the way it loads skills (see `HostAdapter.skill_links`)."""
    script_file: Path | None = None
    """Hosts without a model server (sim): the resolved script they execute themselves."""
    fault: str | None = None
    """Hosts without a model server (sim): a provider fault they simulate themselves (`no-output`)."""
    seed: int = 0
    """The sim policy's seed (ignored by real hosts)."""
    effort: str | None = None
    """The reasoning effort asked for, one of the adapter's `efforts` (None: the host's default)."""

    @property
    def home(self) -> Path:
        return self.run_dir / "home"

    @property
    def tmp(self) -> Path:
        return self.run_dir / "tmp"

    @property
    def bin_dir(self) -> Path:
        return self.run_dir / "bin"

    @property
    def scripted(self) -> bool:
        return self.model == SCRIPTED

    def url(self) -> str:
        """The model server's base URL; a scripted run without one is a programming error."""
        if not self.server_url:
            raise ValueError("a scripted run needs the model server's URL")
        return self.server_url.rstrip("/")


@dataclass
class Launch:
    """How to start one host: argv, the whole environment, files to write and files to link."""

    argv: list[str]
    env: dict[str, str]
    cwd: Path
    files: dict[Path, str] = field(default_factory=dict)
    links: dict[Path, Path] = field(default_factory=dict)
    """Link path -> target (login files, the Codex sandbox alias); linked, never copied."""
    executable: set[Path] = field(default_factory=set)
    """Written files to mark executable (the PATH stubs)."""
    reach: tuple[str, ...] = ()
    """`host:port` endpoints the host must reach: the scripted model server (`127.0.0.1:PORT`) or, for
    a real model, the vendor API. A closed network (runner/confine.py) lets through exactly these."""
    secret_env: frozenset[str] = frozenset()
    """Names in `env` whose values are secrets (a real model's API key): redacted wherever written."""
    logins: tuple[Path, ...] = ()
    """The real login files bound read-only into the run (set by the confinement's `wrap`)."""
    login_before: dict[str, str | None] = field(default_factory=dict)
    """sha256 of each real login file before the run (`runner.guard.login_files_changed` compares)."""

    def env_names(self) -> list[str]:
        """The names of the variables the host process gets (a record may carry these, never values)."""
        return sorted(self.env)

    def secret_values(self) -> list[str]:
        """The values of the secret variables, for redaction."""
        return [self.env[name] for name in sorted(self.secret_env) if self.env.get(name)]

    def materialize(self) -> None:
        """Write the files and make the links (replacing stale ones from an earlier run)."""
        for path, text in self.files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            if path in self.executable:
                path.chmod(0o755)
        for link, target in self.links.items():
            link.parent.mkdir(parents=True, exist_ok=True)
            if link.is_symlink() or link.exists():
                link.unlink()
            link.symlink_to(target)


class HostAdapter:
    """Base of the per-host adapters: package facts plus `build(run) -> Launch`."""

    name: ClassVar[str]
    package: ClassVar[str]
    """The npm package, or '' for hosts not installed from npm."""
    pinned: ClassVar[str]
    login_files: ClassVar[tuple[str, ...]] = ()
    """Login files relative to HOME, linked into the temp HOME for real-model runs."""
    verified: ClassVar[bool] = True
    uses_server: ClassVar[bool] = True
    """False for a host that executes the script itself (sim): no model server is started for it."""
    skills_dir: ClassVar[str] = ""
    """Where, relative to HOME, the host discovers user skills ('' when it loads the plugin another way)."""
    auth_env: ClassVar[tuple[str, ...]] = ()
    """The host's own auth variables passed from the outer environment, real models only (secrets)."""
    api_hosts: ClassVar[tuple[str, ...]] = ()
    live_stream: ClassVar[bool] = True
    """The host prints each call as it happens (stdout timing can attribute repo effects to calls)."""
    repo_noise: ClassVar[tuple[str, ...]] = ()
    """Repo files the client itself writes on every run (`RepoWatcher(noise=...)` patterns)."""
    """`host:port` the host needs with a real model; the closed network's proxy allows exactly these."""

    efforts: ClassVar[tuple[str, ...]] = ()
    """The reasoning-effort levels the CLI takes (`effort_argv`); empty: it takes none, and a run that
    asks for one is refused (`runner.request.build_request`) rather than recorded with an effort the
    host never ran with."""
    refresh_failures: ClassVar[tuple[str, ...]] = ()
    """The host's own words when it could not save a refreshed login (besides an OS write error naming a
    login file, which every adapter knows: `login_write_failed`)."""

    def login_write_failed(self, text: str) -> bool:
        """TEXT (the run's error and stderr tail) says the host could not write one of its login files:
        a write error (read-only file system, permission denied, busy) on the same line as a login file's
        name, or one of `refresh_failures`. The run is then `login-refresh`, never a silent fallback."""
        names = {Path(rel).name for rel in self.login_files}
        lowered = text.lower()
        if any(words.lower() in lowered for words in self.refresh_failures):
            return True
        return any(_WRITE_ERROR.search(line) and any(n in line for n in names) for line in text.splitlines())

    def build(self, run: RunSpec) -> Launch:
        raise NotImplementedError

    def effort_argv(self, effort: str) -> list[str]:
        """The arguments that set EFFORT (one of `efforts`) on this CLI's command line."""
        return []

    def default_binary(self) -> Path | None:
        """The binary when none is installed from npm (sim: this Python), else None."""
        return None

    def skill_links(self, run: RunSpec, skills_dir: str | None = None) -> dict[Path, Path]:
        """Symlinks HOME/SKILLS_DIR/<name> -> each `skills/<name>/` of the plugin copy (no copy is made)."""
        rel = self.skills_dir if skills_dir is None else skills_dir
        if run.plugin is None or not rel:
            return {}
        return {run.home / rel / skill.parent.name: skill.parent
                for skill in sorted(run.plugin.glob("skills/*/SKILL.md"))}

    def launch(self, run: RunSpec, argv: list[str], env: dict[str, str], files: dict[Path, str] | None = None,
               links: dict[Path, Path] | None = None) -> Launch:
        """The launch with the PATH stubs and (real models) login links added; runs in the repo."""
        if run.effort is not None:
            argv = [*argv, *self.effort_argv(run.effort)]
        stubs = stub_files(run.bin_dir, self.name)
        logins = self.login_links(run)
        all_links = {**logins, **self.skill_links(run), **(links or {})}
        secret: frozenset[str] = frozenset()
        if not run.scripted:
            outer = {k: v for k, v in os.environ.items() if k in self.auth_env}
            env.update(outer)
            secret = frozenset(outer)
        return Launch(argv, env, run.repo, {**stubs, **(files or {})}, all_links, set(stubs), self.reach(run), secret,
                      tuple(logins.values()), login_digests(logins.values()))

    def reach(self, run: RunSpec) -> tuple[str, ...]:
        """What the host must reach: the model server for a scripted run, else `api_hosts`."""
        if run.scripted and run.server_url:
            from urllib.parse import urlsplit

            parts = urlsplit(run.url())
            return (f"{parts.hostname}:{parts.port or 80}",)
        return () if run.scripted else self.api_hosts

    def base_env(self, run: RunSpec, outer: Mapping[str, str] | None = None) -> dict[str, str]:
        """Cleaned environment with the temp HOME, TMPDIR and the run's bin dir first on PATH."""
        env = clean_env(os.environ if outer is None else outer)
        path = env.get("PATH", os.defpath)
        node_dir = str(Path(run.binary).parent)
        env.update({"HOME": str(run.home), "TMPDIR": str(run.tmp), "PATH": f"{run.bin_dir}:{path}:{node_dir}",
                    "NO_COLOR": "1", "TERM": env.get("TERM", "dumb"), "PWD": str(run.repo)})
        env.pop("OLDPWD", None)  # some hosts trust PWD over the real cwd
        return env

    def login_links(self, run: RunSpec) -> dict[Path, Path]:
        """Symlinks from the temp HOME to the user's existing login files (real models only)."""
        if run.scripted:
            return {}
        source = run.login_home or Path(os.environ.get("HOME", str(Path.home())))
        return {run.home / rel: source / rel for rel in self.login_files if (source / rel).exists()}
