"""UNINDEXED from what the hosts load: Skills, commands and agents of each plugin, mentions followed
only inside the mentioning file's plugin; the user's project files and loose folder mentions reach
nothing. Run through the real `workbench` command on tests/data/corpus/marketplace (see its README)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from workbench.core import markdown
from workbench.core.markdown import Mention
from workbench.core.reach import host_loaded, plugin_roots, resolve_mention

WORKBENCH = Path(sys.executable).with_name("workbench")
MARKETPLACE = Path(__file__).resolve().parent / "data" / "corpus" / "marketplace"


def workbench(cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "WORKBENCH_DEBUG"}
    return subprocess.run([str(WORKBENCH), *argv], cwd=cwd, env=env, capture_output=True, text=True, check=False)


def test_unindexed_finds_the_orphans_of_a_marketplace(tmp_path: Path) -> None:
    ws = tmp_path / "market"
    shutil.copytree(MARKETPLACE, ws)
    assert workbench(ws, "init", ".").returncode == 0
    done = workbench(ws, "audit", "--json")
    assert done.returncode == 0 and "Traceback" not in done.stderr, "an agent with broken YAML stops nothing"
    found = {(f["rule"], Path(f["file"]).relative_to(ws).as_posix()) for f in json.loads(done.stdout)["findings"]}
    assert found == {
        # nothing names it
        ("UNINDEXED", "plugins/slides/skills/deck/notes.md"),
        # `layouts/` reaches the files directly in it, not a folder below
        ("UNINDEXED", "plugins/slides/skills/deck/layouts/old/legacy.md"),
        # (its README.md, named only as "the project's `README.md`", is no procedure: init leaves READMEs out)
        # `../grid/` in another Skill is a cross-reference, not a pointer at grid's files
        ("UNINDEXED", "plugins/sheets/skills/grid/formulas.md"),
    }, "the command's, the agent's, the @-import's, the dotted name's and the stray fence's files are reached"


def test_host_loaded_files_and_mentions_resolve_inside_their_own_plugin(tmp_path: Path) -> None:
    ws = tmp_path / "market"
    shutil.copytree(MARKETPLACE, ws)
    slides, sheets = ws / "plugins/slides", ws / "plugins/sheets"
    roots = plugin_roots(ws)
    assert set(roots) == {ws.resolve(), slides.resolve(), sheets.resolve()} and roots[-1] == ws.resolve()
    assert {p.relative_to(slides.resolve()).as_posix() for p in host_loaded(slides.resolve())} == {
        "skills/deck/SKILL.md", "commands/present.md", "agents/reviewer.md"}
    skill = (sheets / "skills/deck/SKILL.md").resolve()
    assert resolve_mention(Mention("CLAUDE.md", "code"), skill, sheets.resolve()) == []
    assert resolve_mention(Mention("../../../../CLAUDE.md", "link"), skill, sheets.resolve()) == [], \
        "a file outside the plugin is not installed with it"
    assert resolve_mention(Mention("./", "folder"), skill, sheets.resolve()) == []
    assert resolve_mention(Mention("tail.md", "word"), skill, sheets.resolve()) == [(skill.parent / "tail.md")]


def test_a_loose_agents_md_mention_reaches_none_of_the_repos_files(tmp_path: Path) -> None:
    """"Update the `AGENTS.md` of your project" names the user's file; the repo's own AGENTS.md (which
    mentions `plugins/`) is loaded by no host for an installed plugin, so the orphans stay UNINDEXED."""
    ws = tmp_path / "market"
    skill = ws / "plugins/notes/skills/jot/SKILL.md"
    skill.parent.mkdir(parents=True)
    (ws / "plugins/notes/.claude-plugin").mkdir()
    (ws / "plugins/notes/.claude-plugin/plugin.json").write_text('{"name": "notes"}')
    (ws / "AGENTS.md").write_text("# Maintainers\n\nEvery plugin is under `plugins/`; keep them tidy.\n")
    skill.write_text("---\nname: jot\ndescription: Use when taking notes.\n---\n\n"
                     "Before filing a note, read [file](filing.md).\n\n"
                     "When done, update the `AGENTS.md` of your project with the new note folder.\n")
    (skill.parent / "filing.md").write_text("# Filing\n")
    (skill.parent / "stale.md").write_text("# An old procedure nothing names\n")
    assert workbench(ws, "init", ".").returncode == 0
    done = workbench(ws, "audit", "--json")
    assert done.returncode == 0, done.stderr
    found = {(f["rule"], Path(f["file"]).relative_to(ws).as_posix()) for f in json.loads(done.stdout)["findings"]
             if f["rule"] == "UNINDEXED"}
    assert found == {("UNINDEXED", "plugins/notes/skills/jot/stale.md")}


def test_a_file_belongs_to_its_own_plugin_not_one_whose_name_starts_its_own(tmp_path: Path) -> None:
    """`own_root` compares folders, not the start of a name: `plugins/plug-extra/` is not inside `plugins/plug/`."""
    from workbench.core.reach import own_root

    for name in ("plug", "plug-extra"):
        (tmp_path / "plugins" / name / ".claude-plugin").mkdir(parents=True)
        (tmp_path / "plugins" / name / ".claude-plugin/plugin.json").write_text(json.dumps({"name": name}))
    skill = tmp_path / "plugins/plug-extra/skills/s/SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("# s\n")
    roots = plugin_roots(tmp_path)
    assert own_root(skill, roots) == (tmp_path / "plugins/plug-extra").resolve()
    assert own_root(tmp_path / "plugins/plug", roots) == (tmp_path / "plugins/plug").resolve()
    assert own_root(tmp_path / "README.md", roots) == tmp_path.resolve()
    assert own_root(tmp_path / "plugins/plug-notes/a.md", roots) == tmp_path.resolve(), "no plugin holds it"


def test_a_link_with_a_placeholder_beside_a_glob_reaches_what_it_matches(tmp_path: Path) -> None:
    """`[a guide](guides/*{topic}*.md)`: `*{topic}*` is one `*` of its folder name (pathlib refuses `***`)."""
    skill = tmp_path / "plug/skills/ledger/SKILL.md"
    (skill.parent / "guides").mkdir(parents=True)
    (skill.parent / "guides/opening-balance.md").write_text("# opening\n")
    skill.write_text("---\nname: ledger\ndescription: Keep the ledger.\n---\n\nSee [a guide](guides/*{topic}*.md).\n")
    root = (tmp_path / "plug").resolve()
    assert resolve_mention(Mention("guides/*{topic}*.md", "link"), skill.resolve(), root) == [
        (skill.parent / "guides/opening-balance.md").resolve()]
    assert resolve_mention(Mention("**/skills/ledger/guides/<Name>.md", "code"), skill.resolve(), root) == [
        (skill.parent / "guides/opening-balance.md").resolve()], "a whole `**` folder stays recursive"
    assert workbench(tmp_path / "plug", "init", ".").returncode == 0
    done = workbench(tmp_path / "plug", "audit", "--json")
    assert done.returncode == 0, done.stderr
    assert [f for f in json.loads(done.stdout)["findings"] if f["rule"] == "UNINDEXED"] == []


def test_a_drawn_file_tree_gives_each_path_below_its_root() -> None:
    """Box-drawn trees (`├──`, `│`, comments after `#`) nest by how far right a name sits; ASCII `|--` and
    `+--` too, and a tree drawn by indentation alone. A fence of other text (an indented `key: value`), or
    a tree with no root folder line, gives nothing."""
    tree = ("```\nrun/\n├── STATE.md   # memory\n│   └── not-nested.md\n├── logs/\n│   ├── a.md\n│   └── deep/\n"
            "│       └── b.md\n└── c.md\n\nsome words after the drawing\n```\n")
    ascii_tree = "```\nout/\n|-- x.md\n`-- y/\n    `-- z.md\n```\n"
    plus_tree = "```\nstate/\n+-- NOW.md   # read every turn\n+-- queue/\n|   +-- next.json\n+-- w.md\n```\n"
    rootless = "```\n├── a.md\n└── b.md\n```\n"
    indented = "```\nguides/\n  posting.md     what a posting needs\n  months/\n    close.md   the month's close\n```\n"
    yaml = "```yaml\nconfig/\n  key: value\n```\n"
    assert list(markdown.drawn_trees(tree + ascii_tree + plus_tree + rootless + indented + yaml + "```bash\nls\n```\n")) == [
        ("run/", frozenset({"run/STATE.md", "run/not-nested.md", "run/logs/", "run/logs/a.md", "run/logs/deep/",
                            "run/logs/deep/b.md", "run/c.md"})),
        ("out/", frozenset({"out/x.md", "out/y/", "out/y/z.md"})),
        ("state/", frozenset({"state/NOW.md", "state/queue/", "state/queue/next.json", "state/w.md"})),
        ("guides/", frozenset({"guides/posting.md", "guides/months/", "guides/months/close.md"}))]
