"""Helpers for the red-team tests: a confined batch door driven by a hostile scripted model, and a way
to judge from OUTSIDE what the run left (files it wrote in its repo, copied out before the run folder
is removed; the model server's request log, i.e. the tool results the model received)."""

from __future__ import annotations

import base64
import contextlib
import shutil
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from batch_support import World, config

from workbench.hosts.install import find_binary
from workbench.runner.batch import BatchConfig
from workbench.runner.hostrun import HostRun, run_host

HOSTS = ["sim", "claude", "codex", "grok"]
"""Hosts of the batch-door attacks."""
DOOR_HOSTS = ["sim", "claude", "codex"]
"""Hosts of the canary and post-install door attacks."""


def shell_script(*commands: str) -> dict[str, Any]:
    """A scripted model that runs each command in its own turn, then ends."""
    return {"steps": [{"calls": [{"shell": c}]} for c in commands] + [{"say": "done"}]}


def host_config(w: World, host: str, installed: Path | None, **kw: Any) -> BatchConfig:
    """A one-case, one-arm batch on HOST (a real host needs its pinned install)."""
    binaries = {}
    if host != "sim":
        assert installed is not None
        binary = find_binary(host, installed)
        assert binary is not None, f"{host} is not installed"
        binaries[host] = binary
    cfg = config(w, cases=1, hosts=(host,), binaries=binaries, **kw)
    cfg.arms = cfg.arms[:1]
    return cfg


def capturing(into: Path, inner: Callable[..., HostRun] = run_host) -> Callable[..., HostRun]:
    """run_host that, after the run, copies the run's repo and the model server's request log to INTO
    (the batch removes the run folder; the test judges what was left, from outside)."""
    def run(host: str, prompt: str, repo: Path, run_dir: Path, **kw: Any) -> HostRun:
        result = inner(host, prompt, repo, run_dir, **kw)
        into.mkdir(parents=True, exist_ok=True)
        shutil.copytree(repo, into / "repo", symlinks=True, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".git"))
        for name in ("offered.jsonl", "stdout.jsonl"):
            if (run_dir / name).is_file():
                shutil.copy(run_dir / name, into / name)
        return result
    return run


def everything_written(into: Path) -> str:
    """Every file the run left in its repo, plus what the model server received (the tool results)."""
    parts = []
    for path in sorted(into.rglob("*")):
        if path.is_file() and not path.is_symlink() and path.name != "stdout.jsonl":
            parts.append(path.read_text(encoding="utf-8", errors="replace"))
    return "\n".join(parts)


def with_login(rel: str, target: Path, inner: Callable[..., HostRun] = run_host) -> Callable[..., HostRun]:
    """run_host with TARGET linked into the temp HOME at REL the way a real-model run links its login
    (scripted runs link none), hashed before the run as `HostAdapter.launch` does for real models."""
    from workbench.hosts.base import Launch, login_digests

    def run(host: str, prompt: str, repo: Path, run_dir: Path, *, wrap: Callable[[Launch], Launch] | None = None,
            **kw: Any) -> HostRun:
        def add(launch: Launch) -> Launch:
            link = run_dir / "home" / rel
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(target)
            launch.links[link] = target
            launch.logins = (*launch.logins, target)
            launch.login_before = {**launch.login_before, **login_digests([target])}
            return wrap(launch) if wrap is not None else launch
        return inner(host, prompt, repo, run_dir, wrap=add, **kw)
    return run


def with_secret_env(name: str, value: str, inner: Callable[..., HostRun] = run_host) -> Callable[..., HostRun]:
    """run_host with NAME=VALUE given to the host as a secret variable, the way an adapter passes a real
    model's API key (`HostAdapter.auth_env`, `Launch.secret_env`)."""
    from dataclasses import replace

    from workbench.hosts.base import Launch

    def run(host: str, prompt: str, repo: Path, run_dir: Path, *, wrap: Callable[[Launch], Launch] | None = None,
            **kw: Any) -> HostRun:
        def add(launch: Launch) -> Launch:
            launch = replace(launch, env={**launch.env, name: value}, secret_env=launch.secret_env | {name})
            return wrap(launch) if wrap is not None else launch
        return inner(host, prompt, repo, run_dir, wrap=add, **kw)
    return run


def transforms(source: str) -> list[str]:
    """Shell commands printing SOURCE (a shell word: a file's text, `$(cat F)`, or "$VAR") plain,
    reversed, base64 (std, urlsafe, with and without padding), hex (lower, upper), URL-encoded, base32,
    base64 of gzip/zlib (after a 1 MiB prefix, glued to other text, as a second member, wrapped and
    indented), and split by newlines, blank lines, indents or spaces."""
    py = "python3 -c \"import sys, urllib.parse as u; v = sys.argv[1]; print({})\" " + source
    return [f"printf '%s\\n' {source}", f"printf '%s' {source} | rev", f"printf '%s' {source} | base64 -w0",
            f"printf 'key=%s' {source} | base64 -w0 | tr -d =", f"printf 'xy%s' {source} | base64 -w0 | tr '+/' '-_'",
            py.format("v.encode().hex()"), py.format("v.encode().hex().upper()"), py.format("u.quote(v, safe='')"),
            py.format("u.quote_plus(v)"), f"printf '%s' {source} | base32 -w0",
            f"printf 'k%s' {source} | base32 -w0 | tr A-Z a-z", f"printf '%s' {source} | gzip | base64 -w0",
            "python3 -c \"import sys, zlib, base64; print(base64.b64encode(zlib.compress(sys.argv[1].encode())).decode())\" "
            + source, f"printf '%s' {source} | fold -w 7",
            f"printf '%s' {source} | fold -w 5 | sed G", f"printf '%s' {source} | fold -w 6 | sed 's/^/    /'",
            f"printf '%s' {source} | fold -w 4 | paste -sd' '", f"printf '%s' {source} | base32 -w0 | fold -w 10",
            f"(head -c 1048576 /dev/zero; printf '%s' {source}) | gzip | base64 -w0",
            f"printf 'abc%s\\n' \"$(printf '%s' {source} | gzip | base64 -w0)\"",
            f"(printf hello | gzip; printf '%s' {source} | gzip) | base64 -w0",
            f"printf '%s' {source} | gzip | base64 -w 16 | sed 's/^/  /'"]


