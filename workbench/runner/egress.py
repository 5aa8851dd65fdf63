"""The closed network's only way out for a real model: an HTTP CONNECT proxy on a unix socket that
allows exactly the host's API endpoints (`host:port`) and refuses everything else.

It runs outside the sandbox (started by the wrapper, `python -m workbench.runner.egress SOCKET
ALLOW...`, dying with it); inside, socat bridges 127.0.0.1:PROXY_PORT to SOCKET and HTTPS_PROXY
points there. Every request line (allowed or not) is appended to SOCKET.log, which is how what a
host tries to reach is measured. Plain-HTTP proxying is refused: only CONNECT tunnels pass.
"""

from __future__ import annotations

import contextlib
import os
import socket
import sys
import threading
from collections.abc import Iterable
from pathlib import Path

PROXY_PORT = 3128
"""The proxy's port inside the sandbox's own network namespace (nothing else listens there)."""
HEAD_LIMIT = 8192


def _pipe(src: socket.socket, dst: socket.socket) -> None:
    with contextlib.suppress(OSError):
        while data := src.recv(65536):
            dst.sendall(data)
    with contextlib.suppress(OSError):
        dst.shutdown(socket.SHUT_WR)


def _head(conn: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data and len(data) < HEAD_LIMIT:
        chunk = conn.recv(1024)
        if not chunk:
            break
        data += chunk
    return data


def handle(conn: socket.socket, allow: frozenset[str], log: Path) -> None:
    """One client: CONNECT to an allowed `host:port` is tunnelled, anything else gets 403."""
    with conn:
        head = _head(conn)
        line = head.split(b"\r\n", 1)[0].decode("latin-1", errors="replace")
        parts = line.split()
        target = parts[1] if len(parts) == 3 and parts[0] == "CONNECT" else ""
        ok = target in allow
        with log.open("a", encoding="utf-8") as fh:
            fh.write(f"{'allow' if ok else 'deny'} {line[:200]}\n")
        if not ok:
            conn.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            return
        host, _, port = target.rpartition(":")
        try:
            upstream = socket.create_connection((host, int(port)), timeout=15)
        except OSError:
            conn.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            return
        with upstream:
            upstream.settimeout(None)
            conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
            back = threading.Thread(target=_pipe, args=(upstream, conn), daemon=True)
            back.start()
            _pipe(conn, upstream)
            back.join()


def serve(path: Path, allow: Iterable[str]) -> None:
    """Serve on the unix socket PATH until killed."""
    allowed = frozenset(allow)
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(str(path))
    os.chmod(path, 0o666)
    srv.listen(64)
    log = path.with_name(path.name + ".log")
    while True:
        conn, _ = srv.accept()
        threading.Thread(target=handle, args=(conn, allowed, log), daemon=True).start()


if __name__ == "__main__":
    serve(Path(sys.argv[1]), sys.argv[2:])
