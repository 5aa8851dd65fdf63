"""The past-sessions door: find each host's session files under a HOME, read them bounded and
read-only, score every session against the rows' moments and required files with THE scorer, and
build ordinary records (condition `sessions`) through THE record builder.

`SessionsForm` is what a front end fills; `sessions_setup(workspace, form)` does everything between
"the user chose" and reading (targets from the workspace's rows and cases, or the form's
`--require`/`--moment`; the session files found); `read_sessions(plan)` reads and scores them. Bad
input never stops the door: each unusable file or line gives one warning line and the rest is read.
Formats and limits: docs/sessions.md.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import stat
import time
from collections.abc import Iterable, Sequence
from contextlib import closing
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from workbench.core.cases import load_cases
from workbench.core.errors import InputError
from workbench.core.events import ParsedRun
from workbench.core.fingerprints import Fingerprints, call_evidence, fingerprints_for
from workbench.core.hostinfo import HOSTS, SESSION_HOSTS
from workbench.core.models import Call, Case, RunRecord, ScoreSpec
from workbench.core.moments import parse_moment
from workbench.core.records import stream_records
from workbench.core.sessions import SessionFile, SessionRun, read_session, with_read_by
from workbench.core.summary import is_hit, overall
from workbench.core.workspace import Workspace

MAX_FILE_BYTES = 64 * 1024 * 1024
"""Bytes read of one session file at most; a longer file is read to its last complete line before."""
MAX_FILES = 5000
"""Session files read at most per host (the newest first)."""
MAX_SECONDS = 120.0
"""Wall time the reading may take; files left after it are named in one warning."""


@dataclass(frozen=True)
class SessionsForm:
    """What the user chose for the sessions door (CLI flags or the TUI's fields)."""

    hosts: tuple[str, ...] = SESSION_HOSTS
    home: Path | None = None
    """The HOME whose session stores are read (default: this user's)."""
    since: timedelta | None = None
    """Only sessions whose file changed this recently."""
    project: Path | None = None
    """Only sessions whose working folder is this folder or inside it."""
    require: tuple[str, ...] = ()
    moment: str | None = None
    """With `require`: one ad hoc row; else the workspace's rows and cases."""
    entry_skill: str | None = None
    arm: str | None = None
    """The lab arm the table compares with (default: per row, the arm with the most lab runs)."""
    max_file_bytes: int = MAX_FILE_BYTES
    max_files: int = MAX_FILES
    max_seconds: float = MAX_SECONDS


@dataclass(frozen=True)
class Target:
    """One thing a session is scored for: a row's required files before its moment."""

    row: str
    required: tuple[str, ...]
    moment: str
    entry_skill: str | None = None
    phrases: tuple[str, ...] = ()
    """The row's trigger wording: a session whose context holds it offered the row."""
    case_id: str | None = None


@dataclass(frozen=True)
class SessionSource:
    """One session's files on disk, the main file first."""

    host: str
    files: tuple[Path, ...]
    mtime: float
    keys: tuple[str, ...] = ()
    """OpenCode: the session ids (main, then children) inside its database `files[0]`."""


@dataclass(frozen=True)
class SessionsPlan:
    """Everything the reading needs, decided: targets, the files found, where lab records are."""

    form: SessionsForm
    home: Path
    targets: tuple[Target, ...]
    sources: tuple[SessionSource, ...]
    warnings: tuple[str, ...] = ()
    records_dir: Path | None = None
    plugin: Path | None = None


@dataclass
class SessionScore:
    """One session scored for one target, with its record (redacted)."""

    target: Target
    record: RunRecord
    offered: bool | None
    source: str
    """The main file's name relative to the HOME, under `~`."""


@dataclass
class RowTable:
    """One row of the table: sessions vs the lab, per host."""

    row: str
    host: str
    sessions: int = 0
    """Sessions that offered the row (or do not say) and reached its moment."""
    fired: int = 0
    no_moment: int = 0
    not_offered: int = 0
    """Sessions whose text never offered the row: counted apart, never in the rate."""
    lab_arm: str | None = None
    lab_runs: int = 0
    lab_hits: int = 0

    @property
    def rate(self) -> float | None:
        return self.fired / self.sessions if self.sessions else None

    @property
    def lab_rate(self) -> float | None:
        return self.lab_hits / self.lab_runs if self.lab_runs else None


def _rate(hits: int, runs: int) -> str:
    return f"{hits}/{runs} ({100 * hits / runs:.0f}%)" if runs else "-"


TABLE_HEADER = ("row", "host", "sessions read before moment", "no moment", "never offered", "lab (arm)")


def row_cells(t: RowTable) -> tuple[str, ...]:
    """One table row as text, the same for the CLI and the TUI (`TABLE_HEADER`)."""
    lab = f"{_rate(t.lab_hits, t.lab_runs)} ({t.lab_arm or '-'})" if t.lab_runs else "-"
    return (t.row, t.host, _rate(t.fired, t.sessions), str(t.no_moment), str(t.not_offered), lab)


@dataclass
class SessionsResult:
    """What the door read: each session's scores, the table, and one warning line per problem."""

    scores: list[SessionScore] = field(default_factory=list)
    table: list[RowTable] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    read: int = 0
    """Sessions read (at least one usable line)."""


_SPAN = re.compile(r"^(\d+)\s*([mhdw])$")
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_since(text: str | None) -> timedelta | None:
    """`7d` -> 7 days; InputError naming --since otherwise."""
    if text is None:
        return None
    match = _SPAN.match(text.strip())
    if match is None:
        raise InputError(f"expected a span like 30m, 12h, 7d or 2w, got {text!r}", field="--since")
    return timedelta(**{_UNITS[match.group(2)]: int(match.group(1))})


# --- set-up -----------------------------------------------------------------------------------
def sessions_setup(workspace: Workspace | None, form: SessionsForm) -> SessionsPlan:
    """THE set-up of the sessions door: targets and session files. InputError for a form no reading
    can satisfy (an unknown host, a bad moment, no row to score)."""
    for host in form.hosts:
        if host not in SESSION_HOSTS:
            raise InputError(f"sessions of {host!r} are not read; read: {', '.join(SESSION_HOSTS)}", field="--host")
    home = (form.home or Path.home()).expanduser()
    targets = _targets(workspace, form)
    warnings: list[str] = []
    sources: list[SessionSource] = []
    for host in form.hosts:
        found, problems = discover(host, home, since=form.since, limit=form.max_files)
        sources += found
        warnings += problems
    return SessionsPlan(form=form, home=home, targets=tuple(targets), sources=tuple(sources),
                        warnings=tuple(warnings),
                        records_dir=workspace.records_dir if workspace is not None else None,
                        plugin=workspace.plugin_dir if workspace is not None else None)


def _targets(workspace: Workspace | None, form: SessionsForm) -> list[Target]:
    if form.require:
        moment = form.moment or "edit"
        parse_moment(moment)
        return [Target("adhoc", tuple(form.require), moment, form.entry_skill)]
    if form.moment is not None:
        raise InputError("--moment needs --require (or neither: the workspace's rows and cases)", field="--moment")
    if workspace is None:
        raise InputError("no workspace: give --require FILE --moment M", field="--require")
    cases = load_cases(workspace.cases_dir) if workspace.cases_dir.is_dir() else []
    phrases = _row_phrases(workspace)
    entry = workspace.config.plugin.entry_skill
    seen: dict[tuple[str, tuple[str, ...], str], Target] = {}
    for case in cases:
        if case.kind != "positive" or not case.required:
            continue
        key = (case.target, tuple(case.required), case.moment)
        seen.setdefault(key, Target(case.target, tuple(case.required), case.moment, entry,
                                    phrases.get(case.target, ()), case.id))
    if not seen:
        raise InputError(f"the workspace has no positive case with required files under {workspace.cases_dir}",
                         field="cases")
    return list(seen.values())


def _row_phrases(workspace: Workspace) -> dict[str, tuple[str, ...]]:
    from workbench.core.routing import read_files

    if not workspace.plugin_dir.is_dir():
        return {}
    try:
        rows, _ = read_files(workspace.routing_files(), plugin=workspace.plugin_dir)  # a bad file loses only itself
    except (OSError, InputError):
        return {}
    return {row.id: tuple(p for p in (row.trigger,) if p) for row in rows}


# --- discovery and bounded reading ---------------------------------------------------------------
def _entries(folder: Path) -> list[os.DirEntry[str]]:
    """The entries of FOLDER that are real files or folders (links are never followed)."""
    try:
        with os.scandir(folder) as it:
            return sorted((e for e in it if not e.is_symlink()), key=lambda e: e.name)
    except OSError:
        return []


def _dirs(folder: Path) -> list[Path]:
    return [Path(e.path) for e in _entries(folder) if e.is_dir(follow_symlinks=False)]


def _files(folder: Path, prefix: str, suffixes: tuple[str, ...]) -> list[Path]:
    return [Path(e.path) for e in _entries(folder)
            if e.is_file(follow_symlinks=False) and e.name.startswith(prefix) and e.name.endswith(suffixes)]


def _store(host: str, home: Path) -> Path:
    store = HOSTS[host].session_store if host in HOSTS else None
    if store is None:
        raise InputError(f"sessions of {host!r} are not read; read: {', '.join(SESSION_HOSTS)}", field="--host")
    return home / store


def discover(host: str, home: Path, *, since: timedelta | None = None, limit: int = MAX_FILES,
             now: float | None = None) -> tuple[list[SessionSource], list[str]]:
    """HOST's sessions under HOME, newest first, and a warning when its store is missing or unreadable.
    Links are never followed (a linked file or folder is skipped)."""
    store = _store(host, home)
    try:
        mode = os.lstat(store).st_mode
    except OSError:
        return [], [f"{host}: no session store at {store}"]
    if not stat.S_ISDIR(mode):
        return [], [f"{host}: {store} is not a folder (a link or a file): not read"]
    groups: list[tuple[Path, ...]] = []
    cutoff = (now if now is not None else time.time()) - since.total_seconds() if since is not None else None
    if host == "opencode":
        return opencode_sessions(store / "opencode.db", cutoff, limit)
    if host == "claude":
        for project in _dirs(store):
            for main in _files(project, "", (".jsonl",)):
                subs = _files(project / main.stem / "subagents", "agent-", (".jsonl",))
                groups.append((main, *subs))
    elif host == "codex":
        for year in _dirs(store):
            for month in _dirs(year):
                for day in _dirs(month):
                    groups += [(f,) for f in _files(day, "rollout-", (".jsonl",))]
        groups = _codex_children(groups)
    else:
        for project in _dirs(store):
            groups += gemini_groups(project / "chats")
    found: list[SessionSource] = []
    for files in groups:
        try:
            mtime = max(os.lstat(f).st_mtime for f in files)
        except OSError:
            continue
        if cutoff is None or mtime >= cutoff:
            found.append(SessionSource(host, files, mtime))
    found.sort(key=lambda s: -s.mtime)
    warnings = [] if len(found) <= limit else [f"{host}: {len(found)} sessions, only the newest {limit} read"]
    return found[:limit], warnings


_GEMINI_SESSION_ID = re.compile(r'"sessionId"\s*:\s*"([^"/\\]+)"')


def gemini_groups(chats: Path) -> list[tuple[Path, ...]]:
    """Gemini CLI 0.61.0's sessions in a project's `chats` folder: each main `session-*.json(l)` with its
    subagents' chat files, which the CLI keeps in a folder named by the main session's id (read from
    the main file's header line)."""
    groups: list[tuple[Path, ...]] = []
    for main in _files(chats, "session-", (".json", ".jsonl")):
        try:
            with main.open("rb") as handle:
                head = handle.read(4096).decode("utf-8", "replace")
        except OSError:
            head = ""
        found = _GEMINI_SESSION_ID.search(head)
        folder = chats / found.group(1) if found else None
        subs = _files(folder, "", (".jsonl",)) if folder and not folder.is_symlink() else []
        groups.append((main, *subs))
    return groups


def _opencode_db(path: Path) -> sqlite3.Connection:
    """OpenCode's database, read-only (its WAL included: a running OpenCode's last steps are there)."""
    if path.is_symlink() or not path.is_file():
        raise OSError(f"{path}: not a regular file")
    return sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=2.0)


