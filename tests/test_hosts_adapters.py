"""Adapter launches, built without running any CLI: argv, environment, config files, stubs and links."""

from __future__ import annotations

import json
import subprocess
import tomllib
from pathlib import Path

import pytest

from workbench.core.errors import InputError
from workbench.hosts import ADAPTERS, RunSpec, adapter
from workbench.hosts.base import FAKE_KEY, clean_env
from workbench.hosts.stubs import FAKE_ISSUE_URL, FAKE_PR_URL

URL = "http://127.0.0.1:4567"


def spec(tmp_path: Path, model: str = "scripted", **kw) -> RunSpec:  # type: ignore[no-untyped-def]
    return RunSpec("Do it.", tmp_path / "repo", tmp_path, Path("/opt/bin/host"), model,
                   URL if model == "scripted" else None, **kw)


OUTER = {"PATH": "/usr/bin", "HOME": "/home/user", "ANTHROPIC_API_KEY": "real", "CLAUDECODE": "1", "CODEX_HOME": "/x",
         "OPENAI_BASE_URL": "u", "GEMINI_API_KEY": "g", "GOOGLE_CLOUD_PROJECT": "p", "OPENCODE_CONFIG": "c",
         "XAI_API_KEY": "x", "GROK_MODEL": "m", "HTTPS_PROXY": "h", "http_proxy": "h", "NO_PROXY": "n",
         "XDG_CONFIG_HOME": "/home/user/.config", "LANG": "C.UTF-8"}


SECRETS = {"GITHUB_TOKEN": "ghp-x", "AWS_SECRET_ACCESS_KEY": "aws-x", "AZURE_OPENAI_API_KEY": "az-x",
           "OPENROUTER_API_KEY": "or-x", "NPM_TOKEN": "npm-x", "SSH_AUTH_SOCK": "/tmp/agent"}


def test_clean_env_keeps_only_the_allow_list() -> None:
    assert clean_env({**OUTER, **SECRETS, "LC_ALL": "C"}) == {"PATH": "/usr/bin", "HOME": "/home/user", "LANG": "C.UTF-8",
                                                             "LC_ALL": "C"}


