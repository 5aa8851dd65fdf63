"""Audit by default: per-host session-start budget, UNINDEXED through prose and procedure links, init guesses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.cli import main
from workbench.core.audit import audit
from workbench.core.routing import parse_files
from workbench.core.session_load import session_load
from workbench.core.workspace import load_workspace

SKILL = "---\nname: {name}\ndescription: Use before {name}ing.\n---\n\n# {name}\n\n{body}\n"


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def plugin_with_hook(root: Path) -> Path:
    """A Claude plugin whose SessionStart hook injects its entry Skill; a GEMINI.md that imports it."""
    return write(root, {
        ".claude-plugin/plugin.json": json.dumps({"name": "p"}),
        "gemini-extension.json": json.dumps({"name": "p", "contextFileName": "GEMINI.md"}),
        "GEMINI.md": "@./skills/using-p/SKILL.md\n",
        "CLAUDE.md": "# Contributor guidelines\n" + "long text " * 500,
        "hooks/hooks.json": json.dumps({"hooks": {"SessionStart": [{"hooks": [{"command": "session-start"}]}]}}),
        "hooks/session-start": '#!/bin/sh\ncat "${PLUGIN_ROOT}/skills/using-p/SKILL.md"\n',
        "skills/using-p/SKILL.md": SKILL.format(name="use", body="Check skills first. " * 40),
        "skills/debug/SKILL.md": SKILL.format(name="debug", body="Body text. " * 400 +
                                              "\nSee `tracing.md` in this directory.\n\n"
                                              "- **`depth.md`** - layers after the root cause\n"),
        "skills/debug/tracing.md": "# Tracing\nAlso read [waiting](waiting.md).\n",
        "skills/debug/waiting.md": "# Waiting\n",
        "skills/debug/depth.md": "# Depth\n",
        "skills/debug/orphan.md": "# Nobody mentions me\n",
    })


def test_budget_counts_what_each_host_loads_not_skill_bodies(tmp_path: Path) -> None:
    plugin = plugin_with_hook(tmp_path)
    routing = sorted(plugin.glob("skills/*/SKILL.md"))
    by_host = {h: {(i.path.relative_to(plugin.resolve()).as_posix(), i.why.split()[0]) for i in
                   session_load(plugin, h, routing=routing, extra=[])} for h in ("claude", "codex", "gemini")}
    assert by_host["claude"] == {("skills/using-p/SKILL.md", "injected"), ("skills/debug/SKILL.md", "Skill")}
    assert by_host["codex"] == {("skills/using-p/SKILL.md", "Skill"), ("skills/debug/SKILL.md", "Skill")}
    assert by_host["gemini"] == {("GEMINI.md", "gemini"), ("skills/using-p/SKILL.md", "imported"),
                                 ("skills/debug/SKILL.md", "Skill")}
    debug = next(i for i in session_load(plugin, "codex", routing=routing, extra=[]) if "debug" in str(i.path))
    assert debug.text.startswith("---\n") and debug.text.endswith("---\n") and "Body text" not in debug.text


@pytest.mark.parametrize(("manifest", "loaded"), [({"name": "p"}, "GEMINI.md"),
                                                   ({"name": "p", "contextFileName": "CONTEXT.md"}, "CONTEXT.md"),
                                                   ({"name": "p", "contextFileName": ["A.md", "CONTEXT.md"]},
                                                    "CONTEXT.md")])
def test_gemini_loads_the_context_file_its_extension_names(tmp_path: Path, manifest: dict[str, object],
                                                           loaded: str) -> None:
    plugin = write(tmp_path, {"gemini-extension.json": json.dumps(manifest), "GEMINI.md": "# g\n",
                              "CONTEXT.md": "# c\n"})
    assert [i.path.name for i in session_load(plugin, "gemini", routing=[], extra=[])] == [loaded]
    assert [i.path.name for i in session_load(plugin, "codex", routing=[], extra=[])] == []


def test_without_a_manifest_the_repo_instruction_file_is_loaded(tmp_path: Path) -> None:
    plugin = write(tmp_path, {"AGENTS.md": "Before committing, read [c](skills/s/c.md).\n",
                              "CLAUDE.md": "See AGENTS.md\n", "skills/s/SKILL.md": SKILL.format(name="s", body=""),
                              "skills/s/c.md": "# c\n"})
    names = {h: [i.path.name for i in session_load(plugin, h, routing=[], extra=[])]
             for h in ("codex", "opencode", "claude")}
    assert names == {"codex": ["AGENTS.md", "SKILL.md"], "opencode": ["AGENTS.md", "SKILL.md"],
                     "claude": ["CLAUDE.md", "SKILL.md"]}


def test_unindexed_follows_prose_code_spans_and_procedure_links(tmp_path: Path) -> None:
    plugin = plugin_with_hook(tmp_path / "p")
    (tmp_path / "workbench.toml").write_text('[plugin]\npath = "p"\nrouting = ["skills/*/SKILL.md"]\n'
                                             'procedures = ["skills/**/*.md"]\n[audit]\ntoken_cap = 100000\n')
    ws = load_workspace(tmp_path)
    report = audit(ws, parse_files(ws.routing_files(), plugin=ws.plugin_dir))
    assert [(f.rule, f.file.name if f.file else None) for f in report.findings] == [("UNINDEXED", "orphan.md")]
    claude = next(b for b in report.budgets if b.host == "claude")
    assert claude.tokens < 1500, "the debug Skill's body and the contributor CLAUDE.md are not loaded"
    assert plugin.is_dir()


def test_audit_prints_one_budget_line_per_host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    plugin_with_hook(tmp_path / "p")
    (tmp_path / "workbench.toml").write_text('[plugin]\npath = "p"\nprocedures = ["skills/**/*.md"]\n')
    monkeypatch.chdir(tmp_path)
    assert main(["audit", "--strict"]) == 1
    out = capsys.readouterr().out
    assert "session start (claude):" in out and "session start (codex):" in out and "orphan.md" in out


def test_init_guesses_from_hook_and_marketplace_and_says_so(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    plugin_with_hook(tmp_path / "p")
    assert main(["init", str(tmp_path / "p")]) == 0
    err = capsys.readouterr().err
    ws = load_workspace(tmp_path / "p")
    assert ws.config.plugin.entry_skill == "using-p" and ws.config.plugin.routing == ["skills/*/SKILL.md"]
    assert "guessed: entry Skill: using-p (its SKILL.md is injected by a SessionStart hook" in err
    market = write(tmp_path / "m", {
        ".claude-plugin/marketplace.json": json.dumps({"plugins": [{"name": "a", "skills": ["./skills/b"]},
                                                                   {"name": "c", "skills": ["./skills/c"]}]}),
        "skills/b/SKILL.md": SKILL.format(name="b", body=""), "skills/c/SKILL.md": SKILL.format(name="c", body="c"),
        "skills/unlisted/SKILL.md": SKILL.format(name="u", body="")})
    assert main(["init", str(market)]) == 0
    err = capsys.readouterr().err
    ws = load_workspace(market)
    assert ws.config.plugin.routing == ["skills/b/SKILL.md", "skills/c/SKILL.md"]
    assert ws.config.plugin.entry_skill is None and "set plugin.entry_skill" in err
    assert "the 2 named in .claude-plugin/marketplace.json" in err
    bare = write(tmp_path / "r", {"AGENTS.md": "Before committing, read [c](skills/s/c.md).\n",
                                  "skills/s/SKILL.md": SKILL.format(name="s", body=""), "skills/s/c.md": "# c\n"})
    assert main(["init", str(bare)]) == 0
    assert load_workspace(bare).config.plugin.routing == ["skills/s/SKILL.md", "AGENTS.md"]


def test_init_takes_a_dual_host_repos_skills_from_its_marketplace_not_its_codex_manifest(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A repo that is a Claude Code marketplace (plugins without a `skills` key: each source's own
    plugin.json `skills`, else its `skills/*/`) and a Codex plugin (`.codex-plugin/plugin.json` naming a
    folder of symlinks to some of them), as alirezarezvani/claude-skills is: init reads the marketplace's
    Skills by their own paths, a Skill's sub-Skills (`sdk/ios/SKILL.md`) as routing files too, and
    leaves out the repo's own `.claude/skills/` and Skills no plugin holds."""
    root = write(tmp_path / "m", {
        ".claude-plugin/marketplace.json": json.dumps({"name": "m", "plugins": [
            {"name": "eng", "source": "./eng"}, {"name": "ops", "source": "./ops"}]}),
        ".codex-plugin/plugin.json": json.dumps({"name": "m", "skills": "./.codex/skills"}),
        "eng/.claude-plugin/plugin.json": json.dumps({"name": "eng", "skills": "./tools"}),
        "eng/tools/review/SKILL.md": SKILL.format(name="review", body=""),
        "ops/skills/deploy/SKILL.md": SKILL.format(name="deploy", body=""),
        "ops/skills/deploy/ios/SKILL.md": SKILL.format(name="deploy-ios", body=""),
        ".claude/skills/release-repo/SKILL.md": SKILL.format(name="release-repo", body=""),
        "drafts/skills/idea/SKILL.md": SKILL.format(name="idea", body="")})
    (root / ".codex/skills").mkdir(parents=True)
    (root / ".codex/skills/review").symlink_to("../../eng/tools/review")
    assert main(["init", str(root)]) == 0
    err = capsys.readouterr().err
    assert load_workspace(root).config.plugin.routing == [
        "eng/tools/review/SKILL.md", "ops/skills/deploy/SKILL.md", "ops/skills/deploy/ios/SKILL.md"]
    assert "the 2 named in .claude-plugin/marketplace.json" in err
    assert "routing: 1 SKILL.md file(s) inside those Skills' folders too" in err


