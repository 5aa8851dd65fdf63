"""`Redactor.text` removes a secret and its simple transforms wherever they sit in a longer text,
judged by decoding the output (`redteam_support.leaked`), not by the redactor's own list."""

from __future__ import annotations

import base64
import gzip
import textwrap
import zlib
from collections.abc import Callable
from urllib.parse import quote, quote_plus

import pytest
from redteam_support import leaked, seen

from workbench.runner.redact import INFLATE_LIMIT, UNCHECKED, Redactor

SECRETS = ["LOGIN-PLANTED-5e6f7a8b", "sk-ant-oat01-AbC+/x_y~z=09", "ghp_0123456789abcdefABCDEF"]
ENCODERS: dict[str, Callable[[bytes], str]] = {
    "plain": lambda b: b.decode(), "reversed": lambda b: b.decode()[::-1],
    "b64": lambda b: base64.b64encode(b).decode(), "b64-nopad": lambda b: base64.b64encode(b).decode().rstrip("="),
    "urlsafe": lambda b: base64.urlsafe_b64encode(b).decode(),
    "urlsafe-nopad": lambda b: base64.urlsafe_b64encode(b).decode().rstrip("="),
    "hex": lambda b: b.hex(), "HEX": lambda b: b.hex().upper(),
    "url": lambda b: quote(b.decode(), safe=""), "url-plus": lambda b: quote_plus(b.decode()),
}


@pytest.mark.parametrize("secret", SECRETS)
@pytest.mark.parametrize("encoding", ENCODERS)
@pytest.mark.parametrize("before", ["", "k", "ke", "key=", '{"token": "'])
def test_a_transformed_secret_inside_a_longer_text_is_removed(secret: str, encoding: str, before: str) -> None:
    shown = ENCODERS[encoding]((before + secret + '"\n').encode())
    text = f"output: {shown} end"
    assert leaked(text, secret)  # the judge sees it before redaction
    out = Redactor(secrets=[secret]).text(text)
    assert leaked(out, secret) == [] and "<login>" in out


def test_short_values_and_paths_are_left_alone() -> None:
    r = Redactor({"/tmp/run/repo": "<repo>"}, secrets=["LOGIN-PLANTED-5e6f7a8b"])
    assert r.text("oauth /tmp/run/repo/a.py 4c4f47494e") == "oauth <repo>/a.py 4c4f47494e"


MORE: dict[str, Callable[[bytes], str]] = {
    "b32": lambda b: base64.b32encode(b).decode(), "b32-lower": lambda b: base64.b32encode(b).decode().lower(),
    "b32-nopad": lambda b: base64.b32encode(b).decode().rstrip("="),
    "gzip-b64": lambda b: base64.b64encode(gzip.compress(b)).decode(),
    "zlib-b64": lambda b: base64.b64encode(zlib.compress(b)).decode(),
    "gzip-b64-wrapped": lambda b: "\n".join(textwrap.wrap(
        base64.b64encode(gzip.compress(b * 5)).decode(), 76)),
    "folded": lambda b: "\n".join(textwrap.wrap(b.decode(), 7, drop_whitespace=False)),
    "b64-wrapped": lambda b: "\n".join(textwrap.wrap(base64.b64encode(b * 3).decode(), 20)),
    "blank-line-split": lambda b: "\n\n".join(textwrap.wrap(b.decode(), 6, drop_whitespace=False)),
    "indented-split": lambda b: "\n    ".join(textwrap.wrap(b.decode(), 5, drop_whitespace=False)),
    "crlf-tab-split": lambda b: "\r\n\t".join(textwrap.wrap(b.decode(), 3, drop_whitespace=False)),
    "b32-folded": lambda b: "\n".join(textwrap.wrap(base64.b32encode(b).decode(), 10)),
    "gzip-after-1MiB": lambda b: base64.b64encode(gzip.compress(b"\0" * (1 << 20) + b)).decode(),
    "gzip-b64-glued": lambda b: "abc" + base64.b64encode(gzip.compress(b)).decode(),
    "gzip-two-members": lambda b: base64.b64encode(gzip.compress(b"hello") + gzip.compress(b)).decode(),
    "gzip-b64-indented": lambda b: "\n  ".join(textwrap.wrap(base64.b64encode(gzip.compress(b)).decode(), 16)),
    "gzip-of-folded": lambda b: base64.b64encode(gzip.compress("\n".join(textwrap.wrap(b.decode(), 5)).encode())).decode(),
    "raw-deflate": lambda b: base64.b64encode((lambda c: c.compress(b) + c.flush())(zlib.compressobj(9, 8, -15))).decode(),
}


@pytest.mark.parametrize("secret", SECRETS)
@pytest.mark.parametrize("encoding", MORE)
@pytest.mark.parametrize("before", ["", "k", "ke", "key", "key=", '{"token": "'])
def test_base32_compressed_and_split_forms_are_removed(secret: str, encoding: str, before: str) -> None:
    shown = MORE[encoding]((before + secret + '"\n').encode())
    text = f"output: {shown} end"
    assert seen(text, secret)  # the judge sees it before redaction
    out = Redactor(secrets=[secret]).text(text)
    assert seen(out, secret) == [] and "<login>" in out, out


def test_a_stream_too_big_to_inflate_is_replaced_whole_never_passed() -> None:
    secret = SECRETS[0]
    blob = base64.b64encode(gzip.compress(b"\0" * (INFLATE_LIMIT + 1024) + secret.encode())).decode()
    assert seen(blob, secret)  # the judge, without a limit, finds it
    out = Redactor(secrets=[secret]).text(f"output: {blob}\nend")
    assert out == f"output: {UNCHECKED}"  # words after a run may go with it: whitespace can wrap a run


def test_ordinary_base64_and_compressed_text_without_a_secret_are_kept() -> None:
    gz = base64.b64encode(gzip.compress(b"just some log text\n" * 50)).decode()
    noise = base64.b64encode(bytes(range(256)) * 40).decode()
    text = f"a {gz} b\n{noise}\nsome words\n  indented words"
    assert Redactor(secrets=SECRETS).text(text) == text
