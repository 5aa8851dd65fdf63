"""Prose route shapes a host would follow become rows; example and output lists do not."""
from pathlib import Path

import pytest

from workbench.core.routing import parse_text

HEAD = "---\nname: forms\ndescription: Work with forms.\n---\n\n"


def _rows(body: str) -> list[tuple[str, list[str]]]:
    rows = parse_text(HEAD + body, Path("/plug/skills/forms/SKILL.md"))
    return [(r.trigger, [link.target for link in r.links]) for r in rows if r.kind != "description"]


@pytest.mark.parametrize(("body", "trigger", "target"), [
    ("Follow [the guide](guide.md).\n", "Follow the guide", "guide.md"),
    ("Deeper rules are kept in `references/rules.md`. Read that file when adding a field.\n",
     "when adding a field", "references/rules.md"),
    ("Longer recipes live in `references/recipes.md`. Read that file when mixing a new batch.\n",
     "when mixing a new batch", "references/recipes.md"),
    ("**Adding a field:** → Read `fields.md`\n", "Adding a field", "fields.md"),
    ("Load `setup.md` before you change the schema.\n", "before you change the schema", "setup.md"),
    ("Fill PDF forms: read [layout](layout.md) first.\n", "Fill PDF forms", "layout.md"),
])
def test_prose_route_is_a_row(body: str, trigger: str, target: str) -> None:
    assert _rows(body) == [(trigger, [target])]


@pytest.mark.parametrize("body", [
    "Sample sessions in `samples/`:\n\n- **`one.md`** - a short session\n- **`two.md`** - a long one\n",
    "Worked examples in `examples/`:\n\n- **`small.md`** - a one-page form\n",
    "Every run writes:\n\n- **`summary.md`** - the summary\n",
    "Each run produces:\n\n- **`final-report.md`** - the report\n",
    "- **Examples**: `references/tax.md` for tax tables, `references/leases.md` for lease terms\n",
])
def test_showcase_list_is_no_row(body: str) -> None:
    assert _rows(body) == []


def test_list_after_showcase_is_read_again() -> None:
    body = "Outputs:\n\n- **`out.md`** - the output\n\nRoutes.\n\n- Before adding a field, read [f](f.md)\n"
    assert _rows(body) == [("Before adding a field", ["f.md"])]


def test_why_names_the_shape() -> None:
    row = [r for r in parse_text(HEAD + "Follow [g](g.md).\n", Path("/p/SKILL.md")) if r.kind != "description"][0]
    assert "imperative read" in row.why


def test_a_parenthetical_see_in_a_parameter_bullet_is_no_route() -> None:
    body = ("- **`timeout` values:** Keep the default unless told otherwise. Lower it only when a call must fail"
            " fast, or set **`timeout: 0`** to disable it (see `shared/timeouts.md` → Disabling).\n"
            "- When tuning retries, read `shared/retries.md` (see also `shared/timeouts.md`).\n")
    assert _rows(body) == [("When tuning retries", ["shared/retries.md"])]
    why = []
    parse_text(HEAD + body, Path("/plug/skills/forms/SKILL.md"), rejected=why)
    assert [w.why for w in why] == ['a cross-reference in parentheses ("(see `y.md` → Part)"), not a route']


def test_every_file_of_an_alternative_list_is_linked() -> None:
    body = ("Read the style guide for the chosen format now: `styles/html.md` (default) or `styles/plain.md`"
            " (when the user asked for plain text).\n")
    rows = [r for r in parse_text(HEAD + body, Path("/plug/skills/forms/SKILL.md")) if r.kind != "description"]
    assert [(r.trigger, [lk.target for lk in r.links]) for r in rows] == [
        ("Read the style guide for the chosen format now", ["styles/html.md", "styles/plain.md"])]
    assert rows[0].links[1].clause == "(when the user asked for plain text)."


