"""`offered`: a row whose entry skill never reached the model makes the run invalid (`not-offered`),
never a `skip`. Judged on the real Claude Code CLI against the scripted model server, whose request
log says what each request listed."""

from __future__ import annotations

import shutil
from pathlib import Path

from workbench.core.cases import find_case
from workbench.hosts.install import find_binary
from workbench.modelstub import parse_script
from workbench.runner.execute import execute
from workbench.runner.request import build_request

ROOT = Path(__file__).resolve().parent.parent
CASE = find_case("docs-readme-section", ROOT / "cases")
EDIT_ONLY = parse_script({"steps": [
    {"calls": [{"edit": {"path": "{repo}/README.md", "old": "# greeter", "new": "# greeter\n\nTests: pytest."}}]},
    {"say": "Done."},
]})


def canary(plugin: Path, hosts_dir: Path):  # type: ignore[no-untyped-def]
    req = build_request(CASE, "claude", door="canary", plugin=plugin, fixture=ROOT / "fixtures" / "base",
                        script=EDIT_ONLY, binary=find_binary("claude", hosts_dir), timeout=120.0)
    return execute(req).record


def test_a_listed_row_is_offered_and_scored(installed_hosts: Path) -> None:
    record = canary(ROOT / "plugin", installed_hosts)
    assert record.offered == {CASE.target: True}
    assert (record.valid, record.invalid_reason, record.overall) == (True, None, "skip")


def test_a_row_the_host_never_listed_is_not_offered_never_a_skip(tmp_path: Path, installed_hosts: Path) -> None:
    plugin = tmp_path / "plugin"
    shutil.copytree(ROOT / "plugin", plugin)
    skill = plugin / "skills" / "ops" / "SKILL.md"
    skill.write_text(skill.read_text().replace("name: ops\n", "name: ops\ndisable-model-invocation: true\n", 1))
    record = canary(plugin, installed_hosts)
    assert record.offered == {CASE.target: False}, record.entry
    assert (record.valid, record.invalid_reason) == (False, "not-offered")


