"""A real plugin's routing (tests/data/corpus/*): rows, lint findings and audit written by hand."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from workbench.cli import main
from workbench.core.audit import audit, dangling
from workbench.core.lint import Finding, lint_rows
from workbench.core.routing import parse_files
from workbench.core.workspace import Workspace, load_workspace

CORPUS = Path(__file__).resolve().parent / "data" / "corpus"

ROUTING_SWEEP_IDS = [
    "description", "elon-method", "context", "project-direction", "research", "software-design", "prototype",
    "diagnosis", "grilling", "domain-modeling", "wayfinder", "to-spec", "implementation", "test-design",
    "orchestration", "verification", "project-verification", "artifacts", "writing-for-agents",
    "technical-writing", "reflection", "preferences-pruning", "version-control", "delivery-profile", "delivery",
    "finalization", "repository-setup", "reconciliation", "use-grok"]
"""The row names of the published #182 routing sweep, plus the description, the prose route and the
version-control row it did not measure."""


def test_routing_sweep_rows_lint_and_audit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ws, guesses = init_copy("routing-sweep", tmp_path, capsys)
    assert ws.config.plugin.entry_skill == "operations" and "entry Skill: operations (the only Skill)" in guesses
    rows = parse_files(ws.routing_files(), plugin=ws.plugin_dir)
    assert [r.id for r in rows] == [f"operations/{i}" for i in ROUTING_SWEEP_IDS]
    by_id = {r.id: r for r in rows}
    description = by_id["operations/description"]
    assert description.kind == "description" and description.trigger.startswith(
        "Pick the procedure the current step of the work needs: investigating,"), "the folded scalar joins its lines"
    # "For any substantial task, apply [Elon method](...) before settling ...": the lead is the trigger
    elon = by_id["operations/elon-method"]
    assert (elon.kind, elon.trigger, elon.links[0].after) == (
        "prose", "For any substantial task", "before settling on requirements or an approach.")
    writing = by_id["operations/writing-for-agents"]
    assert [(lk.target, lk.side) for lk in writing.links] == [
        ("workflows/writing-for-agents/index.md", "before"),
        ("workflows/technical-writing/references/prose.md", "after"),
        ("workflows/writing-for-agents/SKILL-MECHANICS.md", "after")], "later links carry their own clauses"
    assert writing.links[2].clause == "before changing a Skill's name or description"
    assert [lk.target for lk in by_id["operations/to-spec"].links] == [
        "workflows/to-spec/index.md", "workflows/to-tickets/index.md"]
    assert by_id["operations/use-grok"].trigger == "The user asks for a second opinion from Grok"
    findings = {(f.row, f.rule) for f in lint_rows(rows, max_row_chars=1000)}
    assert findings == {
        # "[grill with docs](...) when the questions touch terms ...": a condition, no moment
        ("operations/grilling", "no-before-clause"),
        # "[Specify](...), or [tickets](...) to split a plan ...": a bare "or"
        ("operations/to-spec", "no-before-clause"), ("operations/to-spec", "bare-conjunct"),
        # "[Verification](...); [code review](...) to answer review comments": no moment for code review
        ("operations/verification", "no-before-clause"),
        # "[Technical writing](...) and [prose](...)": a bare "and"
        ("operations/technical-writing", "no-before-clause"), ("operations/technical-writing", "bare-conjunct"),
    }, "imperatives (Initialize/Map/Save ...), the event row and the trailing before-clauses pass"
    assert dangling(rows) == []
    report = audit(ws, rows)
    assert report.findings == [], "every stub is linked: no DANGLING, no UNINDEXED, no BUDGET"
    assert {(b.host, len(b.files)) for b in report.budgets} >= {("claude", 1), ("codex", 1)}
    assert all(b.files == [ws.plugin_dir / "skills/operations/SKILL.md"] for b in report.budgets)


def init_copy(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Workspace, str]:
    """A copy of a corpus fixture with the workbench.toml `workbench init` writes, and init's guesses."""
    shutil.copytree(CORPUS / name, tmp_path / name)
    capsys.readouterr()
    assert main(["init", str(tmp_path / name)]) == 0
    return load_workspace(tmp_path / name), capsys.readouterr().err


def rel_findings(ws: Workspace, findings: list[Finding]) -> set[tuple[str, str, str | None, str]]:
    return {(f.rule, f.file.relative_to(ws.plugin_dir).as_posix() if f.file else "-", f.row, f.message)
            for f in findings}


