"""Which files under the live HOME each host writes in a post-install run (scripted model server).

Runs the post-install door UNCONFINED against a fresh fake live home per host and lists every file
created or changed under it (folders grouped at depth 2). The confined post-install binds exactly
these writable (`core/hostinfo.py` `live_writes`); docs/confinement.md quotes the result.

    .venv/bin/python bench/live_writes.py [claude codex opencode gemini]
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from pathlib import Path

from workbench.core.models import Case
from workbench.hosts.install import find_binary
from workbench.modelstub.script import parse_script
from workbench.runner.execute import execute
from workbench.runner.request import build_request

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = {"steps": [{"calls": [{"shell": "cat README.md"}]}, {"say": "done"}]}


def tree(home: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    for dirpath, _dirs, files in os.walk(home):
        for name in files:
            p = Path(dirpath) / name
            try:
                out[str(p.relative_to(home))] = hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "link"
            except OSError:
                out[str(p.relative_to(home))] = "?"
    return out


def measure(host: str) -> list[str]:
    with tempfile.TemporaryDirectory(prefix="live-writes-") as tmp:
        home = Path(tmp) / "home"
        (home / ".claude").mkdir(parents=True)
        (home / ".claude" / "settings.json").write_text("{}\n", encoding="utf-8")
        before = tree(home)
        case = Case(id="post-install", target="readme", kind="positive", prompt="Show the README.",
                    required=["README.md"], moment="end")
        req = build_request(case, host, door="postinstall", plugin=ROOT / "plugin", unconfined=True,
                            script=parse_script(SCRIPT), fixture=ROOT / "fixtures" / "base", home=home,
                            binary=find_binary(host), timeout=180)
        record = execute(req).record
        after = tree(home)
        changed = sorted(k for k, v in after.items() if before.get(k) != v)
        print(f"{host}: valid={record.valid} ({record.invalid_reason}) wrote {len(changed)} file(s)", file=sys.stderr)
        return changed


def main() -> None:
    for host in sys.argv[1:] or ["claude", "codex", "opencode", "gemini"]:
        changed = measure(host)
        groups = sorted({"/".join(Path(c).parts[:3 if c.startswith((".config", ".local")) else 2]) for c in changed})
        print(f"{host}: {', '.join(groups) or 'nothing'}")


if __name__ == "__main__":
    main()
