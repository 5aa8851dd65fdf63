"""No outside connection: each real host runs with every proxy variable pointing at a refusing, logging proxy.

Clients that honour HTTP(S)_PROXY/ALL_PROXY (Bun's fetch in Claude Code and OpenCode, reqwest in
Codex, Gemini CLI's proxy agent) send any non-local request to the proxy first; NO_PROXY lets
the model server on 127.0.0.1 through. The proxy answers 403 and records the request line, so
"zero requests" means the run tried to reach nothing outside. (Chosen over `unshare -n`, whose
loopback would not reach the model server in this process's network namespace.)
"""

from __future__ import annotations

import socketserver
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import make_repo

from workbench.hosts import REAL_HOSTS
from workbench.hosts.install import find_binary
from workbench.modelstub import parse_script
from workbench.runner import run_host


class RefusingProxy(socketserver.ThreadingTCPServer):
    """Logs the first line of every request (CONNECT host:port or GET http://...) and refuses it."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self) -> None:
        self.seen: list[str] = []
        super().__init__(("127.0.0.1", 0), _Refuse)


class _Refuse(socketserver.StreamRequestHandler):
    server: RefusingProxy

    def handle(self) -> None:
        line = self.rfile.readline(4096).decode("latin-1").strip()
        self.server.seen.append(line or "(connection without a request line)")
        self.wfile.write(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")


@pytest.fixture
def proxy() -> Iterator[RefusingProxy]:
    server = RefusingProxy()
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def test_proxy_logs_and_refuses(proxy: RefusingProxy) -> None:
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", proxy.server_address[1], timeout=5)
    conn.request("GET", "http://example.com/")
    assert conn.getresponse().status == 403
    assert proxy.seen == ["GET http://example.com/ HTTP/1.1"]


@pytest.mark.parametrize("host", REAL_HOSTS)
def test_run_makes_no_outside_connection(host: str, tmp_path: Path, proxy: RefusingProxy,
                                         installed_hosts: Path) -> None:
    url = f"http://127.0.0.1:{proxy.server_address[1]}"
    env = {name: url for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")}
    env.update(NO_PROXY="127.0.0.1,localhost", no_proxy="127.0.0.1,localhost")
    # A skill load too: OpenCode's skill tool needs ripgrep and DOWNLOADS it when `rg` is not on PATH.
    script = parse_script({"steps": [{"calls": [{"skill": "notes"}]}, {"calls": [{"shell": "cat README.md"}]},
                                     {"say": "Done."}]})
    plugin = tmp_path / "plugin"
    (plugin / "skills" / "notes").mkdir(parents=True)
    (plugin / "skills" / "notes" / "SKILL.md").write_text(
        "---\nname: notes\ndescription: How to keep notes.txt. Use before editing notes.\n---\nKeep it short.\n")
    binary = find_binary(host, installed_hosts)
    assert binary is not None
    result = run_host(host, "Show the readme.", make_repo(tmp_path), tmp_path, script=script, binary=binary,
                      extra_env=env, timeout=90.0, plugin=plugin, add_dirs=(plugin,))
    skills = host != "grok"  # Grok CLI has no skills: the skill call is its "Unknown tool: skill"
    assert [c.status for c in result.parsed.calls] == ["ok" if skills else "error", "ok"] and result.exit_code == 0
    assert result.parsed.calls[-1].kind == "shell" and result.skill_offered("notes") == skills
    assert proxy.seen == [], f"{host} tried to reach outside hosts: {proxy.seen}"
