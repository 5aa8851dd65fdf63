"""The sim host's tools: Read, Edit, Write, Bash and Skill, really executed, with Claude Code's messages.

Permissions follow Claude Code's `--add-dir` model as measured (docs/hosts.md): reads inside the repo,
the plugin and HOME are allowed, other reads are refused; Edit and Write are allowed inside the repo
only. Bash runs `bash -c` with cwd = repo and a timeout; like Claude Code's own Bash (without its
sandbox) it is not confined, so a script that writes elsewhere from the shell would do so. Unlike
Claude Code, Edit does not insist on an earlier Read of its file.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

BASH_OUTPUT_CHARS = 30_000
"""Claude Code truncates Bash output around this length."""

GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "sim",
    "GIT_AUTHOR_EMAIL": "sim@localhost",
    "GIT_COMMITTER_NAME": "sim",
    "GIT_COMMITTER_EMAIL": "sim@localhost",
}


@dataclass(frozen=True)
class Outcome:
    """What a tool call returned: the text the model sees, and whether it failed or was refused."""

    text: str
    is_error: bool = False
    denied: bool = False


@dataclass(frozen=True)
class SkillInfo:
    """A skill the plugin offers: its name, the name the host lists, and its SKILL.md."""

    name: str
    qualified: str
    path: Path
    description: str = ""


def frontmatter(text: str) -> tuple[dict[str, str], str]:
    """`key: value` pairs of a leading `---` block, and the body after it."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return {}, text
    for end in range(1, len(lines)):
        if lines[end].strip() == "---":
            meta = {}
            for line in lines[1:end]:
                key, sep, value = line.partition(":")
                if sep and key.strip():
                    meta[key.strip()] = value.strip().strip("\"'")
            return meta, "\n".join(lines[end + 1:])
    return {}, text


