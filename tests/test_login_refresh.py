"""Token refresh through a read-only login, measured with the real CLIs and an expired login.

Codex: its refresh endpoint pointed at a token server on 127.0.0.1 (`CODEX_REFRESH_TOKEN_URL_OVERRIDE`),
its backend too (`chatgpt_base_url`). Claude Code, Gemini CLI and OpenCode (its built-in ChatGPT login):
their token URLs are fixed, so every vendor host is an HTTPS proxy on 127.0.0.1 with a test CA the CLI is
told to trust (`NODE_EXTRA_CA_CERTS`). Each runs in our confinement with the login bound read-only as every
door binds it. Judged from outside: the host asks for a new token, cannot save it, never writes it anywhere
else; its adapter reads that as a failed login write (`login-refresh` when the run fails).
The controls, a writable login: the new token is saved."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import ssl
import subprocess
import threading
import time
import urllib.parse
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


class Vendor(ThreadingHTTPServer):
    """An HTTPS proxy on 127.0.0.1 that is every vendor host (TLS with a test CA the host is told to trust):
    the OAuth token endpoint answers new tokens, the API says the token expired; it notes each request."""

    def __init__(self, context: ssl.SSLContext) -> None:
        super().__init__(("127.0.0.1", 0), VendorHandler)
        self.context = context
        self.refreshes: list[str] = []
        self.bearers: list[str] = []


class VendorHandler(BaseHTTPRequestHandler):
    server: Vendor

    def log_message(self, *args: object) -> None:
        pass

    def do_CONNECT(self) -> None:
        self.send_response(200, "Connection established")
        self.end_headers()
        tls = self.server.context.wrap_socket(self.connection, server_side=True)
        self.connection, self.rfile, self.wfile = tls, tls.makefile("rb"), tls.makefile("wb")
        self.close_connection = False

    def do_GET(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length") or 0)).decode(errors="replace")
        if self.path.endswith("/oauth/token") or self.path == "/token":  # Claude's, Google's
            fields = json.loads(body) if body.startswith("{") else dict(urllib.parse.parse_qsl(body))
            self.server.refreshes.append(fields.get("refresh_token", ""))
            status, data = 200, {"access_token": "sk-ant-oat01-NEW", "refresh_token": "sk-ant-ort01-NEW",
                                 "expires_in": 3600, "token_type": "Bearer", "scope": "user:inference user:profile"}
        else:
            if self.path.startswith("/v1/messages") or self.path.endswith("/codex/responses"):  # Claude's, OpenCode's
                self.server.bearers.append(self.headers.get("authorization", ""))
            status, data = 401, {"type": "error", "error": {"type": "authentication_error",
                                                            "message": "OAuth token has expired"}}
        raw = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)
        self.wfile.flush()

    do_POST = do_GET


@pytest.fixture
def vendor(tmp_path: Path) -> Iterator[tuple[Vendor, Path]]:
    """The vendor stand-in and its CA certificate (made with openssl for this test)."""
    pki = tmp_path / "pki"
    pki.mkdir()
    names = ("DNS:platform.claude.com,DNS:api.anthropic.com,DNS:claude.ai,DNS:*.googleapis.com,DNS:auth.openai.com,"
             "DNS:chatgpt.com")
    for argv in (["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "1",
                  "-subj", "/CN=workbench test CA", "-addext", "basicConstraints=critical,CA:TRUE",
                  "-addext", "keyUsage=critical,keyCertSign"],
                 ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", "srv.key", "-out", "srv.csr", "-subj", "/CN=vendor"],
                 ["x509", "-req", "-in", "srv.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out",
                  "srv.pem", "-days", "1", "-extfile", "ext.cnf"]):
        (pki / "ext.cnf").write_text(f"subjectAltName={names}\nextendedKeyUsage=serverAuth\n")
        subprocess.run(["openssl", *argv], cwd=pki, check=True, capture_output=True)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(pki / "srv.pem", pki / "srv.key")
    srv = Vendor(context)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv, pki / "ca.pem"
    srv.shutdown()
    srv.server_close()


def expired_login_run(tmp_path: Path, vendor: Vendor, ca: Path, *, rel: str, login: dict[str, object],
                      command: list[str], writable: bool, files: dict[str, str], env: dict[str, str],
                      path: str, own_copy: bool = False) -> tuple[Path, str]:
    """Run COMMAND confined with an expired LOGIN at REL under the home, bound read-only as every door binds
    it (WRITABLE: a plain copy in the run, OWN_COPY: handed to the sandbox uid), FILES (relative to the run
    folder) written first, every vendor host reached through VENDOR; (the login file, stdout and stderr).
    The read-only login's hash is judged from outside."""
    real_home, run_dir = tmp_path / "real-home", tmp_path / "run"
    login_file = real_home / rel
    login_file.parent.mkdir(parents=True)
    login_file.write_text(json.dumps(login), encoding="utf-8")
    home = run_dir / "home"
    for folder in ((home / rel).parent, run_dir / "tmp", run_dir / "repo"):
        folder.mkdir(parents=True)
    for name, text in files.items():
        (run_dir / name).write_text(text)
    shutil.copy(ca, run_dir / "ca.pem")
    before = hashlib.sha256(login_file.read_bytes()).hexdigest()
    conf = Confinement(real_home)
    if writable:
        login_file = Path(shutil.copy(login_file, home / rel))
        if own_copy and conf.run_as is not None:
            os.chown(login_file, conf.run_as, conf.run_as)
    else:
        (home / rel).touch()  # the mount point, as `Confinement.wrap` makes it
    port = vendor.server_address[1]
    proxy = f"http://127.0.0.1:{port}"
    argv = conf.argv(run_dir, run_dir / "repo", command, ro_binds={} if writable else {login_file: home / rel},
                     env={"HTTPS_PROXY": proxy, "https_proxy": proxy, "NODE_EXTRA_CA_CERTS": str(run_dir / "ca.pem"),
                          **env}, reach=[f"127.0.0.1:{port}"])
    done = subprocess.run(argv, capture_output=True, text=True, timeout=240, stdin=subprocess.DEVNULL,
                          env={"PATH": path}, check=False)
    assert writable or hashlib.sha256(login_file.read_bytes()).hexdigest() == before  # judged from outside
    return login_file, done.stdout + done.stderr