def opencode_sessions(db: Path, cutoff: float | None, limit: int) -> tuple[list[SessionSource], list[str]]:
    """The newest LIMIT main sessions of an OpenCode database (updated at or after CUTOFF), each with its
    child sessions' ids."""
    try:
        with closing(_opencode_db(db)) as con:
            rows = con.execute("select id, parent_id, time_updated from session").fetchall()
    except (OSError, sqlite3.Error) as exc:
        return [], [f"opencode: {db}: not readable as its session database ({exc}), not read"]
    children: dict[str, list[str]] = {}
    for sid, parent, _ in rows:
        if parent:
            children.setdefault(parent, []).append(sid)
    found = [SessionSource("opencode", (db,), (updated or 0) / 1000, (sid, *children.get(sid, [])))
             for sid, parent, updated in rows if not parent and (cutoff is None or (updated or 0) / 1000 >= cutoff)]
    found.sort(key=lambda s: -s.mtime)
    warnings = [] if len(found) <= limit else [f"opencode: {len(found)} sessions, only the newest {limit} read"]
    return found[:limit], warnings


def opencode_export(db: Path, session_id: str, max_bytes: int) -> str:
    """One OpenCode session's rows as the JSON lines `core.sessions.opencode` reads, at most MAX_BYTES."""
    out: list[str] = []
    size = 0
    with closing(_opencode_db(db)) as con:
        head = con.execute("select id, parent_id, directory, version, time_created from session where id = ?",
                           (session_id,)).fetchone()
        if head is None:
            return ""
        keys = ("id", "parent_id", "directory", "version", "time_created")
        out.append(json.dumps({"session": dict(zip(keys, head, strict=True))}))
        for mid, data in con.execute("select id, data from message where session_id = ? order by time_created, id",
                                     (session_id,)):
            try:
                role = json.loads(data).get("role")
            except (ValueError, AttributeError):
                role = None
            out.append(json.dumps({"message": mid, "role": role}))
        for pid, mid, created, data in con.execute(
                "select id, message_id, time_created, data from part where session_id = ? order by time_created, id",
                (session_id,)):
            size += len(data)
            if size > max_bytes:
                break
            try:
                part = json.loads(data)
            except ValueError:
                out.append("{torn")
                continue
            if isinstance(part, dict):
                out.append(json.dumps({"part": {**part, "id": pid, "messageID": mid}, "time": created}))
    return "\n".join(out) + "\n"


