"""Paths a Skill names that the plugin could never ship — templates, globs, the user's project files,
files the Skill makes, names mapped from a file — are no links; a file another named Skill ships is.

Each case is a minimal reproduction, in our own words, of a false DANGLING measured on a public
marketplace (docs/authoring.md).
"""
import json
from pathlib import Path

import pytest
from authoring_support import books_market

from workbench.cli import main
from workbench.core.audit import dangling
from workbench.core.routing import Rejected, parse_files, parse_text
from workbench.core.workspace import load_workspace
from workbench.tui.data import WorkspaceView, lint_edit

HEAD = "---\nname: ledger\ndescription: Keep the ledger.\n---\n\n"


def _skill(tmp_path: Path, name: str = "ledger", files: tuple[str, ...] = ()) -> Path:
    skill = tmp_path / "plug/skills" / name / "SKILL.md"
    skill.parent.mkdir(parents=True, exist_ok=True)
    skill.write_text(HEAD.replace("ledger", name, 1))
    for rel in files:
        (skill.parent / rel).parent.mkdir(parents=True, exist_ok=True)
        (skill.parent / rel).write_text(f"# {rel}\n")
    return skill


def _links(body: str, skill: Path, rejected: list[Rejected] | None = None) -> list[list[str]]:
    rows = parse_text(HEAD + body, skill, plugin=skill.parents[2], rejected=rejected)
    return [[lk.target for lk in r.links] for r in rows if r.kind != "description"]


@pytest.mark.parametrize(("body", "why"), [
    ("1. Put the notes **in the workspace**: `<repo>/scratch/<topic>/notes.md`.\n", "template"),
    ("2. Build the file name: `YYYY-MM-DD-<short-title>.md`\n", "template"),
    ("- **Specs**: Read `docs/specs/*.md` for the requirements\n", "glob"),
    ("- `$LEDGER_DIR/accounts.md`: the chart of accounts\n", "template"),
    ("1. Read the plan: `plans/{plan-id}.md`\n", "template"),
    ("- Format: `NNNN-short-title.md` (e.g., `0007-opening-balance.md`)\n", "template"),
    ("- `**/LEDGER.md` - every ledger in the tree\n", "glob"),
])
def test_a_template_or_glob_path_is_no_link(tmp_path: Path, body: str, why: str) -> None:
    rejected: list[Rejected] = []
    assert _links(body, _skill(tmp_path), rejected) == []
    assert any(why in r.why for r in rejected), [r.why for r in rejected]


@pytest.mark.parametrize("body", [
    "- **A posted entry can still be wrong.** The full review playbook: `.claude/rules/ledger-review.md`.\n",
    "Read `.claude/ledger.local.md` (the project's, then the one in your home folder) before you post.\n",
    "Before closing the month, read `tmp/ledger-audit/summary.md`.\n",
    "Before posting, see `repos/.claude/rules/posting.md` for the house rules.\n",
    "1. **Parse the current docs**:\n   - `.claude/skills/CLAUDE.md` - the skill catalog\n",
])
def test_a_file_of_the_users_project_is_no_link(tmp_path: Path, body: str) -> None:
    rejected: list[Rejected] = []
    assert _links(body, _skill(tmp_path), rejected) == []
    assert any("the user's project" in r.why for r in rejected), [r.why for r in rejected]


def test_a_broken_markdown_link_up_the_tree_stays_dangling(tmp_path: Path) -> None:
    skill = _skill(tmp_path)
    body = "Before posting, see [posting rules](../../.claude/rules/posting.md).\n"
    assert _links(body, skill) == [["../../.claude/rules/posting.md"]]


def test_a_file_the_skill_creates_is_no_procedure(tmp_path: Path) -> None:
    body = ("3. Write the plan: Create `CLOSE_PLAN.md` at the repo root\n\n"
            "## Step 4\n\n1. Read `CLOSE_PLAN.md`\n")
    rejected: list[Rejected] = []
    assert _links(body, _skill(tmp_path), rejected) == []
    assert any("writes" in r.why for r in rejected)


def test_files_listed_under_a_generate_heading_are_outputs(tmp_path: Path) -> None:
    body = ("### Step 2: Generate three rules in `.claude/rules/`\n\n"
            "1. **`posting-rules.md`** - How entries are posted\n"
            "2. **`closing-rules.md`** - How a month is closed\n\n"
            "- Before posting, take the wording from [checks](checks.md)\n")
    skill = _skill(tmp_path, files=("checks.md",))
    assert _links(body, skill) == [["checks.md"]]