SUPERPOWERS_ROWS = [
    ("brainstorming/description", "You MUST use this before any creative work - creating features, building "
                                  "components, or modifying behavior.", []),
    # "If they agree ..., read the detailed guide before proceeding:" + a code span on the next line
    ("brainstorming/visual-companion", "If they agree to the companion, read the detailed guide before proceeding",
     ["skills/brainstorming/visual-companion.md"]),
    ("debugging/description", "Use when encountering any bug, test failure, or unexpected behavior, before "
                              "proposing fixes", []),
    # the index of supporting files: the file, then what it covers
    ("debugging/root-cause-tracing", "Trace bugs backward through the call stack to the original trigger",
     ["root-cause-tracing.md"]),
    ("debugging/defense-in-depth", "Add validation at every layer once the root cause is found",
     ["defense-in-depth.md"]),
    ("debugging/condition-based-waiting", "Replace arbitrary timeouts with condition polling",
     ["condition-based-waiting.md"]),
    ("tdd/description", "Use when implementing any feature or bugfix, before writing implementation code", []),
    ("tdd/writing-good-tests", "When writing or changing any test", ["writing-good-tests.md"]),
    ("using-skills/description", "Use when starting any conversation - explains how to find and invoke skills, "
                                 "and requires invoking a skill before any response", []),
    ("using-skills/codex-tools", "Codex", ["references/codex-tools.md"]),
    ("using-skills/gemini-tools", "Gemini", ["references/gemini-tools.md"]),
    ("writing-plans/description", "Use when you have a spec or requirements for a multi-step task, before "
                                  "touching code", []),
    ("writing-skills/description", "Use when creating new skills, editing existing skills, or verifying skills "
                                   "work before deployment", []),
]
"""Not rows, by reading: output paths (design doc, plans), the spec-reviewer template a subagent is
filled from, "See `root-cause-tracing.md`", the dot graph and YAML examples in fences, the ❌/✅
cross-reference examples, "Don't read ..." and the Bad/Good table, "See persuasion-principles.md",
"**Testing methodology:** See [...]", CLAUDE.md/AGENTS.md named in prose."""


