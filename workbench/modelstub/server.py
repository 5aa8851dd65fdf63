"""The scripted model server: one local HTTP process serving all four wire APIs from one script.

Stateless by design: every host resends the whole history, so the turn to answer is the number of
model turns already in it. Requests that offer no tools (titles, routers) get canned answers and do
not advance the script. Faults (HTTP errors, slow answers, hangs, streams cut short) are injected on
demand so runners can test how hosts fail. Every request is logged with what the host offered the
model: its tools and the skills (and plugins) named in its prompts.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any, Literal
from urllib.parse import urlsplit

from workbench.core.offered import listed_rows
from workbench.modelstub.anthropic import AnthropicMessages
from workbench.modelstub.gemini import Gemini
from workbench.modelstub.openai_chat import OpenAIChat
from workbench.modelstub.openai_responses import OpenAIResponses
from workbench.modelstub.script import Script
from workbench.modelstub.turns import Turn, agent_of, pick_turn, plan_agents
from workbench.modelstub.wire import INPUT_TOKENS, Answer, Request, WireAPI, plugins_of

FaultKind = Literal["status", "delay", "hang", "cut"]


@dataclass(frozen=True)
class Fault:
    """A failure to inject: at model turn `step` (None: every scripted request), `times` times (None: always).

    status: answer HTTP `status` (429, 500, 529, ...) with the API's error body.
    delay:  answer normally after `delay` seconds.
    hang:   never answer; the connection is closed when the server stops.
    cut:    send the headers and part of the stream (or of a plain body), then close the connection.
    """

    kind: FaultKind
    step: int | None = None
    status: int = 529
    delay: float = 0.0
    times: int | None = None


def route(path: str) -> WireAPI | None:
    """The wire API a request path belongs to (the query string is ignored)."""
    path = urlsplit(path).path.rstrip("/")
    if path.endswith("/v1/messages"):
        return _APIS["anthropic"]
    if path.endswith("/v1/responses") or path.endswith("/responses"):
        return _APIS["openai-responses"]
    if path.endswith("/chat/completions"):
        return _APIS["openai-chat"]
    if "/models/" in path and (path.endswith(":streamGenerateContent") or path.endswith(":generateContent")):
        return _APIS["gemini"]
    return None


_APIS: dict[str, WireAPI] = {api.name: api for api in (AnthropicMessages(), OpenAIResponses(), OpenAIChat(),
                                                       Gemini())}


class ModelServer:
    """`with ModelServer(script, placeholders, faults=...) as srv:` serves on 127.0.0.1 at `srv.url`."""

    def __init__(self, script: Script, placeholders: Mapping[str, str] | None = None, *,
                 faults: Iterable[Fault] = (), log_path: str | Path | None = None,
                 host: str = "127.0.0.1", port: int = 0, before_stamp: Callable[[], None] | None = None) -> None:
        self.placeholders = dict(placeholders or {})
        self.script = script.resolved(self.placeholders)
        self.faults = list(faults)
        self.log_path = Path(log_path) if log_path else None
        self.requests: list[dict[str, Any]] = []
        """Every request received: path and decoded JSON body."""
        self.offered: list[dict[str, Any]] = []
        """Per request: api, host, model, offered tools, listed skills and plugins, turn, the subagent that
        asked (its delegated prompt; None: the main agent), fault, status."""
        self.asked: list[tuple[int, float]] = []
        """(model turn, monotonic arrival) of every scripted main-agent request: the turn clock of
        `workbench.core.effects.turn_spans`. BEFORE_STAMP (the repo watcher's `sync`) runs before
        each arrival is stamped, so a change made before the request was sent is stamped before it."""
        self.before_stamp = before_stamp
        self._plans = {name: plan_agents(self.script, read_before_edit=api.read_before_edit,
                                         deferred_agents=api.deferred_agents)
                       for name, api in _APIS.items()}
        self._prompts = [agent.prompt for agent in self.script.agents()]
        self._fired = [0] * len(self.faults)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.errors: list[str] = []
        """Tracebacks of handler failures (a client hanging up is not one)."""
        self._httpd = _HTTPServer((host, port), _handler_for(self))
        self._httpd.errors = self.errors
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def turns(self, api: str, agent: str | None = None) -> list[Turn]:
        """The turns the script expands to for a wire API (Claude gets reads before edits); AGENT: the
        subagent delegated that prompt."""
        return self._plans[api][agent]

    def agent_of(self, request: Request) -> str | None:
        """Which subagent sent REQUEST (its delegated prompt), None for the main agent."""
        return agent_of(self._prompts, request.opening) if self._prompts else None

    def start(self) -> ModelServer:
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), name="modelstub",
                                        daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread:
            self._thread.join()

    def __enter__(self) -> ModelServer:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    def handle(self, path: str, body: dict[str, Any]) -> tuple[WireAPI | None, Request | None, Fault | None]:
        """Parse and log one request; the answer is rendered by the handler."""
        if self.before_stamp is not None:
            self.before_stamp()
        arrived = time.monotonic()
        api = route(path)
        request = api.parse(path, body) if api else None
        agent = self.agent_of(request) if request and request.scripted else None
        fault = self._fault_for(request.model_turns, agent) if request and request.scripted else None
        rows = listed_rows(request.texts) if request else {}
        skills = list(rows)
        entry = {"n": len(self.requests), "time": time.time(), "path": path,
                 "api": api.name if api else None,
                 "host": (request.host if request and request.host else api.host) if api else None,
                 "model": request.model if request else None,
                 "tools": sorted(request.tools) if request else [], "skills": skills,
                 "plugins": plugins_of(skills), "scripted": bool(request and request.scripted),
                 "turn": request.model_turns if request and request.scripted else None,
                 "agent": agent, "fault": fault.kind if fault else None, "rows": rows,
                 "sha256": hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()}
        with self._lock:
            self.requests.append({"path": path, "body": body})
            self.offered.append(entry)
            if request is not None and request.scripted and agent is None:
                self.asked.append((request.model_turns, arrived))
            if self.log_path:
                with self.log_path.open("a", encoding="utf-8") as log:
                    log.write(json.dumps(entry) + "\n")
        return api, request, fault

    def answer(self, api: WireAPI, request: Request) -> Answer:
        if not request.scripted:
            return api.answer(None, request, self.placeholders)
        turn = pick_turn(self.turns(api.name, self.agent_of(request)), request.model_turns)
        return api.answer(turn, request, self.placeholders)

    def _fault_for(self, turn: int, agent: str | None = None) -> Fault | None:
        """The fault for a main-agent request at TURN; a subagent's requests get only the faults of every turn."""
        with self._lock:
            for index, fault in enumerate(self.faults):
                if fault.step not in (None, turn) or (agent is not None and fault.step is not None):
                    continue
                if fault.times is not None and self._fired[index] >= fault.times:
                    continue
                self._fired[index] += 1
                return fault
        return None


class _HTTPServer(ThreadingHTTPServer):
    """Threads per connection; failures are kept in `errors` instead of printed to stderr."""

    daemon_threads = True
    errors: list[str]

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError | TimeoutError):
            self.errors.append(traceback.format_exc())