@pytest.mark.parametrize("host", sorted(ADAPTERS))
@pytest.mark.parametrize("model", ["scripted", "real-model"])
def test_no_secret_variable_reaches_any_host(host: str, model: str, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {**OUTER, **SECRETS}.items():
        monkeypatch.setenv(name, value)
    ad = adapter(host)
    try:
        launch = ad.build(spec(tmp_path, model))
    except InputError:
        return  # grok refuses scripted runs
    assert not set(SECRETS) & set(launch.env_names()), launch.env_names()
    assert not set(SECRETS.values()) & set(launch.env.values())
    passed = {n for n in OUTER if n in launch.env and launch.env[n] == OUTER[n]}
    assert passed <= {"PATH", "LANG", *(ad.auth_env if model != "scripted" else ())}, passed
    assert launch.secret_env == (frozenset(n for n in ad.auth_env if n in OUTER) if model != "scripted"
                                 else frozenset())


@pytest.mark.parametrize("host", ["claude", "codex", "opencode", "gemini"])
def test_env_is_cleaned_then_set_per_host(host: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in OUTER.items():
        monkeypatch.setenv(name, value)
    launch = adapter(host).build(spec(tmp_path))
    env = launch.env
    assert env["HOME"] == str(tmp_path / "home") and env["TMPDIR"] == str(tmp_path / "tmp")
    assert env["PATH"].startswith(f"{tmp_path / 'bin'}:")
    assert env["PWD"] == str(tmp_path / "repo") and launch.cwd == tmp_path / "repo"
    leaked = {k: v for k, v in env.items() if k in OUTER and k not in ("PATH", "HOME", "LANG")}
    assert all(v != OUTER[k] for k, v in leaked.items()), leaked
    assert not any(k.lower().endswith("_proxy") for k in env)


def test_claude_prompt_comes_before_add_dir(tmp_path: Path) -> None:
    launch = adapter("claude").build(spec(tmp_path, add_dirs=(Path("/plugin"),)))
    assert launch.argv == ["/opt/bin/host", "Do it.", "-p", "--output-format", "stream-json", "--verbose",
                           "--permission-mode", "acceptEdits", "--add-dir", str(tmp_path / "repo"), "/plugin"]
    assert launch.env["ANTHROPIC_BASE_URL"] == URL and launch.env["ANTHROPIC_API_KEY"]
    assert launch.env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] == "1"


def test_claude_real_model_links_login_files(tmp_path: Path) -> None:
    login = tmp_path / "userhome"
    (login / ".claude").mkdir(parents=True)
    (login / ".claude" / ".credentials.json").write_text("{}")
    (login / ".claude.json").write_text("{}")
    run = RunSpec("Do it.", tmp_path / "repo", tmp_path / "run", Path("/opt/claude"), "claude-sonnet-4-5",
                  login_home=login)
    launch = adapter("claude").build(run)
    assert "ANTHROPIC_BASE_URL" not in launch.env and launch.argv[-2:] == ["--model", "claude-sonnet-4-5"]
    launch.materialize()
    creds = run.home / ".claude" / ".credentials.json"
    assert creds.is_symlink() and creds.resolve() == (login / ".claude" / ".credentials.json").resolve()
    assert (run.home / ".claude.json").is_symlink()


def test_scripted_run_links_no_login_files(tmp_path: Path) -> None:
    login = tmp_path / "userhome"
    (login / ".codex").mkdir(parents=True)
    (login / ".codex" / "auth.json").write_text("{}")
    run = RunSpec("x", tmp_path / "repo", tmp_path / "run", Path("/opt/codex"), "scripted", URL, login_home=login)
    assert not any(str(p).endswith("auth.json") for p in adapter("codex").build(run).links)


def test_codex_config_and_sandbox_alias(tmp_path: Path) -> None:
    launch = adapter("codex").build(spec(tmp_path))
    assert launch.argv == ["/opt/bin/host", "exec", "--json", "-s", "workspace-write", "--skip-git-repo-check",
                           "Do it."]
    codex_home = tmp_path / "home" / ".codex"
    assert launch.env["CODEX_HOME"] == str(codex_home)
    config = tomllib.loads(launch.files[codex_home / "config.toml"])
    provider = config["model_providers"][config["model_provider"]]
    assert provider["base_url"] == f"{URL}/v1" and provider["wire_api"] == "responses"
    assert provider["request_max_retries"] == 0 and launch.env[provider["env_key"]]
    assert config["model"] == "gpt-5.5" and config["approval_policy"] == "never"
    assert config["analytics"] == {"enabled": False}
    assert config["features"] == {"plugins": False, "remote_plugin": False, "apps": False}
    assert tmp_path / "bin" / "codex-linux-sandbox" in launch.links


def test_opencode_config(tmp_path: Path) -> None:
    launch = adapter("opencode").build(spec(tmp_path))
    assert launch.argv == ["/opt/bin/host", "run", "--print-logs", "--log-level", "ERROR", "--format", "json", "Do it."]
    config = json.loads(launch.files[Path(launch.env["OPENCODE_CONFIG"])])
    provider_name, model = config["model"].split("/")
    provider = config["provider"][provider_name]
    assert provider["npm"] == "@ai-sdk/openai-compatible" and provider["options"]["baseURL"] == f"{URL}/v1"
    assert provider["models"][model]["tool_call"] is True
    assert config["experimental"]["continue_loop_on_deny"] is True
    assert launch.env["OPENCODE_DISABLE_MODELS_FETCH"] == "1"
    assert launch.env["npm_config_registry"].startswith("http://127.0.0.1:")


def test_gemini_argv_and_settings(tmp_path: Path) -> None:
    launch = adapter("gemini").build(spec(tmp_path))
    assert launch.argv == ["/opt/bin/host", "-p", "Do it.", "-o", "stream-json", "--skip-trust", "--approval-mode",
                           "auto_edit", "--allowed-tools", "run_shell_command,activate_skill", "-m", "gemini-2.5-pro"]
    assert launch.env["GOOGLE_GEMINI_BASE_URL"] == URL and launch.env["GEMINI_API_KEY"]
    settings = json.loads(launch.files[tmp_path / "home" / ".gemini" / "settings.json"])
    assert settings["security"]["auth"]["selectedType"] == "gemini-api-key"
    assert settings["privacy"]["usageStatisticsEnabled"] is False and settings["telemetry"]["enabled"] is False
    assert settings["general"]["disableAutoUpdate"] is True and settings["skills"]["enabled"] is True


def test_grok_scripted_env_only_and_started_outside_the_repo(tmp_path: Path) -> None:
    launch = adapter("grok").build(spec(tmp_path))
    assert launch.argv == ["/opt/bin/host", "-p", "Do it.", "-d", str(tmp_path / "repo"), "-m", "grok-code-fast-1",
                           "--max-tool-rounds", "40"]  # no -u/-k: they print to stdout and write settings
    assert launch.env["GROK_BASE_URL"] == f"{URL}/v1" and launch.env["GROK_API_KEY"] == FAKE_KEY
    assert launch.env["MORPH_API_KEY"] == "" and launch.env["HOME"] == str(tmp_path / "home")
    assert launch.cwd == tmp_path / "tmp"  # not the repo: the client loads the start directory's .env
    assert tmp_path / "bin" / "grok" not in launch.files and tmp_path / "bin" / "gh" in launch.files
    assert launch.links == {}


def test_grok_real_model_takes_the_outer_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XAI_API_KEY", "xai-real")
    monkeypatch.delenv("GROK_API_KEY", raising=False)
    launch = adapter("grok").build(spec(tmp_path, model="grok-4"))
    assert launch.argv[launch.argv.index("-m") + 1] == "grok-4" and "GROK_BASE_URL" not in launch.env
    assert launch.env["GROK_API_KEY"] == "xai-real"


def test_unknown_host_is_input_error() -> None:
    with pytest.raises(InputError, match="unknown host 'nope'"):
        adapter("nope")
    assert set(ADAPTERS) == {"claude", "codex", "opencode", "gemini", "grok", "sim"}


@pytest.mark.parametrize(("args", "out", "code"), [
    (["pr", "create", "--fill"], FAKE_PR_URL, 0),
    (["issue", "create", "-t", "x"], FAKE_ISSUE_URL, 0),
    (["pr", "list"], "", 1),
    (["auth", "status"], "", 1),
])
def test_gh_stub(tmp_path: Path, args: list[str], out: str, code: int) -> None:
    launch = adapter("claude").build(spec(tmp_path))
    launch.materialize()
    done = subprocess.run([str(tmp_path / "bin" / "gh"), *args], capture_output=True, text=True, check=False)
    assert (done.stdout.strip(), done.returncode) == (out, code)
    if code:
        assert "workbench stub" in done.stderr
    grok = subprocess.run([str(tmp_path / "bin" / "grok"), "-p", "x"], capture_output=True, text=True, check=False)
    assert grok.returncode == 1 and grok.stdout == ""


def make_plugin(root: Path, manifest: bool) -> Path:
    """A plugin copy with two skills; MANIFEST adds `.claude-plugin/plugin.json`."""
    for name in ("ops", "review"):
        (root / "skills" / name).mkdir(parents=True)
        (root / "skills" / name / "SKILL.md").write_text(f"---\nname: {name}\n---\n")
    (root / "skills" / "notes").mkdir()  # no SKILL.md: not a skill
    if manifest:
        (root / ".claude-plugin").mkdir()
        (root / ".claude-plugin" / "plugin.json").write_text('{"name": "demo"}')
    return root


@pytest.mark.parametrize(("host", "rel"), [("codex", ".codex/skills"), ("opencode", ".config/opencode/skills"),
                                           ("gemini", ".gemini/skills"), ("claude", ".claude/skills")])
def test_plugin_skills_are_linked_where_the_host_finds_user_skills(host: str, rel: str, tmp_path: Path) -> None:
    plugin = make_plugin(tmp_path / "plugin", manifest=False)
    launch = adapter(host).build(spec(tmp_path, plugin=plugin))
    skill_links = {k: v for k, v in launch.links.items() if "skills" in k.parts}
    home = tmp_path / "home"
    assert skill_links == {home / rel / "ops": plugin / "skills" / "ops",
                           home / rel / "review": plugin / "skills" / "review"}
    assert "--plugin-dir" not in launch.argv
    launch.materialize()
    assert (home / rel / "ops" / "SKILL.md").read_text() == "---\nname: ops\n---\n"
    assert (home / rel / "ops").is_symlink()  # the plugin copy itself, never a second copy


def test_claude_loads_a_claude_plugin_with_plugin_dir(tmp_path: Path) -> None:
    plugin = make_plugin(tmp_path / "plugin", manifest=True)
    launch = adapter("claude").build(spec(tmp_path, plugin=plugin))
    assert launch.argv[-2:] == ["--plugin-dir", str(plugin)]
    assert not any("skills" in k.parts for k in launch.links)  # not also as user skills
    assert launch.argv.index("--plugin-dir") > launch.argv.index("--add-dir")


def test_no_plugin_no_skill_links(tmp_path: Path) -> None:
    for host in ("claude", "codex", "opencode", "gemini"):
        assert not any("skills" in k.parts for k in adapter(host).build(spec(tmp_path)).links)


def test_sim_launch(tmp_path: Path) -> None:
    plugin = make_plugin(tmp_path / "plugin", manifest=True)
    script = tmp_path / "script.json"
    launch = adapter("sim").build(RunSpec("Do it.", tmp_path / "repo", tmp_path, Path("/py"), "scripted",
                                          plugin=plugin, script_file=script, fault="no-output", seed=3))
    assert launch.argv == ["/py", "-m", "workbench.sim", "--prompt", "Do it.", "--repo", str(tmp_path / "repo"),
                           "--home", str(tmp_path / "home"), "--seed", "3", "--plugin", str(plugin),
                           "--script", str(script), "--fault", "no-output"]
    assert launch.env["HOME"] == str(tmp_path / "home") and tmp_path / "bin" / "gh" in launch.files
    policy = adapter("sim").build(RunSpec("Do it.", tmp_path / "repo", tmp_path, Path("/py"), "m-1"))
    assert policy.argv[-2:] == ["--model", "m-1"] and "--script" not in policy.argv
