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
    ("**Adding a field:** → Read `fields.md`\n", "Adding a field", "fields.md"),
    ("Load `setup.md` before you change the schema.\n", "before you change the schema", "setup.md"),
    ("Fill PDF forms: read [layout](layout.md) first.\n", "Fill PDF forms", "layout.md"),
])
def test_prose_route_is_a_row(body: str, trigger: str, target: str) -> None:
    assert _rows(body) == [(trigger, [target])]


@pytest.mark.parametrize("body", [
    "Sample sessions in `samples/`:\n\n- **`one.md`** - a short session\n- **`two.md`** - a long one\n",
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