def marketplace(root: Path, plugins: dict[str, int], *, desc: int = 60) -> Path:
    """A marketplace of PLUGINS (name -> Skill count), each Skill's description DESC characters long."""
    entries = [{"name": n, "source": f"./plugins/{n}"} for n in plugins]
    files = {".claude-plugin/marketplace.json": json.dumps({"name": "m", "plugins": entries})}
    for name, count in plugins.items():
        files[f"plugins/{name}/.claude-plugin/plugin.json"] = json.dumps({"name": name})
        for i in range(count):
            text = f"Use before editing {name} part {i}. " + "x" * desc
            files[f"plugins/{name}/skills/s{i}/SKILL.md"] = f"---\nname: s{i}\ndescription: {text}\n---\n# s\n"
    return write(root, files)


def test_listing_and_budget_are_per_plugin_not_per_marketplace(tmp_path: Path) -> None:
    marketplace(tmp_path / "m", {"small": 3, "big": 40}, desc=200)
    (tmp_path / "workbench.toml").write_text('[plugin]\npath = "m"\nrouting = ["plugins/*/skills/*/SKILL.md"]\n'
                                             '[audit]\ntoken_cap = 1500\n')
    ws = load_workspace(tmp_path)
    report = audit(ws, parse_files(ws.routing_files(), plugin=ws.plugin_dir))
    small = [x for x in report.listings if x.plugin == "small"]
    assert {x.host for x in small} == {"claude", "codex"} and all(not x.clipped and len(x.shown) == 3 for x in small)
    big = next(x for x in report.listings if x.plugin == "big" and x.host == "claude")
    assert len(big.shown) == 40 and big.clipped, "40 Skills overflow 8,000 chars: descriptions cut, none installed alone"
    not_offered = [f for f in report.findings if f.rule == "NOT-OFFERED"]
    assert not_offered and all("plugins/big/" in f.file.as_posix() for f in not_offered if f.file)
    budget = [f for f in report.findings if f.rule == "BUDGET"]
    assert budget and all("plugin big" in f.message for f in budget), [f.message for f in budget]
    assert all(f.file and f.file.parent.name != "s0" for f in budget), "filed on the Skill that crosses the cap"
    assert {b.plugin for b in report.budgets} >= {"small", "big"}


