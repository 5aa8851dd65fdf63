"""Write the HTML report of records files: the one writer behind `workbench report` and the TUI's
"open report" (Compare, `h`), so both write the same page for the same files and comparisons."""

from __future__ import annotations

import hashlib
import os
import shlex
import tempfile
from dataclasses import dataclass
from pathlib import Path

from workbench.core import records
from workbench.core.errors import InputError
from workbench.core.models import RunRecord
from workbench.core.report import build
from workbench.report.html import render


@dataclass(frozen=True)
class Written:
    """A report on disk: where, how many runs its tables hold, and the records it read (for warnings)."""

    path: Path
    runs: int
    records: list[RunRecord]


def sha256_of(path: str) -> str:
    """The file's sha256 in hex."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                digest.update(chunk)
    except OSError as err:
        raise InputError(f"cannot read: {err.strerror or err}", file=path) from None
    return digest.hexdigest()


def write_whole(path: Path, text: str) -> None:
    """Write PATH so that it is either the old file or the whole new one, never half."""
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent or Path("."))
    except OSError as err:
        raise InputError(f"cannot write: {err.strerror or err}", file=str(path)) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def reproduce_command(files: list[str], compare: list[tuple[str, str]]) -> str:
    """The `workbench summary` line that prints the page's numbers."""
    parts = ["workbench", "summary", *files, "--format", "json"]
    for a, b in compare:
        parts += ["--compare", f"{a},{b}"]
    return shlex.join(parts)


def write_report(files: list[str], output: Path, compare: list[tuple[str, str]], *, lenient: bool = False) -> Written:
    """Load FILES, build the report (COMPARE: arm B against arm A, each a sha or an arm name) and write
    it whole to OUTPUT."""
    loaded = records.load_files(files, lenient=lenient)
    report = build(loaded.records, compare, [{"path": f, "sha256": sha256_of(f)} for f in files])
    write_whole(output, render(report, reproduce_command(files, compare)))
    return Written(output, len(report.runs), loaded.records)
