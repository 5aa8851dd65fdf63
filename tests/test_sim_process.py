"""The sim as a real process: it streams line by line, and it changes nothing outside the repo."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

from sim_support import Dirs, make_dirs, script_file

from workbench.core.parsers import parse_lines


def snapshot(root: Path, skip: Path) -> dict[str, tuple[int, str]]:
    """Every file and folder under ROOT except SKIP: mode and content hash."""
    out: dict[str, tuple[int, str]] = {}
    for path in sorted(root.rglob("*")):
        if path == skip or skip in path.parents:
            continue
        digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "dir"
        out[str(path.relative_to(root))] = (path.stat().st_mode, digest)
    return out


def sim_process(dirs: Dirs, *args: str, prompt: str) -> subprocess.Popen[str]:
    """`python -m workbench.sim` in its own cwd, HOME and TMPDIR under the test folder."""
    (dirs.root / "cwd").mkdir(exist_ok=True)
    (dirs.root / "tmp").mkdir(exist_ok=True)
    env = {**os.environ, "HOME": str(dirs.home), "TMPDIR": str(dirs.root / "tmp"), "PYTHONDONTWRITEBYTECODE": "1",
           "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    argv = [sys.executable, "-m", "workbench.sim", "--prompt", prompt, "--repo", str(dirs.repo),
            "--plugin", str(dirs.plugin), "--outside", str(dirs.outside), *args]
    return subprocess.Popen(argv, cwd=dirs.root / "cwd", env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def test_writes_only_inside_the_repo(tmp_path: Path) -> None:
    dirs = make_dirs(tmp_path)
    (tmp_path / "cwd").mkdir()
    (tmp_path / "tmp").mkdir()
    steps = [{"calls": [{"skill": "ops"}, {"read": "{plugin}/skills/ops/workflows/commit.md"}]},
             {"calls": [{"shell": "echo hi > out.txt && git add -A && git commit -qm shell"}]},
             {"calls": [{"write": {"path": "{repo}/new.md", "content": "new\n"}},
                        {"edit": {"path": "{repo}/notes.txt", "old": "todo", "new": "done"}}]}]
    path = script_file(dirs, steps)
    before = snapshot(tmp_path, dirs.repo)
    for args, prompt in [(["--script", path], "Do it"), (["--policy", "--seed", "3"], "Commit the notes change"),
                         (["--policy"], "Fix the typo in README.md")]:
        proc = sim_process(dirs, *args, prompt=prompt)
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        run = parse_lines("sim", out.splitlines())
        assert run.calls and not run.skipped and all(c.status == "ok" for c in run.calls), run.calls
    assert snapshot(tmp_path, dirs.repo) == before
    assert (dirs.repo / "out.txt").read_text() == "hi\n" and (dirs.repo / "new.md").exists()
    assert (dirs.repo / "notes.txt").read_text() == "notes\nstatus: done\n"


def test_stream_is_flushed_line_by_line(tmp_path: Path) -> None:
    """The shell waits for a file the test creates only after it has READ the Bash call from the pipe."""
    dirs = make_dirs(tmp_path)
    path = script_file(dirs, [{"calls": [{"shell": "while [ ! -f go ]; do sleep 0.05; done; echo went"}]}])
    proc = sim_process(dirs, "--script", path, "--timeout", "30", prompt="wait")
    assert proc.stdout is not None
    seen: list[str] = []
    for line in proc.stdout:
        seen.append(line)
        if json.loads(line)["type"] == "assistant" and "tool_use" in line:
            (dirs.repo / "go").touch()
            break
    rest, _ = proc.communicate(timeout=60)
    run = parse_lines("sim", seen + rest.splitlines())
    assert [(c.status, c.result) for c in run.calls] == [("ok", "went")]