def test_a_file_the_skill_writes_is_no_procedure(tmp_path: Path) -> None:
    skill = tmp_path / "skills/forms/SKILL.md"
    skill.parent.mkdir(parents=True)
    (skill.parent / "scoping.md").write_text("# scoping\n")
    body = ("Keep a log of choices at `choices.md` in the run folder.\n\n"
            "Before filling the next form, read `choices.md` and `scoping.md`.\n")
    rejected: list = []
    rows = [r for r in parse_text(HEAD + body, skill, rejected=rejected) if r.kind != "description"]
    assert [[lk.target for lk in r.links] for r in rows] == [["scoping.md"]]
    alone = "Keep a log of choices at `choices.md`.\n\nRead `choices.md` before filling the next form.\n"
    assert [r for r in parse_text(HEAD + alone, skill, rejected=rejected) if r.kind != "description"] == []
    assert rejected[-1].why.startswith("a file this Skill writes")


def test_an_example_list_nested_under_a_route_item_is_no_row() -> None:
    body = ("- Before writing a report, read [style](style.md). Sample reports to compare with:\n"
            "  - **`q1-report.md`** - a quarterly report\n"
            "  - **`launch.md`** - a launch review\n"
            "- Examples:\n"
            "  - [intake](intake.md) for a new client\n"
            "- Before closing a report, read [close](close.md)\n")
    assert _rows(body) == [("Before writing a report", ["style.md"]), ("Before closing a report", ["close.md"])]


def test_a_list_to_pick_from_under_a_read_item_still_routes() -> None:
    body = ("1. **Load the matching template** from the `examples/` folder:\n"
            "    - `examples/invoice.md` - For invoices\n"
            "    - `examples/receipt.md` - For receipts\n")
    assert _rows(body) == [("For invoices", ["examples/invoice.md"]), ("For receipts", ["examples/receipt.md"])]


@pytest.mark.parametrize("body", [
    "Read `intake.md` and `scoring.md` before grading a form.\n",
    "- Read [intake](intake.md) and [scoring](scoring.md) before grading a form\n",
])
def test_files_joined_by_and_share_the_clause_after_them(body: str) -> None:
    rows = [r for r in parse_text(HEAD + body, Path("/plug/skills/forms/SKILL.md")) if r.kind != "description"]
    assert [(r.trigger, [(lk.target, lk.side, lk.wording) for lk in r.links]) for r in rows] == [
        ("before grading a form", [("intake.md", "after", "before-action"), ("scoring.md", "after", "before-action")])]


def test_a_file_with_its_own_clause_keeps_it_before_a_shared_one() -> None:
    body = "When grading, read `intake.md` and `scoring.md` before posting.\n"
    rows = [r for r in parse_text(HEAD + body, Path("/plug/skills/forms/SKILL.md")) if r.kind != "description"]
    assert [lk.side for r in rows for lk in r.links][0] == "before"


def test_a_file_after_a_topic_keeps_the_topic_before_a_shared_clause() -> None:
    body = "4. **Grade in passes**, one form per pass — `passes.md`, and `stalls.md` when a pass stalls.\n"
    rows = [r for r in parse_text(HEAD + body, Path("/plug/skills/forms/SKILL.md")) if r.kind != "description"]
    assert [(lk.target, lk.side) for r in rows for lk in r.links] == [("passes.md", "before"), ("stalls.md", "after")]


@pytest.mark.parametrize(("body", "trigger"), [
    ("1. **Totals do not add up** → a rounding rule was skipped\n   - See: [Rounding](fixes/rounding.md)\n",
     "Totals do not add up → a rounding rule was skipped"),
    ("### A form that will not save\n\n- **SYMPTOM:** the save button greys out.\n"
     "- **CHECK:** `fixes/save.md` — the lock flag.\n", "A form that will not save"),
])
def test_a_label_before_a_link_borrows_the_trigger_of_its_parent_or_heading(body: str, trigger: str) -> None:
    rows = [r for r in parse_text(HEAD + body, Path("/plug/skills/forms/SKILL.md")) if r.kind != "description"]
    assert [r.trigger for r in rows] == [trigger] and "only a label" in rows[0].why
