"""The one run request: everything a run needs, built by ONE function for every door.

The CLI canary, each planned run of a batch, the post-install check, the self-test and the TUI
build their runs with `build_request`; `runner/execute.py` runs any of them the same way. The
rules that differ by door (which condition a record says, whether the run is confined, which
model is recorded) are decided here and nowhere else.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Literal

from workbench.core.arms import Arm
from workbench.core.errors import InputError
from workbench.core.models import Case, Condition, StopRule
from workbench.modelstub import Fault, Script
from workbench.runner.confine import Confinement

Door = Literal["canary", "batch", "postinstall", "selftest", "tune"]
"""Which front-end path a run comes through."""

NO_OUTPUT = Fault("status", status=529)
"""The model never answers: sim simulates it itself, real hosts get 529 on every request."""


@dataclass(frozen=True)
class RunIdentity:
    """Where a run sits in a batch (all None/0 outside one): the record's batch id and planned count."""

    batch: str | None = None
    planned: int | None = None
    run: int = 0
    seed: int = 0
    """The sim policy's seed (a batch uses the run index)."""
    stop_rule: StopRule | None = None
    """The batch's stop rule, written into every record of the batch."""


@dataclass(frozen=True)
class LiveInstall:
    """A live-install run: the real HOME the host uses and what the guard watches around it."""

    home: Path
    guarded: tuple[Path, ...] = ()
    """Checkouts the guard watches (the live config files under `home` always)."""
    own: tuple[Path, ...] = ()
    """Files the workbench itself writes meanwhile (the records file): never a change."""


@dataclass(frozen=True)
class RunRequest:
    """One run, fully decided: what to run, where, how it is recorded. Built only by `build_request`."""

    case: Case
    host: str
    condition: Condition
    plugin: Path
    """The plugin folder: copied into the run when no arm names a commit (live-install: used as is)."""
    arm: Arm | None = None
    """The arm under test: its commit (or its folder, @worktree) is copied, its sha and env recorded."""
    model: str | None = None
    """The real model asked for (None with a script, or the sim's policy)."""
    effort: str | None = None
    script: Script | None = None
    faults: tuple[Fault, ...] = ()
    fixture: Path | None = None
    confinement: Confinement | None = None
    identity: RunIdentity = field(default_factory=RunIdentity)
    timeout: float = 300.0
    silence_timeout: float | None = None
    binary: Path | None = None
    cancel: threading.Event | None = field(default=None, compare=False)
    """Set it to stop the run (its process group); the record is then invalid `cancelled`."""
    outside_files: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    """Files written under `{outside}` (a folder no host is allowed to read)."""
    keep: bool = False
    """Keep the run folder (debugging); it is removed otherwise."""
    live: LiveInstall | None = None
    real_home: Path | None = None
    """The real home, labelled `~` in the record (default: this process's home)."""
    workdir: Path | None = None
    """Where the run folder is made (default: the system temp folder)."""
    archive: bytes | None = field(default=None, repr=False, compare=False)
    """The arm's `git archive`, made once per batch (made per run when None)."""
    door: Door = "canary"
    unconfined_reason: str | None = None
    """Why the run is not confined (`--unconfined` on which door); None when confined."""
    guarded: tuple[Path, ...] = ()
    """Checkouts the guard watches around a canary (the live config files under the home always)."""
    own: tuple[Path, ...] = ()
    """Files the workbench itself writes meanwhile (the canary's records file): never a change."""

    @property
    def recorded_model(self) -> str | None:
        """The model a record names: `scripted`, the real model, or `sim-policy` for the sim's policy."""
        if self.script is not None:
            return "scripted"
        return self.model or ("sim-policy" if self.host == "sim" else None)



def unconfined_reason(door: Door) -> str:
    """What an unconfined record says about why: the explicit flag, on which door."""
    return f"--unconfined given ({door})"


def confinement_for(door: Door, *, unconfined: bool = False, home: Path | None = None,
                    checkouts: Iterable[Path] = (), host: str | None = None,
                    plugin: Path | None = None) -> Confinement | None:
    """THE confinement rule: EVERY door (canary, batch, self-test, post-install) runs inside
    bubblewrap unless asked `unconfined` (explicit, warned, recorded). A post-install run sees the
    live home's host config and the installed PLUGIN read-only, and may write only what that host
    must write (`runner/live.py`)."""
    from workbench.runner.confine import bwrap_path

    if unconfined:
        return None
    if bwrap_path() is None:
        raise InputError("bubblewrap (bwrap) is not installed: `apt-get install bubblewrap`, "
                         "or run with --unconfined (records then say unconfined)", field="--unconfined")
    real_home = home or Path.home()
    if door == "postinstall":
        from workbench.runner.live import live_paths

        visible, writable = live_paths(host or "sim", real_home)
        shown = (*visible, *([Path(os.path.realpath(plugin))] if plugin is not None else []))
        return Confinement(real_home, tuple(checkouts), visible=shown, writable=writable, live=True)
    return Confinement(real_home, tuple(checkouts))