def _codex_children(groups: list[tuple[Path, ...]]) -> list[tuple[Path, ...]]:
    """Rollouts grouped with their children: a child's `session_meta` names its parent thread."""
    parent_of: dict[Path, str] = {}
    ids: dict[str, Path] = {}
    for (path,) in groups:
        head, _ = read_bounded(path, 256 * 1024, first_line=True)
        thread, parent = rollout_threads(head)
        if thread:
            ids[thread] = path
        if parent:
            parent_of[path] = parent
    children: dict[Path, list[Path]] = {}
    for child, parent in parent_of.items():
        if parent in ids and ids[parent] != child:
            children.setdefault(ids[parent], []).append(child)
    return [(p, *children.get(p, [])) for (p,) in groups if p not in parent_of or parent_of[p] not in ids]


def rollout_threads(head: str) -> tuple[str | None, str | None]:
    """(thread id, parent thread id) a Codex rollout's first line (`session_meta`) names; the parent is
    None for a main thread. Codex 0.171.0 writes a child's parent as `parent_thread_id` at the top and
    under `source.subagent.thread_spawn`; any `parent_thread_id` inside `source` counts."""
    try:
        payload = json.loads(head).get("payload") or {}
    except (ValueError, AttributeError, RecursionError):
        return None, None
    if not isinstance(payload, dict):
        return None, None
    thread = payload.get("id") if isinstance(payload.get("id"), str) else None
    stack: list[object] = [{"parent_thread_id": payload.get("parent_thread_id")}, payload.get("source")]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, value in item.items():
                if key == "parent_thread_id" and isinstance(value, str):
                    return thread, value
                stack.append(value)
    return thread, None


