"""Content evidence: did a procedure's text reach the model in a call's output?

Command analysis guesses a read from the command line; the output says what really reached the
model. From the run's procedures (path -> text, read once per run) each procedure gets its
DISTINCTIVE lines: at least MIN_DISTINCTIVE characters after whitespace is collapsed, with a letter,
and contained in no other procedure (so showing one file never proves another). A title (a markdown
heading, `# Commit`) is no instruction of the procedure: it is neither distinctive nor checkable, so
printing only the title (`head -1`) is `absent`. A call's output is then matched line by line:

- `shown`: an output line ENDS with a distinctive line of the file, so any prefix is tolerated
  (`12→`, `   12\t`, `12:`, grep's `path:12:`, `cat -n`) and whitespace may differ;
- `absent`: the output is there, not truncated, and no output line ends with ANY line of the file
  that has at least MIN_LINE characters and is not a title (a shared instruction line still counts
  as "some of it was shown");
- neither: no evidence (no output, truncated output, or only shared/short lines) — command
  analysis decides.

Matching costs one dict look-up per output line (keyed by the last TAIL characters) plus an
`endswith` per candidate, so it stays linear in the output whatever the plugin's size
(bench/fingerprints.py, docs/benchmarks.md). Text embedded inside a longer line (a JSON-encoded
file, a quoted line) is not recognised: that stays with command analysis.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from workbench.core.models import Call, ContentEvidence, updated_call
from workbench.core.paths import GLOB_CHARS, segments
from workbench.core.shell import reads_of

MIN_DISTINCTIVE = 20
"""Shortest distinctive line (normalized characters): shorter lines are headings and boilerplate."""
MIN_LINE = 8
"""Shortest line whose presence stops an `absent` verdict; shorter ones (`---`, `1.`) are everywhere."""
TAIL = MIN_LINE
"""Index key: the last TAIL characters of a line (no indexed line is shorter)."""


def normalize(line: str) -> str:
    """A line with runs of whitespace collapsed to one space and the ends stripped."""
    return " ".join(line.split())


def is_title(line: str) -> bool:
    """Whether a normalized line is a markdown heading (`# Commit`, `## Steps`): it names the
    procedure or a section, it asks nothing, so showing it alone shows none of the procedure."""
    return line.lstrip("#").startswith(" ") and line.startswith("#")


@dataclass(frozen=True)
class _Line:
    text: str
    paths: frozenset[str]
    """Every procedure with this line (an output showing it rules `absent` out for all of them)."""
    owner: str | None
    """The one procedure it is distinctive of, or None."""


class Fingerprints:
    """The distinctive and checkable lines of a run's procedures, indexed for matching outputs."""

    def __init__(self, procedures: Mapping[str, str]) -> None:
        lines: dict[str, dict[str, list[str]]] = {}
        for path, text in procedures.items():
            lines[path] = {}
            for raw in text.splitlines():
                line = normalize(raw)
                if len(line) >= MIN_LINE and not is_title(line):
                    lines[path].setdefault(line, []).append(path)
        bodies = {path: "\n".join(normalize(raw) for raw in text.splitlines()) for path, text in procedures.items()}
        holders: dict[str, set[str]] = {}
        for path, own in lines.items():
            for line in own:
                holders.setdefault(line, set()).add(path)
        index: dict[str, list[_Line]] = {}
        distinctive: dict[str, list[str]] = {path: [] for path in procedures}
        for line, paths in holders.items():
            owner = None
            if len(paths) == 1 and len(line) >= MIN_DISTINCTIVE and any(c.isalpha() for c in line):
                (only,) = paths
                if not any(line in body for other, body in bodies.items() if other != only):
                    owner = only
                    distinctive[only].append(line)
            index.setdefault(line[-TAIL:], []).append(_Line(line, frozenset(paths), owner))
        self.paths: tuple[str, ...] = tuple(procedures)
        self.distinctive: dict[str, tuple[str, ...]] = {p: tuple(v) for p, v in distinctive.items()}
        """Procedure -> its distinctive lines (none: it can never be `shown`, only `absent`)."""
        self._index: dict[str, tuple[_Line, ...]] = {k: tuple(v) for k, v in index.items()}
        self._checkable = frozenset(p for p, own in lines.items() if own)
        self.base_and_stem: dict[str, tuple[str, str]] = {p: _base_and_stem(p) for p in procedures}
        """Procedure -> (base name, stem): what a call must name for an `absent` to be kept."""

    def match(self, output: str | None, truncated: bool = False) -> dict[str, ContentEvidence]:
        """Procedure -> shown / absent for one call's output (see the module docstring); None: {}."""
        if output is None:
            return {}
        shown: set[str] = set()
        touched: set[str] = set()
        index = self._index
        for raw in output.splitlines():
            line = normalize(raw)
            if len(line) < MIN_LINE:
                continue
            for candidate in index.get(line[-TAIL:], ()):
                if line.endswith(candidate.text):
                    touched.update(candidate.paths)
                    if candidate.owner is not None:
                        shown.add(candidate.owner)
        found: dict[str, ContentEvidence] = dict.fromkeys(sorted(shown), "shown")
        if not truncated:
            for path in sorted(self._checkable - touched):
                found[path] = "absent"
        return found