def _handler_for(server: ModelServer) -> type[BaseHTTPRequestHandler]:
    class Handler(_Handler):
        model = server
    return Handler


class _Handler(BaseHTTPRequestHandler):
    """HTTP/1.1 with chunked streams, so a stream cut short is a visible protocol error."""

    protocol_version = "HTTP/1.1"
    model: ModelServer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
        """Quiet: the server's own log is `offered`."""

    def do_GET(self) -> None:  # noqa: N802 - stdlib hook name
        self._send_json(404, {"error": {"message": f"not served: {self.path}"}})

    def do_POST(self) -> None:  # noqa: N802 - stdlib hook name
        try:
            body = json.loads(self._read_body() or b"{}")
        except (ValueError, OSError) as exc:
            self._send_json(400, {"error": {"message": f"bad request body: {exc}"}})
            return
        if not isinstance(body, dict):
            self._send_json(400, {"error": {"message": "request body must be a JSON object"}})
            return
        route_path = urlsplit(self.path).path
        if route_path.endswith("/count_tokens") or route_path.endswith(":countTokens"):
            self._send_json(200, {"input_tokens": INPUT_TOKENS, "totalTokens": INPUT_TOKENS})
            return
        api, request, fault = self.model.handle(self.path, body)
        if api is None or request is None:
            self._send_json(404, {"error": {"message": f"not served: {self.path}"}})
            return
        if fault and fault.kind == "hang":
            self.model._stop.wait()
            self.close_connection = True
            return
        if fault and fault.kind == "delay" and self.model._stop.wait(fault.delay):
            return
        if fault and fault.kind == "status":
            self._send(fault.status, "application/json", api.error(fault.status))
            return
        answer = self.model.answer(api, request)
        if not answer.stream:
            body = b"".join(answer.chunks)
            if fault and fault.kind == "cut":  # headers promise the whole body; half of it comes
                self._send(answer.status, answer.content_type, body[: len(body) // 2], length=len(body))
                self.close_connection = True
                return
            self._send(answer.status, answer.content_type, body)
            return
        self.send_response(answer.status)
        self.send_header("Content-Type", answer.content_type)
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        cut = bool(fault and fault.kind == "cut")
        chunks = answer.chunks[: max(1, len(answer.chunks) // 2)] if cut else answer.chunks
        for chunk in chunks:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            self.wfile.flush()
        if cut:
            self.close_connection = True
            return
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _read_body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            data = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    break
                data += self.rfile.read(size)
                self.rfile.readline()
        else:
            data = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        encoding = self.headers.get("Content-Encoding", "").lower()
        if encoding == "gzip":
            return gzip.decompress(data)
        if encoding not in ("", "identity"):
            raise ValueError(f"unsupported Content-Encoding {encoding}")
        return data

    def _send(self, status: int, content_type: str, data: bytes, length: int | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data) if length is None else length))
        self.end_headers()
        self.wfile.write(data)

    def _send_json(self, status: int, obj: Any) -> None:
        self._send(status, "application/json", json.dumps(obj).encode())