def read_bounded(path: Path, max_bytes: int, *, first_line: bool = False) -> tuple[str, list[str]]:
    """PATH's text up to its last complete line, read-only, without following a link, at most
    MAX_BYTES; and a warning for a cut file or a torn last line (a file being written)."""
    warnings: list[str] = []
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NOCTTY", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path}: not a regular file")
        size = os.fstat(fd).st_size
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.readline(max_bytes) if first_line else handle.read(max_bytes)
    finally:
        os.close(fd)
    if first_line:
        return data.decode("utf-8", errors="replace"), []
    if size > max_bytes:
        warnings.append(f"{path}: {size} bytes, over the {max_bytes}-byte cap: read to the last complete line before it")
    if data and not data.endswith(b"\n"):
        cut = data.rfind(b"\n") + 1
        if size <= max_bytes:
            line = data[:cut].count(b"\n") + 1
            warnings.append(f"{path}: line {line}: incomplete (being written or truncated), not read")
        data = data[:cut]
    return data.decode("utf-8", errors="replace"), warnings


def _label(path: Path, home: Path) -> str:
    try:
        return "~/" + str(path.relative_to(home))
    except ValueError:
        return str(path)


def _under(cwd: str | None, project: Path) -> bool:
    if cwd is None:
        return False
    root = os.path.realpath(project)
    here = os.path.realpath(cwd)
    return here == root or here.startswith(root.rstrip("/") + "/")