@pytest.mark.parametrize("body", [
    "1. Take the number from the file name: `0042-rent.md` → `ENTRY-0042`\n",
    "- `skills/post-entry/SKILL.md` → `post:` prefix\n",
    "| open / missing | The spec whose `ref` matches (e.g. `R-1.2` → `docs/specs/SPEC-001.md`) |\n",
    "- Example: `march.csv` → `march_ledger_report.md`\n",
])
def test_a_file_named_only_as_an_example_or_mapped_to_a_name_is_no_link(tmp_path: Path, body: str) -> None:
    table = "| state | where |\n|---|---|\n" if body.startswith("|") else ""
    assert _links(table + body, _skill(tmp_path)) == []


def test_a_file_another_named_skill_ships_resolves_there(tmp_path: Path) -> None:
    _skill(tmp_path, "ledger-migrate", files=("steps/v1-to-v2.md",))
    skill = _skill(tmp_path)
    body = ("6. **Run the migration**:\n"
            "   - Read the migration steps from the `ledger-migrate` skill\n"
            "   - Before moving v1 books to v2: Load `steps/v1-to-v2.md`\n"
            "   - Before moving v2 books to v3: Load `steps/v2-to-v3.md`\n")
    rows = [r for r in parse_text(HEAD + body, skill, plugin=skill.parents[2]) if r.kind != "description"]
    paths = {r.links[0].target: r.links[0].path for r in rows}
    assert paths["steps/v1-to-v2.md"] == (tmp_path / "plug/skills/ledger-migrate/steps/v1-to-v2.md").resolve()
    assert not paths["steps/v2-to-v3.md"].exists()  # no Skill ships it: still DANGLING
    assert "steps/v1-to-v2.md is in the Skill ledger-migrate the text names" in rows[0].why


def test_a_namespaced_skill_reference_resolves_in_that_plugin(tmp_path: Path) -> None:
    other = tmp_path / "market/books-plugin/skills/fan-out/references/limits.md"
    other.parent.mkdir(parents=True)
    other.write_text("# limits\n")
    (other.parents[1] / "SKILL.md").write_text(HEAD.replace("ledger", "fan-out", 1))
    skill = tmp_path / "market/books-plugin/skills/ledger/SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text(HEAD)
    body = ("Moved to a skill: see `books-plugin:fan-out` (§ Limits → `references/limits.md`) before starting"
            " more than three agents.\n")
    rows = [r for r in parse_text(HEAD + body, skill, plugin=tmp_path / "market") if r.kind != "description"]
    assert [lk.path for r in rows for lk in r.links] == [other.resolve()]


def test_audit_counts_only_the_true_dangling(tmp_path: Path) -> None:
    skill = _skill(tmp_path, files=("checks.md",))
    skill.write_text(HEAD + "- Before posting, read [checks](checks.md)\n"
                     "- Before closing, read `missing-close.md`\n"
                     "- Name it `YYYY-MM-<slug>.md`\n"
                     "- Before reconciling, read `.claude/rules/reconcile.md`\n")
    found = dangling(parse_files([skill], plugin=skill.parents[2]))
    assert [f.message for f in found] == ["missing-close.md does not exist"]