def claude_with_expired_login(tmp_path: Path, installed: Path, vendor: Vendor, ca: Path,
                              writable: bool) -> tuple[Path, str]:
    """`claude -p` with its expired OAuth login (`expired_login_run`)."""
    binary = find_binary("claude", installed)
    assert binary is not None
    login = {"claudeAiOauth": {
        "accessToken": "sk-ant-oat01-OLD", "refreshToken": "sk-ant-ort01-OLD", "expiresAt": int(time.time() - 3600) * 1000,
        "scopes": ["user:inference", "user:profile"], "subscriptionType": "pro"}}
    account = {"hasCompletedOnboarding": True, "oauthAccount": {
        "accountUuid": "u", "emailAddress": "user@example.com", "organizationUuid": "o"}}
    return expired_login_run(tmp_path, vendor, ca, rel=".claude/.credentials.json", login=login,
                             command=[str(binary), "-p", "say hi", "--output-format", "stream-json", "--verbose"],
                             writable=writable, files={"home/.claude.json": json.dumps(account)}, env={},
                             path="/usr/bin:/bin")


def test_claude_cannot_save_a_refreshed_token_and_the_run_says_login_refresh(
        tmp_path: Path, installed_hosts: Path, vendor: tuple[Vendor, Path]) -> None:
    server, ca = vendor
    login, output = claude_with_expired_login(tmp_path, installed_hosts, server, ca, writable=False)
    assert server.refreshes and set(server.refreshes) == {"sk-ant-ort01-OLD"}  # asked, again and again
    assert "sk-ant-ort01-OLD" in login.read_text()  # unchanged (hashed before and after)
    assert sorted(p.name for p in (tmp_path / "real-home").rglob("*")) == [".claude", ".credentials.json"]
    assert server.bearers and set(server.bearers) == {"Bearer sk-ant-oat01-OLD"}  # never the new token
    assert "OAuth token has expired" in output
    assert adapter("claude").login_write_failed(output)


def test_control_claude_with_a_writable_login_saves_and_uses_the_new_token(
        tmp_path: Path, installed_hosts: Path, vendor: tuple[Vendor, Path]) -> None:
    server, ca = vendor
    login, _ = claude_with_expired_login(tmp_path, installed_hosts, server, ca, writable=True)
    assert "sk-ant-ort01-NEW" in login.read_text()
    assert "Bearer sk-ant-oat01-NEW" in server.bearers


