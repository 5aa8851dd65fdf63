"""Finding installed host binaries and the `workbench hosts` command, on fake install trees."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from platformdirs import user_cache_dir

from workbench.cli import main
from workbench.core.errors import InputError
from workbench.hosts.install import (
    find_binary,
    hosts_dir,
    install,
    installed_version,
    pin,
    require_binary,
    status,
)


def fake_install(root: Path, host: str, version: str, script: str = "#!/bin/sh\necho 9.9.9\n") -> Path:
    package = pin(host)[0]
    meta = root / "node_modules" / package / "package.json"
    meta.parent.mkdir(parents=True)
    meta.write_text(json.dumps({"name": package, "version": version}))
    binary = root / "node_modules" / ".bin" / host
    binary.parent.mkdir(parents=True, exist_ok=True)
    binary.write_text(script)
    binary.chmod(0o755)
    return binary


def test_hosts_dir_from_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("WORKBENCH_HOSTS_DIR", str(tmp_path))
    assert hosts_dir() == tmp_path
    monkeypatch.delenv("WORKBENCH_HOSTS_DIR")
    assert hosts_dir() == Path(user_cache_dir("trigger-workbench")) / "hosts"


def test_install_without_npm_is_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no-such-npm.*not found"):
        install(["codex"], tmp_path, npm="no-such-npm")


def test_shim_is_not_taken_for_claude(tmp_path: Path) -> None:
    # Claude Code's .bin shim is a placeholder without its postinstall: only the platform binary counts.
    fake_install(tmp_path, "claude", "2.1.197")
    assert find_binary("claude", tmp_path) is None
    with pytest.raises(InputError, match="claude: no installed binary"):
        require_binary("claude", tmp_path)


def test_status_of_a_fake_codex(tmp_path: Path) -> None:
    binary = fake_install(tmp_path, "codex", "0.171.0")
    row = status("codex", tmp_path)
    assert (row.installed, row.binary, row.version, row.usable) == ("0.171.0", str(binary), "9.9.9", True)
    assert installed_version("gemini", tmp_path) is None


def test_hosts_command_json_and_missing_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fake_install(tmp_path, "gemini", "0.61.0")
    assert main(["hosts", "--json", "--dir", str(tmp_path), "--only", "gemini"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [h["host"] for h in data["hosts"]] == ["gemini"] and data["hosts"][0]["usable"] is True
    assert main(["hosts", "--dir", str(tmp_path), "--only", "gemini", "--only", "codex"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "codex" in err[0] and "gemini" not in err[0]


def test_broken_binary_is_not_usable(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fake_install(tmp_path, "gemini", "0.61.0", script="#!/bin/sh\nexit 1\n")
    assert main(["hosts", "--dir", str(tmp_path), "--only", "gemini"]) == 2
    assert "--version" in capsys.readouterr().err


def test_a_symlinked_hosts_folder_gives_the_real_binary_path(tmp_path: Path) -> None:
    real = tmp_path / "real"
    binary = fake_install(real, "codex", "0.171.0")
    (tmp_path / "link").symlink_to(real)
    assert find_binary("codex", tmp_path / "link") == binary  # a confined run binds real paths, not the link