def _gemini_cwd(main: Path) -> str | None:
    marker = main.parent.parent / ".project_root"
    try:
        if marker.is_symlink() or not marker.is_file():
            return None
        return marker.read_text(encoding="utf-8", errors="replace").strip()[:4096] or None
    except OSError:
        return None


def load_source(source: SessionSource, home: Path, max_bytes: int) -> tuple[SessionRun | None, list[str]]:
    """One session read from disk; None (with its warnings) when nothing in it could be used."""
    files: list[SessionFile] = []
    warnings: list[str] = []
    if source.host == "opencode":
        try:
            files = [SessionFile(key, opencode_export(source.files[0], key, max_bytes)) for key in source.keys]
        except (OSError, sqlite3.Error) as exc:
            return None, [f"opencode: session {source.keys[0]}: unreadable ({exc}), not read"]
    for path in source.files if source.host != "opencode" else ():
        try:
            text, problems = read_bounded(path, max_bytes)
        except OSError as exc:
            warnings.append(f"{_label(path, home)}: unreadable ({exc.strerror or exc}), not read")
            continue
        warnings += [w.replace(str(path), _label(path, home)) for w in problems]
        files.append(SessionFile(path.stem, text))
    main_name = source.keys[0] if source.keys else source.files[0].stem
    if not files or main_name != files[0].name:
        return None, warnings
    run = read_session(source.host, files)
    if source.host == "gemini" and run.cwd is None:
        run.cwd = _gemini_cwd(source.files[0])
    label = f"opencode session {main_name}" if source.keys else _label(source.files[0], home)
    warnings += [f"{label}: {w.split(': ', 1)[-1]}" for w in run.warnings]
    usable = run.parsed.calls or run.parsed.texts or run.session_id
    if not usable:
        warnings.append(f"{label}: no {source.host} session lines in it (another format or version?), not read")
        return None, warnings
    if run.parsed.skipped_count:
        warnings.append(f"{label}: {run.parsed.skipped_count} line(s) skipped (not a JSON object or an unknown shape)")
    return with_read_by(run), warnings


# --- scoring and records ----------------------------------------------------------------------
def session_record(run: SessionRun, target: Target, home: Path, number: int = 0) -> RunRecord:
    """The record of one session for one target: built by THE request and record builders (a run that
    happened outside the workbench: no launch, no confinement), condition `sessions`, redacted."""
    from workbench.hosts.base import Launch
    from workbench.runner.execute import build_record
    from workbench.runner.hostrun import HostRun
    from workbench.runner.live import live_logins
    from workbench.runner.redact import Redactor, login_secrets
    from workbench.runner.request import build_request

    case = Case(id=f"session:{run.session_id or number}", target=target.row, kind="positive",
                prompt="(a past session)", required=list(target.required), moment=target.moment)
    request = build_request(case, run.host, door="canary", plugin=home, model=run.model or "unknown",
                            unconfined=True)
    parsed = ParsedRun(calls=list(run.parsed.calls), init=run.parsed.init, usage=run.parsed.usage,
                       texts=list(run.parsed.texts), ended=run.parsed.ended)
    now = datetime.now(UTC).isoformat()
    host_run = HostRun(host=run.host, parsed=parsed, stdout_path=Path(os.devnull), stderr_path=Path(os.devnull),
                       exit_code=0, timed_out=None, duration=0.0, started_at=run.started_at or now,
                       finished_at=run.finished_at or now, launch=Launch(argv=[], env={}, cwd=home),
                       host_version=run.host_version, served_model=run.model,
                       offered_skills=list(run.offered_skills))
    entry = target.entry_skill
    spec = ScoreSpec(kind="positive", required=list(target.required), moment=target.moment, entry_skill=entry,
                     entry_file=f"skills/{entry}/SKILL.md" if entry else None)
    paths = {str(home): "~", os.path.realpath(home): "~", str(Path.home()): "~"}
    if run.cwd:
        paths.update({run.cwd: "<repo>", os.path.realpath(run.cwd): "<repo>"})
    for root in plugin_roots(run.parsed.calls):
        paths.setdefault(root, "<plugin>")
    secrets = login_secrets(live_logins(run.host, home))
    record, _ = build_record(request, host_run, spec, Redactor(paths, secrets), [])
    return record.model_copy(update={"condition": "sessions", "unconfined_reason": None, "model": run.model,
                                     "env_names": [], "exit_code": None, "run": number})


