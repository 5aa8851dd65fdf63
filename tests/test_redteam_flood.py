"""Red team, floods: junk lines are counted, not stored, and the reader waits on a bounded queue."""

from __future__ import annotations

import sys
from pathlib import Path

from workbench.core.events import KEEP_SKIPPED, ParsedRun
from workbench.core.parsers import make_parser, parse_lines
from workbench.runner.hostrun import _lines
from workbench.runner.process import run_process

JUNK_LINES = 200_000


def test_a_flood_of_short_junk_lines_is_counted_not_kept(tmp_path: Path) -> None:
    flood = f"import sys\nsys.stdout.write(('junk-junk-junk-junk\\n') * {JUNK_LINES})\n"
    parser, run = make_parser("claude"), ParsedRun()

    def feed(line: str) -> None:
        for event in parser.feed(line):
            run.apply(event)

    result = run_process([sys.executable, "-c", flood], env={"PATH": "/usr/bin:/bin"}, cwd=tmp_path,
                         stdout_path=tmp_path / "out", stderr_path=tmp_path / "err", on_line=feed, timeout=300)
    assert result.lines == JUNK_LINES and run.skipped_count == JUNK_LINES
    assert len(run.skipped) == KEEP_SKIPPED and run.skipped[0].line_no == 1
    again = parse_lines("codex", _lines(tmp_path / "out"))  # the Codex re-parse streams from the file
    assert again.skipped_count == JUNK_LINES and len(again.skipped) == KEEP_SKIPPED