def gemini_with_expired_login(tmp_path: Path, installed: Path, vendor: Vendor, ca: Path,
                              writable: bool) -> tuple[Path, str]:
    """`gemini -p` with its expired Google login (`expired_login_run`)."""
    binary = find_binary("gemini", installed)
    assert binary is not None
    login = {"access_token": "ya29.OLD", "refresh_token": "1//OLD", "token_type": "Bearer",
             "scope": "https://www.googleapis.com/auth/cloud-platform", "expiry_date": int(time.time() - 3600) * 1000}
    settings = {"security": {"auth": {"selectedType": "oauth-personal"}}}
    return expired_login_run(tmp_path, vendor, ca, rel=".gemini/oauth_creds.json", login=login,
                             command=[str(binary), "-p", "say hi", "-o", "stream-json"], writable=writable,
                             files={"home/.gemini/settings.json": json.dumps(settings)},
                             env={"GEMINI_CLI_TRUST_WORKSPACE": "true"}, path=os.environ["PATH"])


def test_gemini_cannot_save_a_refreshed_token_and_the_run_says_login_refresh(
        tmp_path: Path, installed_hosts: Path, vendor: tuple[Vendor, Path]) -> None:
    server, ca = vendor
    login, output = gemini_with_expired_login(tmp_path, installed_hosts, server, ca, writable=False)
    assert server.refreshes == ["1//OLD"]  # asked once
    assert "ya29.OLD" in login.read_text()  # unchanged (hashed before and after)
    assert sorted(p.name for p in (tmp_path / "real-home").rglob("*")) == [".gemini", "oauth_creds.json"]
    assert "EROFS: read-only file system" in output and "oauth_creds.json" in output
    assert adapter("gemini").login_write_failed(output)


def test_control_gemini_with_a_writable_login_saves_the_new_token(
        tmp_path: Path, installed_hosts: Path, vendor: tuple[Vendor, Path]) -> None:
    server, ca = vendor
    login, output = gemini_with_expired_login(tmp_path, installed_hosts, server, ca, writable=True)
    assert "sk-ant-oat01-NEW" in login.read_text() and not adapter("gemini").login_write_failed(output)


def opencode_with_expired_login(tmp_path: Path, installed: Path, vendor: Vendor, ca: Path,
                                writable: bool) -> tuple[Path, str]:
    """`opencode run` with an OpenAI model and its expired ChatGPT login, the built-in OAuth plugin's entry
    (`expired_login_run`)."""
    binary = find_binary("opencode", installed)
    assert binary is not None
    login = {"openai": {"type": "oauth", "refresh": "rt-OLD", "access": "at-OLD",
                        "expires": int(time.time() - 3600) * 1000, "accountId": "acc-1"}}
    config = {"autoupdate": False, "share": "disabled", "model": "openai/gpt-5.5"}
    env = {"OPENCODE_CONFIG": str(tmp_path / "run" / "opencode.json"), "OPENCODE_DISABLE_MODELS_FETCH": "1",
           "OPENCODE_DISABLE_AUTOUPDATE": "1", "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
           "npm_config_registry": "http://127.0.0.1:9/"}
    command = [str(binary), "run", "--print-logs", "--log-level", "ERROR", "--format", "json", "say hi"]  # as the adapter
    return expired_login_run(tmp_path, vendor, ca, rel=".local/share/opencode/auth.json", login=login,
                             command=command, writable=writable, files={"opencode.json": json.dumps(config)},
                             env=env, path=os.environ["PATH"], own_copy=True)


def test_opencode_cannot_save_a_refreshed_token_and_the_run_says_login_refresh(
        tmp_path: Path, installed_hosts: Path, vendor: tuple[Vendor, Path]) -> None:
    server, ca = vendor
    login, output = opencode_with_expired_login(tmp_path, installed_hosts, server, ca, writable=False)
    assert server.refreshes and set(server.refreshes) == {"rt-OLD"}  # asked (the title agent too)
    assert "rt-OLD" in login.read_text()  # unchanged (hashed before and after)
    assert sorted(p.name for p in (tmp_path / "real-home").rglob("*")) == [".local", "auth.json", "opencode", "share"]
    assert server.bearers and set(server.bearers) == {"Bearer sk-ant-oat01-NEW"}  # the new token, in memory only
    assert "Failed to write auth data" in output and "auth.json" in output
    assert adapter("opencode").login_write_failed(output)


def test_control_opencode_with_a_writable_login_saves_the_new_token(
        tmp_path: Path, installed_hosts: Path, vendor: tuple[Vendor, Path]) -> None:
    server, ca = vendor
    login, output = opencode_with_expired_login(tmp_path, installed_hosts, server, ca, writable=True)
    assert "sk-ant-oat01-NEW" in login.read_text() and not adapter("opencode").login_write_failed(output)
