"""Exit codes of the `workbench` command, documented in docs/cli.md."""

from enum import IntEnum


class ExitCode(IntEnum):
    """What a `workbench` process tells its caller."""

    OK = 0
    FINDINGS = 1
    BAD_INPUT = 2
    ABORTED = 3
    INTERRUPTED = 130