def plugin_name(plugin: Path) -> str:
    """The plugin's manifest name (`.claude-plugin/plugin.json`), else its folder name."""
    try:
        data = json.loads((plugin / ".claude-plugin" / "plugin.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = None
    name = data.get("name") if isinstance(data, dict) else None
    return name if isinstance(name, str) and name else plugin.resolve().name


def plugin_skills(plugin: Path | None) -> list[SkillInfo]:
    """Skills under `<plugin>/skills/*/SKILL.md`, listed as `<plugin>:<skill>` as Claude Code lists them."""
    if plugin is None:
        return []
    owner = plugin_name(plugin)
    found: list[SkillInfo] = []
    for path in sorted(plugin.glob("skills/*/SKILL.md")):
        try:
            meta, _ = frontmatter(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            continue
        name = meta.get("name") or path.parent.name
        found.append(SkillInfo(name, f"{owner}:{name}", path, meta.get("description", "")))
    return found


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


class Workspace:
    """The directories of one run and the tools that act on them."""

    def __init__(self, repo: Path, *, plugin: Path | None = None, home: Path | None = None,
                 timeout: float = 120.0, transcript: bool = False) -> None:
        self.repo = repo.resolve()
        self.transcript = transcript
        """Keep a transcript of what was offered under HOME, as Claude Code does (only a HOME given to the run)."""
        self.plugin = plugin.resolve() if plugin is not None else None
        self.home = home.resolve() if home is not None else None
        self.timeout = timeout
        self.skills = plugin_skills(self.plugin)

    def resolve(self, path: str) -> Path:
        """PATH as the tool sees it: relative paths are taken from the repo; symlinks and `..` resolved."""
        return (self.repo / path).resolve() if not os.path.isabs(path) else Path(path).resolve()

    def may_read(self, target: Path) -> bool:
        """Reads are allowed in the repo, the plugin and HOME."""
        roots = [r for r in (self.repo, self.plugin, self.home) if r is not None]
        return any(_inside(target, root) for root in roots)

    def may_write(self, target: Path) -> bool:
        """Edits and writes are allowed in the repo only."""
        return _inside(target, self.repo)

    # --- tools ------------------------------------------------------------------------------
    def read(self, path: str) -> Outcome:
        """Read a file; the result numbers lines like Claude Code's Read (`1\\tfirst line`)."""
        target = self.resolve(path)
        if not self.may_read(target):
            return Outcome(f"Claude requested permissions to read from {path}, but you haven't granted it yet.",
                           is_error=True, denied=True)
        if target.is_dir():
            return Outcome("EISDIR: illegal operation on a directory, read", is_error=True)
        try:
            text = target.read_bytes().decode("utf-8", errors="replace")
        except FileNotFoundError:
            return Outcome(f"File does not exist. Note: your current working directory is {self.repo}.",
                           is_error=True)
        except OSError as exc:
            return Outcome(f"{exc.strerror}: {path}", is_error=True)
        if not text:
            return Outcome("<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>")
        return Outcome("\n".join(f"{n}\t{line}" for n, line in enumerate(text.split("\n"), start=1)))

    def _write_refused(self, path: str, target: Path) -> Outcome | None:
        if self.may_write(target):
            return None
        return Outcome(f"Claude requested permissions to write to {path}, but you haven't granted it yet.",
                       is_error=True, denied=True)

    def edit(self, path: str, old: str, new: str, *, replace_all: bool = False) -> Outcome:
        """Replace OLD by NEW in a file: OLD must occur exactly once unless replace_all."""
        target = self.resolve(path)
        if (refused := self._write_refused(path, target)) is not None:
            return refused
        try:
            text = target.read_text(encoding="utf-8")
        except FileNotFoundError:
            return Outcome(f"File does not exist. Note: your current working directory is {self.repo}.",
                           is_error=True)
        except (OSError, UnicodeDecodeError) as exc:
            return Outcome(f"Cannot edit {path}: {exc}", is_error=True)
        count = text.count(old) if old else 0
        if count == 0:
            return Outcome(f"String to replace not found in file.\nString: {old}", is_error=True)
        if count > 1 and not replace_all:
            return Outcome(f"Found {count} matches of the string to replace, but replace_all is false. To replace "
                           "all occurrences, set replace_all to true. To replace only one occurrence, please "
                           f"provide more context to uniquely identify the instance.\nString: {old}", is_error=True)
        target.write_text(text.replace(old, new) if replace_all else text.replace(old, new, 1), encoding="utf-8")
        return Outcome(f"The file {path} has been updated successfully.")

    def write(self, path: str, content: str) -> Outcome:
        """Write a whole file, creating its folders."""
        target = self.resolve(path)
        if (refused := self._write_refused(path, target)) is not None:
            return refused
        existed = target.exists()
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content, encoding="utf-8")
        except OSError as exc:
            return Outcome(f"Cannot write {path}: {exc.strerror}", is_error=True)
        if existed:
            return Outcome(f"The file {path} has been updated successfully.")
        return Outcome(f"File created successfully at: {path}")

    def bash_env(self) -> dict[str, str]:
        """The shell's environment: this process's, with HOME set and a git identity when none is given."""
        env = dict(os.environ)
        if self.home is not None:
            env["HOME"] = str(self.home)
        for key, value in GIT_IDENTITY.items():
            env.setdefault(key, value)
        env["GIT_TERMINAL_PROMPT"] = "0"
        return env

    def bash(self, command: str) -> Outcome:
        """Run COMMAND with `bash -c` in the repo; a non-zero exit is `Exit code N` first, as Claude writes it."""
        try:
            proc = subprocess.Popen(["bash", "-c", command], cwd=self.repo, env=self.bash_env(),
                                    stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                    start_new_session=True)
        except OSError as exc:
            return Outcome(f"Exit code 127\n{exc}", is_error=True)
        with _killed_on_term(proc.pid):  # its own session: a watchdog stopping the sim must end it too
            try:
                raw, _ = proc.communicate(timeout=self.timeout)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.communicate()
                return Outcome(f"Command timed out after {self.timeout:g}s", is_error=True)
        output = raw.decode("utf-8", errors="replace").rstrip("\n")[:BASH_OUTPUT_CHARS]
        if proc.returncode != 0:
            return Outcome(f"Exit code {proc.returncode}\n{output}".rstrip("\n"), is_error=True)
        return Outcome(output or "(Bash completed with no output)")

    def find_skill(self, name: str) -> SkillInfo | None:
        """The offered skill named NAME (`ops` or `demo-ops:ops`)."""
        want = name.strip()
        return next((s for s in self.skills if want in (s.qualified, s.name)), None)

    def skill(self, name: str) -> tuple[Outcome, str | None]:
        """Load a skill: the tool result, and the SKILL.md body the host injects for the model."""
        info = self.find_skill(name)
        if info is None:
            return Outcome(f"Unknown skill: {name}", is_error=True), None
        try:
            _, body = frontmatter(info.path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            return Outcome(f"Cannot load skill {name}: {exc}", is_error=True), None
        return Outcome(f"Launching skill: {info.qualified}"), f"Base directory for this skill: {info.path.parent}\n\n{body}"


@contextlib.contextmanager
def _killed_on_term(pgid: int) -> Iterator[None]:
    """While a command runs in its own session, SIGTERM to the sim (a run's watchdog) kills that session's
    group first, so no command outlives the run it belongs to."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: object) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGKILL)
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