def _globbed(call: Call) -> bool:
    """Whether a path CALL reads is a glob (`cat procedures/*.md`): it could then read any procedure.
    Only the read operands count: `[ -f F ]` and `sys.argv[1]` hold a `[` but name no file."""
    if call.kind == "shell" and call.command:
        return any(GLOB_CHARS.intersection(p) for p in reads_of(call.command))
    return bool(call.path and GLOB_CHARS.intersection(call.path))


def _base_and_stem(path: str) -> tuple[str, str]:
    base = segments(path)[-1] if segments(path) else path
    return base, base.rsplit(".", 1)[0]


def _call_text(call: Call) -> str:
    return " ".join(t for t in (call.command, call.path) if t)


def _names_in(text: str, base_and_stem: tuple[str, str], globbed: bool) -> bool:
    """Whether a call whose command and path are TEXT names the procedure (its base name or stem) or
    reads a glob: only then can command analysis claim a read of it, so only then is `absent` kept."""
    if not text:
        return False
    if globbed:
        return True
    base, stem = base_and_stem
    return base in text or (len(stem) >= 3 and stem in text)


def call_evidence(fingerprints: Fingerprints, call: Call) -> Call:
    """CALL with its `evidence` filled from its live `output` (an edit's output is not a read: none).

    `shown` is kept for every procedure, `absent` only for those the call names (`_names_in`);
    a call without output keeps the evidence it has (a record being rescored). A call whose evidence
    comes out as it already was is returned as it is (calls are never changed in place).
    """
    if call.output is None or call.kind == "edit":
        return call
    found = fingerprints.match(call.output, call.output_truncated)
    text = _call_text(call)
    names = fingerprints.base_and_stem
    evidence: dict[str, ContentEvidence] = {}
    globbed: bool | None = None  # asked once, and only when an `absent` needs it
    for path, seen in found.items():
        if seen == "absent":
            if not text:
                continue
            if globbed is None:
                globbed = _globbed(call)
            if not _names_in(text, names[path], globbed):
                continue
        evidence[path] = seen
    if evidence == call.evidence:
        return call
    return updated_call(call, {"evidence": evidence})


_BUILT: dict[tuple[tuple[str, str], ...], Fingerprints] = {}
_KEEP_BUILT = 16


def fingerprints_for(procedures: Mapping[str, str]) -> Fingerprints:
    """The Fingerprints of these procedures, built once per process for the same texts: every run
    (and every arm copy) of one plugin shares them, whatever folder the copy lives in."""
    key = tuple(sorted(procedures.items()))
    built = _BUILT.get(key)
    if built is None:
        if len(_BUILT) >= _KEEP_BUILT:
            _BUILT.pop(next(iter(_BUILT)))
        built = _BUILT[key] = Fingerprints(procedures)
    return built


def content_evidence(calls: Sequence[Call], procedures: Mapping[str, str]) -> list[Call]:
    """The calls with `evidence` filled from their outputs, against the run's procedures (path in
    the plugin copy -> text). The one function the record builder and `workbench score --plugin`
    call; the fingerprints are built once per plugin (`fingerprints_for`)."""
    if not procedures:
        return list(calls)
    fingerprints = fingerprints_for(procedures)
    return [call_evidence(fingerprints, call) for call in calls]

