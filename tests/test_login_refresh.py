"""Token refresh through a read-only login, measured with the real Codex CLI: an expired ChatGPT login, its
refresh endpoint pointed at a token server on 127.0.0.1 (`CODEX_REFRESH_TOKEN_URL_OVERRIDE`), its
backend too (`chatgpt_base_url`), run inside our confinement with the login bound read-only as every
door binds it. Judged from outside: Codex asks for a new token, cannot write it (EROFS), never writes
it anywhere else, and fails; the adapter reads that as a failed login write (`login-refresh`). The
control, a writable login: the refreshed token is written in place and nothing is read as a failure."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from workbench.hosts import adapter
from workbench.hosts.install import find_binary
from workbench.runner.confine import Confinement

pytestmark = pytest.mark.bwrap


def _b64(data: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


def tokens(tag: str, age: int = 0) -> dict[str, object]:
    """A ChatGPT login's tokens (unsigned JWTs: Codex reads their claims, it does not verify them)."""
    now = int(time.time()) - age
    auth = {"chatgpt_plan_type": "plus", "chatgpt_account_id": "acc-1", "chatgpt_user_id": "user-1"}
    claims = {"exp": now + 3600, "iat": now, "https://api.openai.com/auth": auth}
    def jwt(extra: dict[str, str]) -> str:
        return f"{_b64({'alg': 'none'})}.{_b64({**claims, **extra})}.sig"

    return {"id_token": jwt({"email": "user@example.com"}), "access_token": jwt({"tag": tag}),
            "refresh_token": f"refresh-{tag}"}


class TokenServer(ThreadingHTTPServer):
    """The refresh endpoint (new tokens) and a backend that says the token expired (401), counting refreshes."""

    refreshes = 0


class Handler(BaseHTTPRequestHandler):
    server: TokenServer

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        self.rfile.read(length)
        if self.path.endswith("/oauth/token"):
            self.server.refreshes += 1
            status, body = 200, {**tokens("new"), "expires_in": 3600, "token_type": "Bearer"}
        else:
            status, body = 401, {"error": {"message": "token expired", "code": "token_expired"}}
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_POST = do_GET


@pytest.fixture
def server() -> Iterator[TokenServer]:
    srv = TokenServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def codex_with_expired_login(tmp_path: Path, installed: Path, port: int, writable: bool) -> tuple[Path, str]:
    """Run `codex exec` confined, its login the real home's expired one bound read-only (WRITABLE: a plain copy in the run);
    (the login file, Codex's stderr)."""
    binary = find_binary("codex", installed)
    assert binary is not None
    real_home, run_dir = tmp_path / "real-home", tmp_path / "run"
    login = real_home / ".codex" / "auth.json"
    login.parent.mkdir(parents=True)
    login.write_text(json.dumps({"OPENAI_API_KEY": None, "tokens": {**tokens("old", age=7200), "account_id": "acc-1"},
                                 "last_refresh": "2020-01-01T00:00:00Z"}), encoding="utf-8")
    codex_home = run_dir / "home" / ".codex"
    for folder in (codex_home, run_dir / "tmp", run_dir / "repo"):
        folder.mkdir(parents=True)
    (codex_home / "config.toml").write_text(f'chatgpt_base_url = "http://127.0.0.1:{port}/backend-api/"\n')
    before = hashlib.sha256(login.read_bytes()).hexdigest()
    conf = Confinement(real_home)
    if writable:  # a plain file of the run, the sandbox uid's (a bound file cannot be renamed over: EBUSY)
        login = Path(shutil.copy(login, codex_home / "auth.json"))
        if conf.run_as is not None:
            os.chown(login, conf.run_as, conf.run_as)
    else:
        (codex_home / "auth.json").touch()  # the mount point, as `Confinement.wrap` makes it
    env = {"CODEX_HOME": str(codex_home), "CODEX_REFRESH_TOKEN_URL_OVERRIDE": f"http://127.0.0.1:{port}/oauth/token"}
    argv = conf.argv(run_dir, run_dir / "repo", [str(binary), "exec", "--skip-git-repo-check", "say hi"],
                     ro_binds={} if writable else {login: codex_home / "auth.json"}, env=env,
                     reach=[f"127.0.0.1:{port}"])
    done = subprocess.run(argv, capture_output=True, text=True, timeout=240, stdin=subprocess.DEVNULL,
                          env={"PATH": "/usr/bin:/bin", **env}, check=False)
    assert writable or hashlib.sha256(login.read_bytes()).hexdigest() == before  # judged from outside
    return login, done.stderr


def test_codex_cannot_write_a_refreshed_token_and_the_run_says_login_refresh(
        tmp_path: Path, installed_hosts: Path, server: TokenServer) -> None:
    real_home = tmp_path / "real-home"
    login, stderr = codex_with_expired_login(tmp_path, installed_hosts, server.server_address[1], writable=False)
    assert server.refreshes >= 1  # Codex asked for a new token
    assert "refresh-old" in login.read_text()  # unchanged (hashed before and after)
    assert sorted(p.name for p in real_home.rglob("*")) == [".codex", "auth.json"]  # nothing written beside it
    failed = [line for line in stderr.splitlines() if "Failed to refresh token:" in line]
    assert failed and all("read-only" in line.lower() for line in failed), failed[:3]
    assert adapter("codex").login_write_failed(stderr)
    assert reason_for(tmp_path, stderr) == "login-refresh"


def reason_for(tmp_path: Path, stderr: str) -> str | None:
    """The invalid reason the runner gives a Codex run that ended with STDERR and no model output."""
    from workbench.core.cases import parse_case
    from workbench.core.events import ParsedRun
    from workbench.hosts.base import Launch
    from workbench.modelstub import parse_script
    from workbench.runner.execute import failed_login_write, invalid_reason
    from workbench.runner.hostrun import HostRun
    from workbench.runner.request import build_request

    (tmp_path / "stderr.txt").write_text(stderr, encoding="utf-8")
    run = HostRun("codex", ParsedRun(), tmp_path / "stdout.jsonl", tmp_path / "stderr.txt", 1, None, 1.0, "", "",
                  Launch([], {}, tmp_path))
    case = parse_case({"id": "c", "target": "t", "kind": "negative", "prompt": "say hi"}, file="c.toml")
    req = build_request(case, "codex", door="canary", plugin=tmp_path, script=parse_script({"steps": [{"say": "hi"}]}),
                        unconfined=True)
    return invalid_reason(req, run, [], False, failed_login_write(run))


def test_control_a_writable_login_takes_the_refreshed_token(tmp_path: Path, installed_hosts: Path,
                                                            server: TokenServer) -> None:
    login, stderr = codex_with_expired_login(tmp_path, installed_hosts, server.server_address[1], writable=True)
    assert server.refreshes >= 1 and "refresh-new" in login.read_text()
    assert not adapter("codex").login_write_failed(stderr)
    assert reason_for(tmp_path, stderr) == "no-output"  # the same run, its login written: no login-refresh