def test_real_claude_writes_its_request_bodies_and_only_hashes_and_listed_skills_are_kept(
        tmp_path: Path, installed_hosts: Path) -> None:
    """Claude Code 2.1.197 honours OTEL_LOG_RAW_API_BODIES=file:<dir> (no telemetry switch needed):
    driven here against the model server with the switch the adapter sets on real-model runs."""
    import os
    import subprocess

    from workbench.hosts.claude import API_BODIES
    from workbench.modelstub.server import ModelServer
    from workbench.runner.api_bodies import offered_entries

    run_dir = tmp_path / "run"
    for sub in ("home", "repo", "tmp"):
        (run_dir / sub).mkdir(parents=True)
    with ModelServer(parse_script({"steps": [{"say": "Done."}]})) as server:
        env = {"PATH": os.environ["PATH"], "HOME": str(run_dir / "home"), "ANTHROPIC_BASE_URL": server.url,
               "ANTHROPIC_API_KEY": "sk-test", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
               "OTEL_LOG_RAW_API_BODIES": f"file:{run_dir / API_BODIES}"}
        done = subprocess.run([str(find_binary("claude", installed_hosts)), "hi", "-p", "--output-format",
                               "stream-json", "--verbose", "--plugin-dir", str(ROOT / "plugin")],
                              cwd=run_dir / "repo", env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert list((run_dir / API_BODIES).glob("*.request.json")), "the host wrote no request body"
    entries = offered_entries(run_dir)
    assert entries and all(len(e["sha256"]) == 64 and e["source"] == "api-body" for e in entries)
    assert any("demo-ops:ops" in e["skills"] for e in entries), entries
    assert not any((run_dir / API_BODIES).iterdir()), "the bodies are removed once read"


def _long_description(plugin: Path, words: int) -> str:
    """Give the ops skill a description of WORDS extra words (one YAML line); return it."""
    skill = plugin / "skills" / "ops" / "SKILL.md"
    text = skill.read_text()
    head, rest = text.split("description: ", 1)
    old, tail = rest.split("\n", 1)
    new = old + " " + " ".join(f"step{i} of the release checklist" for i in range(words))
    skill.write_text(f"{head}description: {new}\n{tail}")
    return new


def test_a_description_the_host_clipped_did_not_offer_the_row(tmp_path: Path, installed_hosts: Path) -> None:
    """Claude Code clips a long description in its listing: the name is listed, the row is not whole,
    so the run is invalid `not-offered`; the same plugin with a short description is offered."""
    plugin = tmp_path / "plugin"
    shutil.copytree(ROOT / "plugin", plugin)
    description = _long_description(plugin, 150)
    assert len(description) > 4000
    record = canary(plugin, installed_hosts)
    assert record.entry is not None and "demo-ops:ops" in record.entry.offered_skills, record.entry
    assert record.offered == {CASE.target: False}
    assert (record.valid, record.invalid_reason) == (False, "not-offered")


def test_the_transcript_listing_proves_the_row_when_no_request_was_logged(tmp_path: Path,
                                                                          installed_hosts: Path) -> None:
    """Without the model server's log or request bodies, Claude's own transcript (`skill_listing`)
    under the run's HOME says what was offered, description included; a clipped one does not count."""
    import os
    import subprocess

    from workbench.modelstub.server import ModelServer
    from workbench.runner.api_bodies import transcript_entries
    from workbench.runner.execute import entry_description, reached_model
    from workbench.runner.hostrun import HostRun

    def listed(plugin: Path) -> bool | None:
        run_dir = tmp_path / f"run-{plugin.name}"
        for sub in ("home", "repo"):
            (run_dir / sub).mkdir(parents=True)
        with ModelServer(parse_script({"steps": [{"say": "Done."}]})) as server:
            env = {"PATH": os.environ["PATH"], "HOME": str(run_dir / "home"), "ANTHROPIC_BASE_URL": server.url,
                   "ANTHROPIC_API_KEY": "sk-test", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}
            done = subprocess.run([str(find_binary("claude", installed_hosts)), "hi", "-p", "--output-format",
                                   "stream-json", "--verbose", "--plugin-dir", str(plugin)],
                                  cwd=run_dir / "repo", env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr[-2000:]
        entries = transcript_entries(run_dir)
        assert entries and all(len(e["sha256"]) == 64 for e in entries), entries
        run = HostRun.__new__(HostRun)
        run.offered, run.entry_description = entries, entry_description(plugin, "ops")
        return reached_model(run, "ops")

    short = tmp_path / "short"
    shutil.copytree(ROOT / "plugin", short)
    long = tmp_path / "long"
    shutil.copytree(ROOT / "plugin", long)
    _long_description(long, 150)
    assert listed(short) is True
    assert listed(long) is False


def test_codex_rollout_keeps_the_listing_the_model_got(tmp_path: Path, installed_hosts: Path) -> None:
    """Codex's rollout in the run's own CODEX_HOME holds the developer message with its skills block:
    read as a transcript it proves the row (description whole) as the model server's log does."""
    from workbench.runner.api_bodies import transcript_entries
    from workbench.runner.execute import reached_model

    req = build_request(CASE, "codex", door="canary", plugin=ROOT / "plugin", fixture=ROOT / "fixtures" / "base",
                        script=EDIT_ONLY, binary=find_binary("codex", installed_hosts), timeout=120.0, keep=True,
                        workdir=tmp_path)
    result = execute(req)
    assert result.record.offered == {CASE.target: True}, result.record.entry
    entries = transcript_entries(result.run_dir)
    assert [e["source"] for e in entries] == ["transcript"] and "demo-ops:ops" in entries[0]["skills"], entries
    result.run.offered = entries
    assert reached_model(result.run, "ops") is True
    result.run.entry_description = (result.run.entry_description or "") + " and a clause the host never sent"
    assert reached_model(result.run, "ops") is False


def test_codex_listing_model_equals_what_reached_the_model(tmp_path: Path, installed_hosts: Path) -> None:
    """The Codex rule of `core.listing`, against the listing the real Codex 0.171.0 sent the model server:
    201 Skills of ~300 characters (over the budget: descriptions shortened) and one of 1,500 (over the
    1,024 cap), at the served model's window (gpt-5.5: 272,000 in the host's catalog). Skill for Skill,
    the model's shown text is what the host listed, and the gates' default window (272,000) is the same.
    Known: at some run-folder path lengths the model is one token stricter than the host (docs/authoring.md),
    so one description may be cut by at most 4 characters more; it never shows more than the host."""
    from workbench.core.listing import Entry, listing
    from workbench.core.offered import skill_description

    plugin = tmp_path / "plugin"
    shutil.copytree(ROOT / "plugin", plugin)
    for i in range(201):
        words = " ".join(f"step {i}.{k} of the release checklist" for k in range(250 if i == 7 else 50))
        text = f"Before you tag release {i}, follow this procedure for {words}"[:1_500 if i == 7 else 300]
        (plugin / "skills" / f"rel-{i:03d}").mkdir()
        (plugin / "skills" / f"rel-{i:03d}" / "SKILL.md").write_text(
            f"---\nname: rel-{i:03d}\ndescription: {text}\n---\n\n# Release {i}\n")
    entries = [Entry(f"demo-ops:{f.parent.name}", f, skill_description(f.read_text()) or "")
               for f in sorted(plugin.glob("skills/*/SKILL.md"))]
    req = build_request(CASE, "codex", door="canary", plugin=plugin, fixture=ROOT / "fixtures" / "base",
                        script=EDIT_ONLY, binary=find_binary("codex", installed_hosts), timeout=120.0,
                        workdir=tmp_path)
    result = execute(req)
    run = result.run
    sent = next(e["rows"] for e in run.offered if e.get("scripted"))
    host = {name: text for name, text in sent.items() if name.startswith("demo-ops:")}
    model = listing("codex", entries, context_tokens=272_000,
                    skills_root=str(result.run_dir / "home" / ".codex" / "skills"))  # a long pytest path
    assert not model.dropped and set(model.shown) == set(host), sorted(set(model.shown) ^ set(host))
    shown = {n: t.rstrip() for n, t in model.shown.items()}  # the host's parser drops a trailing space
    stricter = {n: len(host[n]) - len(t) for n, t in shown.items() if t != host[n]}
    assert all(host[n].startswith(shown[n]) for n in stricter) and len(stricter) <= 1 and \
        sum(stricter.values()) <= 4, stricter
    assert sorted(model.clipped) == sorted(n for n, t in host.items() if t != model.full[n]) and \
        len(model.clipped) == 202, len(model.clipped)
    assert len(model.full["demo-ops:rel-007"]) == 1_500
    default = listing("codex", entries, skills_root=str(result.run_dir / "home" / ".codex" / "skills"))
    assert default.shown == model.shown, "the gates' default window is the one the host assumed"