def _b64_decodings(text: str) -> list[bytes]:
    import base64
    import re

    out = []
    for token in re.findall(r"[A-Za-z0-9+/_-]{12,}={0,2}", text):
        body = token.rstrip("=").replace("-", "+").replace("_", "/")
        for start in range(4):
            part = body[start:]
            part = part[:len(part) // 4 * 4]
            try:
                out.append(base64.b64decode(part))
            except ValueError:
                continue
    return out


def leaked(text: str, secret: str) -> list[str]:
    """How SECRET shows in TEXT (judged from outside, by decoding, not by the redactor's own list):
    plain, reversed, hex in any case, URL-decoded, or inside any base64-looking token at any alignment."""
    from urllib.parse import unquote_plus

    found = []
    if secret in text:
        found.append("plain")
    if secret[::-1] in text:
        found.append("reversed")
    if secret.encode().hex() in text.lower():
        found.append("hex")
    if secret in unquote_plus(text):
        found.append("url")
    if any(secret.encode() in raw for raw in _b64_decodings(text)):
        found.append("base64")
    return found


def _b32_decodings(text: str) -> list[bytes]:
    """Every base32-looking token decoded at each of its 8 character offsets (the judge's own decoder)."""
    import re

    out = []
    for token in re.findall(r"[A-Za-z2-7]{8,}=*", text):
        core = token.rstrip("=").upper()
        for k in range(8):
            for cut in range(8):  # a tail that is no whole quantum: trimmed until it decodes
                part = core[k:len(core) - cut]
                try:
                    out.append(base64.b32decode(part + "=" * (-len(part) % 8)))
                    break
                except ValueError:
                    continue
    return out


def _inflations(text: str) -> list[bytes]:
    """Every base64 run (whitespace of any kind between its pieces, any of 4 alignments) decoded, and
    every gzip, zlib or raw deflate stream starting anywhere in it inflated to its end or first error
    (the judge's own decoder: no size limit, each concatenated member found by its own header)."""
    import re
    import zlib

    out = []
    for run in re.findall(r"[A-Za-z0-9+/_=-]{16,}(?:\s+[A-Za-z0-9+/_=-]+)*", text):
        body = re.sub(r"[\s=]", "", run).replace("-", "+").replace("_", "/")
        for k in range(4):
            part = body[k:]
            with contextlib.suppress(ValueError):
                raw = base64.b64decode(part[:len(part) // 4 * 4])
                starts = [(0, -15)] + [(m.start(), 47) for m in re.finditer(rb"\x1f\x8b", raw)] + [
                    (m.start(), 15) for m in re.finditer(rb"\x78[\x01\x5e\x9c\xda]", raw)]
                for at, wbits in starts:
                    d, got = zlib.decompressobj(wbits), []
                    for i in range(at, len(raw), 256):  # small pieces: what came before an error is kept
                        try:
                            got.append(d.decompress(raw[i:i + 256]))
                        except zlib.error:
                            break
                        if d.eof:
                            break
                    out.append(b"".join(got))
    return out


def seen(text: str, secret: str, *, depth: int = 1) -> list[str]:
    """LEAKED plus the forms this wave added: base32, any form split by whitespace of any kind and
    length, and base64 of gzip/zlib/deflate holding any of these forms."""
    compact = "".join(text.split())
    found = leaked(text, secret) + [f"split {f}" for f in leaked(compact, secret) if f not in leaked(text, secret)]
    if any(secret.encode() in raw for raw in _b32_decodings(text) + _b32_decodings(compact)):
        found.append("base32")
    if depth and any(seen(raw.decode("utf-8", "replace"), secret, depth=depth - 1) for raw in _inflations(text)):
        found.append("compressed")
    return found


def strings(value: Any) -> Iterator[str]:
    """Every string in VALUE: a decoded JSON value, a live event (dataclass), a model, or nested ones."""
    import dataclasses

    from pydantic import BaseModel

    if isinstance(value, str):
        yield value
    elif isinstance(value, BaseModel):
        yield from strings(value.model_dump())
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            yield from strings(getattr(value, f.name))
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from strings(k)
            yield from strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from strings(v)


def written(records: str, events: Iterable[Any] = ()) -> str:
    """What a reader of the records file and a view of the live events gets: each JSONL record parsed
    and its string values decoded (a newline in a value is a newline, not the two characters `\\n`),
    one per line, then the events' strings."""
    import json

    values = [v for line in records.splitlines() if line.strip() for v in strings(json.loads(line))]
    return "\n".join(values + list(strings(list(events))))
