"""What the capture scripts share: the demo canary they drive, the leak check and the neutral copy.

Each capture runs the bundled demo workspace's `commit-typo-fix` case through THE request and record
builders with the run folder kept, rewrites the run folder to `/tmp/run` in what it keeps, and refuses
to keep a file that still names a machine path or a secret of the launch.
"""

from __future__ import annotations

import argparse
import re
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from workbench.core.cases import find_case
from workbench.core.workspace import load_workspace
from workbench.modelstub import parse_script
from workbench.runner.execute import RunResult, execute
from workbench.runner.request import RunRequest, build_request

ROOT = Path(__file__).resolve().parent.parent
NEUTRAL = "/tmp/run"
CASE = "commit-typo-fix"
REQUIRED = "workflows/commit.md"
EDIT = {"edit": {"path": "{repo}/src/app.py", "old": "Helo, ", "new": "Hello, "}}
COMMIT = {"shell": "git commit -am 'app: fix greeting typo'"}


def leaks(text: str, forbidden: Iterable[str]) -> list[int]:
    """The indexes of FORBIDDEN strings (paths, secrets) that TEXT names as a whole word
    (`</root>` is an XML tag, not the home /root)."""
    return [n for n, f in enumerate(forbidden) if f and re.search(rf"(?<![<\w]){re.escape(f)}(?![\w.-])", text)]


def keep_neutral(path: Path, run_dir: Path, target: Path, forbidden: list[str], name: str) -> None:
    """PATH's text with RUN_DIR rewritten to /tmp/run written to TARGET; a leak stops the capture."""
    text = path.read_text(encoding="utf-8").replace(str(run_dir), NEUTRAL)
    if leaks(text, forbidden):
        raise SystemExit(f"{name}: holds a machine path or a secret: not kept")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")


def demo_canary(host: str, script: dict[str, Any], workdir: Path, binary: Path | None,
                **options: Any) -> tuple[RunRequest, RunResult]:
    """One kept canary run of the demo's case on HOST driven by SCRIPT (OPTIONS: `build_request`'s)."""
    ws = load_workspace(ROOT)
    request = build_request(find_case(CASE, ws.cases_dir), host, door="canary", plugin=ws.plugin_dir,
                            script=parse_script(script), keep=True, workdir=workdir, fixture=ws.base_fixture,
                            binary=binary, timeout=180.0, **options)
    return request, execute(request)


def capture_main(doc: str, default_hosts: str, scenarios: Iterable[str],
                 capture: Callable[[str, str, Path, Path], str], argv: list[str] | None) -> int:
    """The scripts' command line: every scenario on every host of `--hosts`, a line each."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--hosts", default=default_hosts)
    parser.add_argument("--hosts-dir", default=str(ROOT / ".cache" / "hosts"))
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="wb-capture-") as tmp:
        for host in args.hosts.split(","):
            for scenario in scenarios:
                print(capture(host, scenario, Path(args.hosts_dir), Path(tmp)))
    return 0
