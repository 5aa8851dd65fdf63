"""End to end: the real `workbench` command in a pseudo-terminal of 120x40 — rows, select, `c`, verdict."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import sys
import time
from pathlib import Path

import pexpect
from tui_support import make_workspace

VERDICT = re.compile(r"verdict:\s+(fired|skip|read-noaction|skip-noaction|opened|clean|no-output)")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][0-9A-Za-z]|\x1b[=>]")


def screen_until(child: pexpect.spawn, pattern: re.Pattern[str], cap: float) -> re.Match[str]:
    """Read the terminal stream until PATTERN shows in its text (escapes removed); fail after CAP s."""
    seen = ""
    end = time.monotonic() + cap
    while time.monotonic() < end:
        with contextlib.suppress(pexpect.TIMEOUT):
            seen += child.read_nonblocking(65536, timeout=0.5)
        found = pattern.search(ANSI.sub("", seen))
        if found:
            return found
    raise AssertionError(f"{pattern.pattern!r} not on screen; last text: {ANSI.sub('', seen)[-400:]!r}")


def test_workbench_starts_on_rows_and_c_shows_the_verdict(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    exe = shutil.which("workbench", path=str(Path(sys.executable).parent))
    assert exe is not None
    # unbuffered stdio, as in many containers (and CI): a frame torn by a signal fails the strict decode
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "120", "LINES": "40", "PYTHONUNBUFFERED": "1"}
    child = pexpect.spawn(exe, cwd=str(ws.root), env=env, dimensions=(40, 120), encoding="utf-8", timeout=60)
    try:
        child.expect("Rows")
        child.expect("pull-request")
        child.send("\x1b[B")  # down: select the next row
        child.send("\x1b[A")  # and back up to the first row with a positive case
        child.send("c")
        child.expect("Canary")
        verdict = screen_until(child, VERDICT, 120).group(1)
        child.send("q")
        child.expect(pexpect.EOF, timeout=20)
    finally:
        child.close(force=True)
    assert verdict in {"fired", "skip", "read-noaction", "skip-noaction"}
    assert (ws.records_dir / "canary.jsonl").is_file()


class Tmux:
    """A private tmux server (its own socket) running one command in an 80x24 window."""

    def __init__(self, socket: str, cwd: Path, command: str, size: tuple[int, int] = (80, 24)) -> None:
        import subprocess

        self.run = lambda *args: subprocess.run(["tmux", "-L", socket, *args], check=True, capture_output=True,
                                                text=True).stdout
        env = {**os.environ, "TERM": "xterm-256color"}
        env.pop("TMUX", None)
        subprocess.run(["tmux", "-L", socket, "-f", "/dev/null", "new-session", "-d", "-s", "wb", "-x", str(size[0]),
                        "-y", str(size[1]), "-c", str(cwd), command], check=True, env=env)

    def keys(self, *keys: str, literal: bool = False) -> None:
        self.run("send-keys", "-t", "wb", *(["-l"] if literal else []), *keys)

    def cursor(self) -> tuple[int, int]:
        x, y = self.run("display-message", "-p", "-t", "wb", "#{cursor_x} #{cursor_y}").split()
        return int(x), int(y)

    def wait_cursor(self, moved_from: tuple[int, int], columns: int, cap: float) -> None:
        """Until the cursor stands COLUMNS right of MOVED_FROM on its line (the keys were taken)."""
        end = time.monotonic() + cap
        while time.monotonic() < end:
            if self.cursor() == (moved_from[0] + columns, moved_from[1]):
                return
            time.sleep(0.1)
        raise AssertionError(f"the cursor stayed at {self.cursor()} (wanted {columns} right of {moved_from})")

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", "wb")

    def wait(self, pattern: str, cap: float, *, footer: bool = True) -> str:
        """The screen once PATTERN shows on it with its footer drawn (FOOTER: the app's; fails after CAP seconds)."""
        end = time.monotonic() + cap
        text = ""
        while time.monotonic() < end:
            text = self.screen()
            if re.search(pattern, text) and (not footer or "palette" in text.rstrip("\n").split("\n")[-1]):
                return text  # the footer is drawn too: the screen is whole
            time.sleep(0.2)
        raise AssertionError(f"{pattern!r} not on screen:\n{text}")

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.run("kill-server")


def fits(text: str, size: tuple[int, int] = (80, 24)) -> None:
    lines = text.rstrip("\n").split("\n")
    assert len(lines) <= size[1] and all(len(line) <= size[0] for line in lines), text
    assert "Trigger Workbench" in lines[0] or "—" in lines[0], "the header is on screen"
    assert "^p" in lines[-1] or "palette" in lines[-1], "the footer is on screen"


def test_draft_canary_then_promote_to_a_finished_batch_in_tmux_at_80x24(tmp_path: Path) -> None:
    """As a user at 80x24: edit a row, `c` runs the draft on sim, `b` saves it as an arm and the
    batch of baseline vs it finishes; every screen fits with header and footer."""
    if shutil.which("tmux") is None:
        import pytest

        pytest.skip("tmux is not installed")
    ws = make_workspace(tmp_path)
    exe = shutil.which("workbench", path=str(Path(sys.executable).parent))
    assert exe is not None
    tmux = Tmux(f"wb-test-{os.getpid()}", ws.root, exe)
    try:
        # the editor holds the row's wording (not only the table its id): keys typed into an editor the
        # row's text is still to be loaded into were dropped under load
        fits(tmux.wait(r"│ \| Before committing \|", 60))
        tmux.keys("e")
        tmux.wait(r"\^s save arm\s+▏", 20)  # the editor has focus: the footer shows only what acts there
        start = tmux.cursor()
        tmux.keys("Right", "Right")
        tmux.wait_cursor(start, 2, 20)  # under load keys sent before the editor took them were lost
        tmux.keys("Always: ", literal=True)
        fits(tmux.wait(r"modified: unsaved draft", 20))
        tmux.keys("Escape")
        tmux.wait(r"c canary", 20)  # back on the table (a key right after escape would read as alt+key)
        tmux.keys("c")
        text = tmux.wait(r"verdict:\s+(fired|skip|read-noaction|skip-noaction)", 120)
        fits(text)
        assert "draft of ops/commit" in text, text
        tmux.keys("1")
        tmux.wait(r"c canary", 20)
        tmux.keys("b")
        tmux.wait(r"Save this wording as arm", 20)
        tmux.keys("Enter")
        fits(tmux.wait(r"promote row ops/commit: baseline vs commit-1", 30))
        tmux.keys("C-r")
        text = tmux.wait(r"batch ended: complete", 600)
        fits(text)
        assert "commit-1" in text and "record(s) of this plan in" in text, text
    finally:
        tmux.close()
    canary = [r for r in (ws.records_dir / "canary.jsonl").read_text().splitlines() if r]
    assert len(canary) == 1 and '"arm":"draft"' in canary[0].replace(" ", "")
    assert "Always:" not in (ws.plugin_dir / "skills/ops/SKILL.md").read_text(), "the draft never touched the file"


def test_o_opens_the_row_in_the_users_editor_and_its_lint_follows_on_return(tmp_path: Path, monkeypatch: object,
                                                                          capsys: object) -> None:
    """`o` on a row hands the terminal to $EDITOR (here vi) at the row's line; on return the table, the
    editor and the lint are the file's, the same findings `workbench lint` gives for that row."""
    import json

    import pytest

    from workbench.cli import main

    if shutil.which("tmux") is None or shutil.which("vi") is None:
        pytest.skip("tmux or vi is not installed")
    ws = make_workspace(tmp_path)
    exe = shutil.which("workbench", path=str(Path(sys.executable).parent))
    assert exe is not None
    size = (160, 45)  # wide: the findings are not cut to two lines
    tmux = Tmux(f"wb-editor-{os.getpid()}", ws.root, f"env -u VISUAL EDITOR='vi -u NONE -n' {exe}", size)
    try:
        tmux.wait(r"│ \| Before committing \|", 60)
        tmux.keys("o")
        tmux.wait(r'SKILL\.md"', 30, footer=False)  # vi has the terminal, the file's name on its last line
        tmux.keys(":s/Before committing/When there are staged changes/", literal=True)
        tmux.keys("Enter")
        tmux.keys(":wq", literal=True)
        tmux.keys("Enter")
        text = tmux.wait(r"state-trigger", 30)
        fits(text, size)
        assert "When there are staged" in text and "wording (as in the file)" in text, text
    finally:
        tmux.close()
    assert "| When there are staged changes |" in (ws.plugin_dir / "skills/ops/SKILL.md").read_text()
    monkeypatch.chdir(ws.root)  # type: ignore[attr-defined]
    capsys.readouterr()  # type: ignore[attr-defined]
    main(["lint", "--json"])
    findings = json.loads(capsys.readouterr().out)["findings"]  # type: ignore[attr-defined]
    rules = {f["rule"] for f in findings if f.get("row") == "ops/commit"}
    assert "state-trigger" in rules, findings
    from workbench.core.lint_rules import MOMENT_RULE, RULES

    shown = {rule.id for rule in (*RULES, MOMENT_RULE) if re.search(rf"\b{re.escape(rule.id)}\b", text)}
    assert shown == rules, text