def test_a_link_outside_its_own_plugin_is_unshipped_not_dangling_in_the_cli_and_the_editor(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The file exists in the checkout, so the fix is to move it into the plugin: its own rule, UNSHIPPED,
    and no DANGLING (which says the file is missing)."""
    skill = books_market(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["init", "."]) == 0
    capsys.readouterr()
    assert main(["audit", "--json"]) == 0
    findings = json.loads(capsys.readouterr().out)["findings"]
    found = [f for f in findings if f["rule"] == "UNSHIPPED"]
    assert [(Path(f["file"]).name, f["row"], f["message"]) for f in found] == [
        ("SKILL.md", "books:ledger/posting",
         ".claude/rules/posting.md is outside the plugin books-plugin: an installed plugin does not ship it")]
    assert [f for f in findings if f["rule"] == "DANGLING"] == []
    assert main(["audit", "--strict"]) == 1
    assert "UNSHIPPED" in capsys.readouterr().out
    view = WorkspaceView.load(load_workspace(tmp_path))
    row = next(r for r in view.rows if r.id == "books:ledger/posting")
    edited = lint_edit(view, row, "- `.claude/rules/posting.md` — before posting or voiding an entry")
    assert edited is not None and [(f.rule, f.message) for f in edited if f.rule in ("DANGLING", "UNSHIPPED")] \
        == [("UNSHIPPED", found[0]["message"])]
    assert skill.is_file()


def test_the_same_link_inside_a_single_plugin_is_no_finding(tmp_path: Path) -> None:
    skill = books_market(tmp_path)
    plugin = skill.parents[2]
    (plugin / ".claude/rules").mkdir(parents=True)
    (plugin / ".claude/rules/posting.md").write_text("# posting\n")
    assert dangling(parse_files([skill], plugin=plugin), plugin) == []


@pytest.mark.parametrize("body", [
    "## Where things live\n\n- **Notes:** `CLAUDE.md` in the current working directory\n",
    "## First\n\nLook in the working directory for:\n- `LEDGER.md` — the open entries\n",
    "### Load\n\nRead `LEDGER.md` and the `books/` folder. If they don't exist, suggest `/ledger:start` first.\n",
])
def test_a_file_the_text_places_in_the_working_directory_is_no_link(tmp_path: Path, body: str) -> None:
    rejected: list[Rejected] = []
    assert _links(body, _skill(tmp_path), rejected) == []
    assert any("user's project" in r.why for r in rejected), [r.why for r in rejected]


@pytest.mark.parametrize("shipped", [(), ("guides/setup/opening-balance.md",)])
def test_a_placeholder_beside_a_glob_in_one_folder_name_reads_in_every_door(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        shipped: tuple[str, ...]) -> None:
    """`*<topic>*.md` under `**`: one folder name of placeholders and stars is one `*`, never a `***`
    that pathlib refuses (a crash of `rows` and `audit` on a public marketplace). A templated link some
    file matches is a link that exists in `rows --json` too."""
    glob_line = "- Before answering, search the guides: `guides/**/*<topic>*.md`"
    skill = _skill(tmp_path, files=("checks.md", *shipped))
    skill.write_text(HEAD + "- Before posting, read [checks](checks.md)\n" + glob_line + "\n")
    rejected: list[Rejected] = []
    links = _links(glob_line + "\n", skill, rejected)
    assert links == ([["guides/**/*<topic>*.md"]] if shipped else [])
    assert shipped or any("glob" in r.why for r in rejected), [r.why for r in rejected]
    monkeypatch.chdir(tmp_path)
    assert main(["init", "."]) == 0
    capsys.readouterr()
    assert main(["rows", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    rows = rows.get("rows", rows) if isinstance(rows, dict) else rows
    assert [[lk["target"] for lk in r["links"]] for r in rows if r["kind"] != "description"] == [["checks.md"], *links]
    assert all(lk["exists"] for r in rows for lk in r["links"])
    assert main(["audit", "--json"]) == 0
    assert [f for f in json.loads(capsys.readouterr().out)["findings"] if f["rule"] == "DANGLING"] == []
    view = WorkspaceView.load(load_workspace(tmp_path))
    row = next(r for r in view.rows if [lk.target for lk in r.links] == ["checks.md"])
    edited = lint_edit(view, row, glob_line)
    assert (edited is not None and [f for f in edited if f.rule == "DANGLING"] == []) if shipped else edited is None


def test_a_file_a_command_of_the_skill_writes_is_no_procedure(tmp_path: Path) -> None:
    """`markitdown deck.pptx > deck-text.md`, then "Read `deck-text.md`" (anthropics' pptx Skill, copied
    into two collections): the agent reads what its command printed, not a file the plugin ships."""
    body = ("1. Extract the text:\n\n```bash\npython -m markitdown deck.pptx > deck-text.md\n"
            "node scripts/prompt.mjs | tee -a scripts/layout-prompt.md\n```\n\n"
            "2. Before choosing a layout, read `deck-text.md` and `scripts/layout-prompt.md`\n"
            "3. Before restyling, read `styles.md`\n")
    rejected: list[Rejected] = []
    assert _links(body, _skill(tmp_path), rejected) == [["styles.md"]]
    assert [r.why for r in rejected] == ["a file this Skill writes (\"Keep … at `y.md`\", a command's `> y.md`), "
                                         "not a procedure"], [r.why for r in rejected]


_PROJECT_TREE = ("Keep the books in the user's repo:\n\n```text\n.books/\n├── LEDGER.md          # balances\n"
                 "└── months/\n    ├── [month]/\n    │   └── close.md\n    └── index.md\n```\n\n")


@pytest.mark.parametrize(("body", "shipped", "links"), [
    (_PROJECT_TREE + "On resume, read `.books/LEDGER.md` first.\n"
     "Before closing a month, read `.books/months/index.md`.\n", (), []),
    # a bare name of the same tree: "Read `LEDGER.md`" is the drawn project file too
    (_PROJECT_TREE + "On resume, read `LEDGER.md` first.\nBefore closing a month, read `.books/months/index.md`.\n",
     (), []),
    # the same tree of the Skill's own folder: a missing file in it is a true DANGLING
    ("```text\nguides/\n├── posting.md\n└── closing.md\n```\n\nBefore closing, read `guides/closing.md`.\n",
     ("guides/posting.md",), [["guides/closing.md"]]),
])
def test_a_file_of_a_tree_the_skill_draws_of_the_users_project_is_no_procedure(
        tmp_path: Path, body: str, shipped: tuple[str, ...], links: list[list[str]]) -> None:
    """A Skill drawing the `.books/` folder it keeps in the user's repo, then "read `.books/LEDGER.md`":
    the file is the project's, not one the plugin ships (tech-leads-club's `.specs/`, a catalog's
    `blueprint/`). A tree of a folder beside the Skill is its own: what is missing there stays DANGLING."""
    rejected: list[Rejected] = []
    assert _links(body, _skill(tmp_path, files=shipped), rejected) == links
    assert links or [r.why for r in rejected] == [
        "a file of the `.books/` tree the Skill draws (a folder it does not ship: the user's project), "
        "not a procedure"] * 2, [r.why for r in rejected]


def test_files_a_later_sentence_says_may_be_absent_are_the_users_wherever_named(tmp_path: Path) -> None:
    """"Inputs: … `plan.md` and `notes.md` (…). Required for X. When absent, report n/a" names the user's
    files, and so does a later "`plan.md` sanctioned a behavior" in another section (tech-leads-club's
    spec-driven-eval). A missing file named once as a route stays DANGLING."""
    body = ("## Inputs\n\n1. **The working files** — `plan.md` and `notes.md` (the decisions so far). "
            "Needed for the scope check. When absent, report the scope as n/a.\n\n"
            "## Report\n\n- **Drift** — `plan.md` allowed a change the code lacks.\n"
            "- Before posting, read `checks.md`.\n")
    rejected: list[Rejected] = []
    assert _links(body, _skill(tmp_path), rejected) == [["checks.md"]]
    assert [r.why for r in rejected] == ["a file that may not exist (\"if it exists\"): the user's project file, "
                                         "not a procedure"] * 2, [r.why for r in rejected]


def test_a_drawn_project_tree_is_no_finding_in_the_cli_and_the_editor(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """`audit` and the editor's lint judge the drawn tree alike: no DANGLING for the project's file, one
    for a missing procedure beside it."""
    skill = _skill(tmp_path, files=("checks.md",))
    resume = "On resume, read `.books/LEDGER.md` first."
    skill.write_text(HEAD + _PROJECT_TREE + resume + "\n\n- Before posting, read [checks](checks.md)\n"
                     "- Before closing, read `closing.md`\n")
    monkeypatch.chdir(tmp_path)
    assert main(["init", "."]) == 0
    capsys.readouterr()
    assert main(["audit", "--json"]) == 0
    found = [f["message"] for f in json.loads(capsys.readouterr().out)["findings"] if f["rule"] == "DANGLING"]
    assert found == ["closing.md does not exist"], found
    view = WorkspaceView.load(load_workspace(tmp_path))
    row = next(r for r in view.rows if [lk.target for lk in r.links] == ["checks.md"])
    edited = lint_edit(view, row, resume)
    assert edited is None, f"the project's file makes no row, so the editor has no DANGLING to show: {edited}"


def test_a_file_one_sentence_places_in_the_working_directory_is_the_users_everywhere(tmp_path: Path) -> None:
    """"**Always keep `LEDGER.md` in the current working directory.**" under "File Location", then "- Read
    LEDGER.md" in another section (anthropics' task-management Skill): the user's file, in both places."""
    body = ("## File Location\n\n**Always keep `LEDGER.md` in the current working directory.**\n\n"
            "## Posting\n\n- Before posting, read LEDGER.md\n- Before posting, read `checks.md`\n")
    rejected: list[Rejected] = []
    assert _links(body, _skill(tmp_path), rejected) == [["checks.md"]]
    assert any("the user's project" in r.why for r in rejected), [r.why for r in rejected]
