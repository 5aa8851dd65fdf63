"""Debian's headless Chromium for the report tests (scripts/system-deps.sh installs it), and a PNG
reader on zlib alone to check a screenshot is not blank."""

from __future__ import annotations

import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run")


def chromium() -> str:
    """The chromium binary; a missing one fails the test (make test installs it), never skips it."""
    found = shutil.which("chromium")
    if found is None:
        pytest.fail("chromium is not installed: run `bash scripts/system-deps.sh` (Debian's chromium package)")
    return found


def browse(page: Path, tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run headless Chromium on PAGE from file:// with ARGS, in a throwaway profile."""
    profile = tmp / "chromium-profile"
    argv = [chromium(), *FLAGS, f"--user-data-dir={profile}", *args, page.resolve().as_uri()]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done


def dump_dom(page: Path, tmp: Path) -> str:
    """The DOM after the page's scripts ran, serialized by the browser."""
    return browse(page, tmp, "--dump-dom").stdout


def screenshot(page: Path, tmp: Path, out: Path, size: tuple[int, int] = (1280, 800)) -> Path:
    """A PNG of the page's first screen at SIZE."""
    browse(page, tmp, f"--window-size={size[0]},{size[1]}", f"--screenshot={out}", "--hide-scrollbars")
    assert out.is_file(), f"no screenshot written at {out}"
    return out


def read_png(path: Path) -> tuple[int, int, list[bytes]]:
    """Width, height and unfiltered rows (RGB or RGBA, 8 bits, not interlaced: what Chromium writes)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, b"", b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = chunk
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert depth == 8 and color in (2, 6) and interlace == 0, (depth, color, interlace)
    bpp = 3 if color == 2 else 4
    raw, stride, rows, prev = zlib.decompress(idat), width * bpp, [], bytearray(width * bpp)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            left = line[i - bpp] if i >= bpp else 0
            up, corner = prev[i], prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 0xFF
        rows.append(bytes(line))
        prev = line
    return width, height, rows


def luminance_stats(path: Path) -> tuple[int, int, float, int]:
    """Width, height, standard deviation of luminance, and the number of distinct colours."""
    width, height, rows = read_png(path)
    bpp = len(rows[0]) // width
    lum, colours = [], set()
    for row in rows[::4]:
        for i in range(0, len(row), bpp * 4):
            r, g, b = row[i], row[i + 1], row[i + 2]
            colours.add((r, g, b))
            lum.append(0.299 * r + 0.587 * g + 0.114 * b)
    mean = sum(lum) / len(lum)
    std = (sum((v - mean) ** 2 for v in lum) / len(lum)) ** 0.5
    return width, height, std, len(colours)
