"""What each host tries to reach besides its model, measured with scripted runs (not a timed test).

Each real host runs one scripted turn against the model server on the closed network, with the
egress proxy also present (HTTPS_PROXY set inside, allowing nothing but a placeholder): every
CONNECT it attempts is logged and denied. Prints one row per host: the run's validity and the
endpoints it asked for.

Usage: python bench/egress_needs.py [--hosts claude,codex,opencode,gemini]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from workbench.hosts.base import Launch  # noqa: E402
from workbench.hosts.install import find_binary, hosts_dir  # noqa: E402
from workbench.modelstub import Script  # noqa: E402
from workbench.runner.confine import Confinement  # noqa: E402
from workbench.runner.fixture import make_fixture  # noqa: E402
from workbench.runner.hostrun import run_host  # noqa: E402

PLACEHOLDER = "nothing.invalid:443"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hosts", default="claude,codex,opencode,gemini")
    args = ap.parse_args()
    script = Script.model_validate({"steps": [{"calls": [{"shell": "echo hi"}]}, {"say": "done"}]})
    print("| host | run | endpoints asked for through the proxy (all denied) |")
    print("|---|---|---|")
    for host in args.hosts.split(","):
        with tempfile.TemporaryDirectory(prefix="wb-egress-") as tmp:
            base = Path(tmp)
            (base / "home").mkdir()
            rd = base / "run"
            repo = rd / "repo"
            make_fixture(repo, files={"README.md": "hi\n"})
            conf = Confinement(base / "home")
            log = rd / "net" / "egress.sock.log"

            def wrap(launch: Launch, rd: Path = rd, repo: Path = repo, host: str = host,
                     conf: Confinement = conf) -> Launch:
                return conf.wrap(replace(launch, reach=(*launch.reach, PLACEHOLDER)), host, rd, repo)

            binary = find_binary(host, hosts_dir())
            run = run_host(host, "Say hi.", repo, rd, script=script, binary=binary, wrap=wrap, timeout=180,
                           silence_timeout=120)
            asked = sorted({line.split()[2] for line in log.read_text().splitlines()}) if log.is_file() else []
            ok = "ok" if run.exit_code == 0 and run.parsed.calls else f"exit {run.exit_code}"
            print(f"| {host} | {ok} | {', '.join(asked) or 'none'} |")


if __name__ == "__main__":
    main()
