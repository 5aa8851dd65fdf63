"""The one error type for bad input: it names the file, line and field so the user can fix it."""

from __future__ import annotations


class InputError(Exception):
    """Bad input from a file or the command line; the CLI prints it on one line and exits 2."""

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None,
                 field: str | None = None) -> None:
        self.message = message
        self.file = file
        self.line = line
        self.field = field
        super().__init__(str(self))

    def __str__(self) -> str:
        where = ""
        if self.file:
            where = self.file + (f":{self.line}" if self.line is not None else "") + ": "
        elif self.line is not None:
            where = f"line {self.line}: "
        field = f"{self.field}: " if self.field else ""
        text = f"{where}{field}{self.message}"
        return text.replace("\r", "\\r").replace("\n", "\\n")  # one line, even for a key holding a newline