def condition_of(door: Door, confinement: Confinement | None) -> Condition:
    """THE condition a record of DOOR says (the batch plan key uses it too, so resume finds its records)."""
    if confinement is None:
        return "unconfined"
    if door == "postinstall":
        return "live-install"
    if door == "batch":
        return "confined"
    if door == "tune":
        return "tune"
    return "canary"


def check_effort(host: str, effort: str | None) -> None:
    """InputError when HOST's CLI cannot be given EFFORT: a record must never name an effort the host
    did not run with (`HostAdapter.efforts`)."""
    if effort is None:
        return
    from workbench.hosts import adapter

    takes = adapter(host).efforts
    if not takes:
        raise InputError(f"{host} takes no reasoning effort from its command line (leave it empty for {host})",
                         field="--effort")
    if effort not in takes:
        raise InputError(f"{host} takes {' | '.join(takes)}, not {effort!r}", field="--effort")


def check_delegation(host: str, script: Script | None) -> None:
    """InputError when SCRIPT delegates (an `agent` call) and HOST has no delegation the server can drive."""
    from workbench.core.hostinfo import HOSTS

    if script is not None and script.agents() and host in HOSTS and not HOSTS[host].delegates:
        able = ", ".join(h.name for h in HOSTS.values() if h.delegates)
        raise InputError(f"{host} has no scripted delegation: a script with an `agent` call runs on {able}",
                         file=script.name, field="agent")


def build_request(case: Case, host: str, *, door: Door, plugin: Path, arm: Arm | None = None,
                  model: str | None = None, effort: str | None = None, script: Script | None = None,
                  no_output: bool = False, faults: Iterable[Fault] = (), fixture: Path | None = None,
                  unconfined: bool = False, confinement: Confinement | None = None, home: Path | None = None,
                  checkouts: Iterable[Path] = (), identity: RunIdentity | None = None, timeout: float = 300.0,
                  silence_timeout: float | None = None, binary: Path | None = None,
                  cancel: threading.Event | None = None, outside_files: Mapping[str, str] | None = None,
                  keep: bool = False, guarded: Iterable[Path] = (), own: Iterable[Path] = (),
                  workdir: Path | None = None, archive: bytes | None = None) -> RunRequest:
    """THE request builder of every door. InputError for a request no run can satisfy.

    Confinement: given (a batch's, shared with its proof) or decided by `confinement_for`. A
    post-install run uses HOME as the live home; a post-install run and a canary guard GUARDED
    (and the live config under the home) and ignore OWN. A FIXTURE that is
    not a folder means the built-in base fixture.
    """
    if host != "sim" and script is None and model is None:
        raise InputError(f"{host} needs --model (the user's login) or --script (the scripted model server)",
                         field="--model")
    check_effort(host, effort)
    check_delegation(host, script)
    conf = confinement if confinement is not None else confinement_for(
        door, unconfined=unconfined, home=home, checkouts=checkouts, host=host, plugin=plugin)
    live = None
    if door == "postinstall":
        from workbench.runner.live import live_binary

        live = LiveInstall(home or Path.home(), tuple(guarded), tuple(own))
        binary = binary or live_binary(host)
    return RunRequest(
        case=case, host=host, condition=condition_of(door, conf), plugin=plugin, arm=arm,
        model=model if script is None else None, effort=effort, script=script,
        faults=(*faults, *([NO_OUTPUT] if no_output else [])),
        fixture=fixture if fixture is not None and fixture.is_dir() else None, confinement=conf,
        identity=identity or RunIdentity(), timeout=timeout, silence_timeout=silence_timeout, binary=binary,
        cancel=cancel, outside_files=MappingProxyType(dict(outside_files or {})), keep=keep, live=live,
        real_home=home if door != "postinstall" else None, workdir=workdir, archive=archive, door=door,
        unconfined_reason=unconfined_reason(door) if conf is None else None,
        guarded=tuple(guarded) if door == "canary" else (), own=tuple(own) if door == "canary" else ())