def test_a_bang_glob_takes_readmes_out_of_the_procedures_and_init_writes_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A README in a Skill's folder (openai/skills `evaluations/README.md`, vercel's Skill READMEs) is for
    people reading the repo: init writes `"!**/README.md"` after the procedure globs, so it is no
    UNINDEXED procedure; an orphaned guide still is. A `!` glob that takes out nothing is EMPTY-GLOB."""
    root = write(tmp_path / "p", {
        ".claude-plugin/plugin.json": json.dumps({"name": "p"}),
        "skills/s/SKILL.md": SKILL.format(name="s", body="Before a release, read [steps](steps.md).\n"),
        "skills/s/steps.md": "# steps\n", "skills/s/orphan.md": "# orphan\n",
        "skills/s/evaluations/README.md": "# How to run the evals\n"})
    assert main(["init", str(root)]) == 0
    assert 'READMEs left out ("!**/README.md")' in capsys.readouterr().err
    ws = load_workspace(root)
    assert ws.config.plugin.procedures == ["skills/s/**/*.md", "!**/README.md"]
    assert sorted(p.name for p in ws.procedure_files()) == ["orphan.md", "steps.md"]
    monkeypatch.chdir(root)
    assert main(["audit", "--json"]) == 0
    found = [(f["rule"], Path(f["file"]).name) for f in json.loads(capsys.readouterr().out)["findings"]
             if f["rule"] in ("UNINDEXED", "EMPTY-GLOB")]
    assert found == [("UNINDEXED", "orphan.md")]
    (root / "skills/s/evaluations/README.md").unlink()
    assert main(["audit", "--json"]) == 0
    assert [f["message"] for f in json.loads(capsys.readouterr().out)["findings"] if f["rule"] == "EMPTY-GLOB"] == [
        "plugin.procedures glob '!**/README.md' matches no file"]
    lower = write(tmp_path / "q", {".claude-plugin/plugin.json": json.dumps({"name": "q"}),
                                   "skills/s/SKILL.md": SKILL.format(name="s", body=""), "skills/s/readme.md": "# r\n"})
    assert main(["init", str(lower)]) == 0  # `!**/README.md` would take out nothing there: not written
    assert load_workspace(lower).config.plugin.procedures == ["skills/s/**/*.md"]


def test_init_reads_a_marketplace_entrys_skills_from_its_own_source_and_skips_odd_paths(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`{"source": "./plugins/a", "skills": ["./skills/x"]}` is `plugins/a/skills/x` (Claude Code reads
    it from the source), `{"source": "./skills/b", "skills": ["./"]}` is that folder, a `git-subdir`
    source adds nothing, and a path with a NUL byte is skipped, not a crash."""
    root = write(tmp_path / "m", {
        ".claude-plugin/marketplace.json": json.dumps({"name": "m", "plugins": [
            {"name": "a", "source": "./plugins/a", "skills": ["./skills/x", "./skills/\u0000y"]},
            {"name": "b", "source": "./skills/b", "skills": ["./"]},
            {"name": "c", "source": "./plugins/c"},
            {"name": "far", "source": {"source": "git-subdir", "url": "https://example.invalid/r.git",
                                       "path": "plugins/a"}}]}),
        "plugins/a/skills/x/SKILL.md": SKILL.format(name="x", body=""),
        "skills/b/SKILL.md": SKILL.format(name="b", body=""),
        "plugins/c/skills/z/SKILL.md": SKILL.format(name="z", body="")})
    assert main(["init", str(root)]) == 0
    assert "the 3 named in .claude-plugin/marketplace.json" in capsys.readouterr().err
    assert load_workspace(root).config.plugin.routing == [
        "plugins/a/skills/x/SKILL.md", "plugins/c/skills/z/SKILL.md", "skills/b/SKILL.md"]


@pytest.mark.parametrize(("text", "stub"), [
    ("../../references/patterns/x.md", "../../references/patterns/x.md"),
    ("../shared/x.md\n", "../shared/x.md"),
    ("references/x.md", "references/x.md"),
    ("# x\n\nSee ../shared/x.md\n", None),
    ("../shared/x.md\n../shared/y.md\n", None),
    ("x.md", None),
    ("https://example.com/x.md", None),
    ("", None),
])
def test_a_file_that_holds_only_a_path_is_a_symlink_stub(tmp_path: Path, text: str, stub: str | None) -> None:
    """What git writes for a symlink when `core.symlinks` is off: the target path and nothing else (no
    newline). Any prose, a second line, a bare name or a URL is a file of its own."""
    from workbench.core.linkfiles import symlink_stub

    (tmp_path / "f.md").write_text(text)
    assert symlink_stub(tmp_path / "f.md") == stub
    (tmp_path / "real.md").symlink_to("f.md")
    assert symlink_stub(tmp_path / "real.md") is None, "a real symlink is read through"