_PLUGIN_ROOT = re.compile(r"(?<![\w<>~.])(/[^\s'\"`]*?)/skills/[^\s'\"`/]+/")


def plugin_roots(calls: Iterable[Call]) -> set[str]:
    """Folders the session's calls reached a plugin's skills in (`<root>/skills/<name>/...`): labelled
    `<plugin>` like a run's plugin copy (one under the HOME is `~` already, the longer label wins)."""
    found: set[str] = set()
    for call in calls:
        for text in (call.path, call.command):
            found.update(m.group(1) for m in _PLUGIN_ROOT.finditer(text or "") if m.group(1))
    return found


def read_sessions(plan: SessionsPlan, *, clock: float | None = None) -> SessionsResult:
    """Read and score every session of PLAN (bounded by the form's caps), and tabulate them beside the
    lab records of the same rows."""
    form = plan.form
    result = SessionsResult(warnings=list(plan.warnings))
    deadline = (clock if clock is not None else time.monotonic()) + form.max_seconds
    fingerprints = _fingerprints(plan.plugin)
    for n, source in enumerate(plan.sources):
        if time.monotonic() > deadline:
            result.warnings.append(f"time cap of {form.max_seconds:g} s reached: {len(plan.sources) - n} "
                                   "session(s) not read")
            break
        run, warnings = load_source(source, plan.home, form.max_file_bytes)
        result.warnings += warnings
        if run is None:
            continue
        if form.project is not None and not _under(run.cwd, form.project):
            continue
        result.read += 1
        if fingerprints is not None:
            run.parsed.calls = [call_evidence(fingerprints, c) for c in run.parsed.calls]
        for target in plan.targets:
            record = session_record(run, target, plan.home, result.read - 1)
            result.scores.append(SessionScore(target, record, run.offers(target.entry_skill, target.phrases),
                                              _label(source.files[0], plan.home)))
    result.table = tabulate(result.scores, lab_records(plan), form.arm)
    return result


def _fingerprints(plugin: Path | None) -> Fingerprints | None:
    """The workspace's procedures as content fingerprints: a session's read is judged by what its
    output showed, as a run's is (`execute`)."""
    from workbench.runner.procedures import load_procedures

    if plugin is None or not plugin.is_dir():
        return None
    procedures = load_procedures(plugin, check=True)  # the workspace may have been edited since
    return fingerprints_for(procedures) if procedures else None


def lab_records(plan: SessionsPlan) -> list[RunRecord]:
    """The workspace's lab records (every condition but `sessions`), read leniently."""
    if plan.records_dir is None or not plan.records_dir.is_dir():
        return []
    files = sorted(p for p in plan.records_dir.glob("*.jsonl") if p.is_file() and not p.is_symlink())
    return [r for r, _, _ in stream_records(files, lenient=True) if r.condition != "sessions"]


def tabulate(scores: Sequence[SessionScore], lab: Iterable[RunRecord], arm: str | None = None) -> list[RowTable]:
    """Per row and host: the sessions that reached the row's moment, how many read the procedure before
    it, those never offered the row (apart), beside the lab hit rate of the same row and arm."""
    rows: dict[tuple[str, str], RowTable] = {}
    for s in scores:
        r = s.record
        row = rows.setdefault((r.target, r.host), RowTable(r.target, r.host))
        if s.offered is False:
            row.not_offered += 1
        elif not r.valid or r.moment_at is None:
            row.no_moment += 1
        else:
            row.sessions += 1
            row.fired += r.overall == "fired"
    lab_by: dict[tuple[str, str], list[RunRecord]] = {}
    for rec in lab:
        if rec.kind == "positive" and rec.valid and not rec.discarded and not rec.superseded:
            lab_by.setdefault((rec.target, rec.host), []).append(rec)
    for key, row in rows.items():
        runs = lab_by.get(key, [])
        arms: dict[str | None, int] = {}
        for rec in runs:
            arms[rec.arm] = arms.get(rec.arm, 0) + 1
        row.lab_arm = arm if arm is not None else (max(arms, key=lambda a: arms[a]) if arms else None)
        chosen = [rec for rec in runs if rec.arm == row.lab_arm]
        row.lab_runs = len(chosen)
        row.lab_hits = sum(is_hit("positive", overall(rec)) for rec in chosen)
    return sorted(rows.values(), key=lambda t: (t.row, t.host))
