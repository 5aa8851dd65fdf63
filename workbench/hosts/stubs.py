"""Stand-in commands put first on a run's PATH, so a host never reaches GitHub or another agent CLI.

`gh` answers `pr create` and `issue create` with a fake URL (cases whose moment is opening a PR
can then finish) and refuses everything else; `grok` (for the other hosts) refuses everything.
"""

from __future__ import annotations

from pathlib import Path

FAKE_PR_URL = "https://github.com/example/repo/pull/1"
FAKE_ISSUE_URL = "https://github.com/example/repo/issues/1"

GH = f"""#!/bin/sh
# workbench stub: only `gh pr create` and `gh issue create` are answered, with fake URLs.
case "$1 $2" in
  "pr create") echo "{FAKE_PR_URL}" ;;
  "issue create") echo "{FAKE_ISSUE_URL}" ;;
  *) echo "gh: workbench stub answers only 'gh pr create' and 'gh issue create' (got: gh $*)" >&2; exit 1 ;;
esac
"""

GROK = """#!/bin/sh
# workbench stub: another agent CLI is not available inside a measured run.
echo "grok: not available in this run (workbench stub)" >&2
exit 1
"""


def stub_files(bin_dir: Path, host: str) -> dict[Path, str]:
    """The stub scripts for HOST's run: `gh` always, `grok` unless the host IS grok."""
    files = {bin_dir / "gh": GH}
    if host != "grok":
        files[bin_dir / "grok"] = GROK
    return files

