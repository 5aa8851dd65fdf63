"""Size caps on the files a user hands the workbench whole (scripts, cases, files to import), checked by
`stat` before a byte is read: an oversized file is one line naming it and the cap, never a parse of
hundreds of megabytes. Records are read a line at a time and need no cap (docs/confinement.md, "Bounds")."""

from __future__ import annotations

import os
from pathlib import Path

from workbench.core.errors import InputError

MAX_SCRIPT_BYTES = 4 * 1024 * 1024
"""A scripted model (`--script`, `canaries/*.json`)."""
MAX_CASE_BYTES = 1024 * 1024
"""One case file (`cases/*.toml`)."""
MAX_IMPORT_BYTES = 16 * 1024 * 1024
"""A file of cases to import (`workbench case import`)."""


def check_size(path: str | os.PathLike[str], cap: int, what: str, field: str | None = None) -> None:
    """InputError (one line naming PATH and the cap) when the file at PATH is larger than CAP bytes; a file
    that cannot be stat'ed is left to the reader's own error."""
    try:
        size = os.stat(path).st_size
    except OSError:
        return
    if size > cap:
        raise InputError(f"{what} is {size:,} bytes, above the cap of {cap:,} ({cap // (1024 * 1024)} MiB)",
                         file=str(Path(path)), field=field)
