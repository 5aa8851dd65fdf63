"""One line and one exit code for any exception a front end can meet: the CLI's and the TUI's boundary.

Bad input (exit 2) is something the user can fix in what they named: a file or folder that is
missing, unreadable or of the wrong type, a file that does not parse or validate, a git repo or ref
that does not exist. Aborted (exit 3) is the machine or a tool failing under a valid request: disk
full, an I/O error, git itself failing, or an unexpected error (a bug: `--debug` shows its traceback).
"""

from __future__ import annotations

import errno
import json
import subprocess
import tomllib
from dataclasses import dataclass

from pydantic import ValidationError

from workbench.core.errors import InputError
from workbench.core.locate import field_name
from workbench.exitcodes import ExitCode

BAD_PATH = {errno.ENOENT, errno.ENOTDIR, errno.EISDIR, errno.EACCES, errno.EPERM, errno.ENAMETOOLONG, errno.ELOOP,
            errno.EEXIST}
"""OSError numbers that mean the path the user named is wrong (bad input), not that the machine failed."""


@dataclass(frozen=True)
class Failure:
    """What to tell the user: one line (no newline in it) and the exit code."""

    line: str
    code: ExitCode


def describe(exc: BaseException) -> Failure:
    """The one line and exit code for EXC (never raises)."""
    bad, aborted = ExitCode.BAD_INPUT, ExitCode.ABORTED
    if isinstance(exc, InputError):
        return _failure(str(exc), bad)
    if isinstance(exc, ValidationError):
        first = exc.errors()[0] if exc.error_count() else {"loc": (), "msg": "invalid"}
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        where = field_name(tuple(first["loc"]))
        return _failure(f"{exc.title}: {where + ': ' if where else ''}{first['msg']}{more}", bad)
    if isinstance(exc, tomllib.TOMLDecodeError):
        return _failure(f"invalid TOML: {exc}", bad)
    if isinstance(exc, json.JSONDecodeError):
        return _failure(f"line {exc.lineno}: invalid JSON: {exc.msg} (column {exc.colno})", bad)
    if isinstance(exc, UnicodeDecodeError):
        return _failure(f"not {exc.encoding} text: {exc.reason} at byte {exc.start}", bad)
    git = _git_failure(exc)
    if git is not None:
        return git
    if isinstance(exc, subprocess.CalledProcessError):
        cmd = exc.cmd[0] if isinstance(exc.cmd, list | tuple) and exc.cmd else exc.cmd
        return _failure(f"{cmd} failed (exit {exc.returncode}){_first_line(exc.stderr)}", aborted)
    if isinstance(exc, OSError):
        names = " -> ".join(str(n) for n in (exc.filename, exc.filename2) if n is not None)
        text = exc.strerror or str(exc) or type(exc).__name__
        return _failure(f"{names}: {text}" if names else text, bad if exc.errno in BAD_PATH else aborted)
    return _failure(f"internal error: {type(exc).__name__}: {exc} (run with --debug for the traceback)", aborted)


def _git_failure(exc: BaseException) -> Failure | None:
    """GitPython's and gitdb's errors (checked by module, so the CLI's cold start never imports git)."""
    module = type(exc).__module__
    if not (module.startswith("git.") or module.startswith("gitdb.")):
        return None
    name = type(exc).__name__
    if name in ("InvalidGitRepositoryError", "NoSuchPathError"):
        return _failure(f"{exc}: not a git repository", ExitCode.BAD_INPUT)
    if name in ("BadName", "BadObject"):
        return _failure(f"git: unknown ref or object: {exc}", ExitCode.BAD_INPUT)
    if name == "GitCommandError":
        command = getattr(exc, "command", None)
        words = [str(w) for w in command] if isinstance(command, list | tuple) else str(command or "git").split()
        sub = " ".join(words[:2]) if words else "git"
        status = getattr(exc, "status", None)
        return _failure(f"{sub} failed (exit {status}){_first_line(getattr(exc, 'stderr', ''))}", ExitCode.ABORTED)
    return _failure(f"git: {name}: {exc}", ExitCode.ABORTED)


def _first_line(stderr: object) -> str:
    if isinstance(stderr, bytes):
        stderr = stderr.decode("utf-8", "replace")
    lines = [ln.strip() for ln in str(stderr or "").splitlines() if ln.strip()]
    lines = [ln[len("stderr:"):].strip().strip("'") if ln.startswith("stderr:") else ln for ln in lines]
    return f": {lines[0]}" if lines and lines[0] else ""


def _failure(text: str, code: ExitCode) -> Failure:
    return Failure(" ".join(text.replace("\r", " ").split("\n")).strip(), code)