def test_superpowers_rows_lint_audit_and_init(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ws, guesses = init_copy("superpowers", tmp_path, capsys)
    assert ws.config.plugin.entry_skill == "using-skills" and ws.config.plugin.routing == ["skills/*/SKILL.md"]
    assert "entry Skill: using-skills (its SKILL.md is injected by a SessionStart hook" in guesses
    rows = parse_files(ws.routing_files(), plugin=ws.plugin_dir)
    assert [(r.id, r.trigger, [lk.target for lk in r.links]) for r in rows] == SUPERPOWERS_ROWS
    findings = {(f.row, f.rule) for f in lint_rows(rows, max_row_chars=1000)}
    assert findings == {
        # "- Codex: `references/codex-tools.md`": a platform name, no action and no moment
        ("using-skills/codex-tools", "no-before-clause"), ("using-skills/codex-tools", "state-trigger"),
        ("using-skills/gemini-tools", "no-before-clause"), ("using-skills/gemini-tools", "state-trigger"),
    }, "imperative index items (Trace/Add/Replace ...) name their action, as the measured imperatives do"
    report = audit(ws, rows)
    nothing_mentions = "is reached from nothing a host loads (no row, Skill, command, agent or procedure names it)"
    assert rel_findings(ws, report.findings) == {
        ("UNINDEXED", "skills/debugging/test-pressure-1.md", None, f"test-pressure-1.md {nothing_mentions}"),
        ("UNINDEXED", "skills/debugging/CREATION-LOG.md", None, f"CREATION-LOG.md {nothing_mentions}"),
    }, "no DANGLING; the spec template, supporting files and bare-named files are reached"
    loads = {b.host: {(Path(part.split(": ", 1)[0]).name, part.split(": ", 1)[1].split()[0]) for part in b.parts}
             for b in report.budgets}
    assert loads["claude"] == {("SKILL.md", "injected"), ("SKILL.md", "Skill")}
    claude = next(b for b in report.budgets if b.host == "claude")
    assert [p.parent.name for p in claude.files][0] == "using-skills" and len(claude.files) == 6
    codex = next(b for b in report.budgets if b.host == "codex")
    assert loads["codex"] == {("SKILL.md", "Skill")} and len(codex.files) == 6 and codex.tokens < claude.tokens
    gemini = next(b for b in report.budgets if b.host == "gemini")
    assert [p.name for p in gemini.files][:3] == ["GEMINI.md", "SKILL.md", "gemini-tools.md"]
    assert all("CLAUDE.md" not in str(p) for b in report.budgets for p in b.files), "the plugin is installed"


ANTHROPIC_ROWS = [
    ("api-guide/description", "Build apps with the example API and SDKs. TRIGGER when code imports the SDK or "
                              "the user asks about the API.", []),
    ("api-guide/api", "Read this first", ["{language}/api/README.md"]),
    ("api-guide/error-codes", "Read when debugging HTTP errors or implementing error handling",
     ["shared/error-codes.md"]),
    ("api-guide/agent-design", "Read when designing an agent: bash vs. dedicated tools, caching",
     ["shared/agent-design.md"]),
    ("api-guide/live-sources", "URLs for fetching the latest official documentation", ["shared/live-sources.md"]),
    ("internal-comms/description", "Resources for writing internal communications - status reports, newsletters, "
                                   "FAQs. Use whenever asked to write an internal communication.", []),
    ("internal-comms/3p-updates", "For Progress/Plans/Problems team updates", ["examples/3p-updates.md"]),
    ("internal-comms/newsletter", "For company-wide newsletters", ["examples/newsletter.md"]),
    ("internal-comms/general-comms", "For anything else", ["examples/general-comms.md"]),
    ("pdf/description", "Use this skill whenever the user wants to do anything with PDF files - reading or "
                        "extracting text, merging, splitting, filling forms. If the user mentions a .pdf file, use "
                        "this skill.", []),
    ("pdf/reference", "For advanced features and detailed examples", ["REFERENCE.md"]),
    ("pdf/forms", "If you need to fill out a PDF form", ["FORMS.md"]),
    ("pptx/description", "Use this skill any time a .pptx file is involved: creating, reading, or editing slide "
                         "decks.", []),
    ("pptx/editing", "Edit or create from template", ["editing.md"]),
    ("pptx/pptxgenjs", "Create from scratch", ["pptxgenjs.md"]),
    ("theme-factory/description", "Toolkit for styling artifacts with a theme - slides, docs, landing pages. Ten "
                                  "preset themes, or a new one on the fly.", []),
]
"""Not rows, by reading: the markitdown command row, the table inside the fenced block, "see
REFERENCE.md" in a code comment, "Load the matching guideline file from the `examples/` directory",
the `themes/` folder sentence, the unlisted Skill (no manifest lists it)."""


PLUGIN_OF = {"pdf": "document-skills", "pptx": "document-skills", "internal-comms": "example-skills",
             "theme-factory": "example-skills", "api-guide": "example-skills"}
"""By reading the fixture's marketplace.json: each plugin lists its Skills (`source: "./"`, `skills: [...]`),
so Claude Code names them `plugin:skill` and so do the row ids."""


def ns(row_id: str) -> str:
    return f"{PLUGIN_OF[row_id.split('/')[0]]}:{row_id}"


def test_anthropic_skills_rows_lint_audit_and_init(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ws, guesses = init_copy("anthropic-skills", tmp_path, capsys)
    assert ws.config.plugin.routing == [f"skills/{s}/SKILL.md" for s in
                                        ("api-guide", "internal-comms", "pdf", "pptx", "theme-factory")]
    assert "the 5 named in .claude-plugin/marketplace.json" in guesses and ws.config.plugin.entry_skill is None
    rows = parse_files(ws.routing_files(), plugin=ws.plugin_dir)
    assert [(r.id, r.trigger, [lk.target for lk in r.links]) for r in rows] == [(ns(i), t, k) for i, t, k in
                                                                                 ANTHROPIC_ROWS]
    findings = {(f.row, f.rule) for f in lint_rows(rows, max_row_chars=1000)}
    topic_rows = ("api-guide/api", "api-guide/live-sources", "internal-comms/3p-updates", "internal-comms/newsletter",
                  "internal-comms/general-comms", "pdf/reference", "pdf/forms")
    # topics and conditions ("For X", "If you need to ...", "Read this first"): no action, no moment;
    # "Read when debugging ...", "Read when designing ..." and the imperative table rows pass
    assert findings == {(ns(r), rule) for r in topic_rows for rule in ("no-before-clause", "state-trigger")}
    report = audit(ws, rows)
    assert rel_findings(ws, report.findings) == {
        ("DANGLING", "skills/pdf/SKILL.md", ns("pdf/reference"), "REFERENCE.md does not exist (reference.md differs only "
                                                             "in case)"),
        ("DANGLING", "skills/pdf/SKILL.md", ns("pdf/forms"), "FORMS.md does not exist (forms.md differs only in case)"),
        ("UNINDEXED", "skills/pdf/reference.md", None, "reference.md is mentioned only as REFERENCE.md in SKILL.md "
                                                       "(case differs: a miss on a case-sensitive disk)"),
        ("UNINDEXED", "skills/pdf/forms.md", None, "forms.md is mentioned only as FORMS.md in SKILL.md (case differs: "
                                                   "a miss on a case-sensitive disk)"),
    }, "templated {language}/ paths, the themes/ folder and the examples/ items are reached; no BUDGET"
    assert {len(b.files) for b in report.budgets} == {5}, "every host loads the five listed Skills' front matter"
