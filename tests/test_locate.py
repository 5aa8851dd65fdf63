"""The TOML-error locator: a validation error's location (with list indexes) names the line where
THAT element's key is set, for arrays of tables, nested tables, inline tables and inline arrays."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.core.errors import InputError
from workbench.core.locate import field_name, key_line
from workbench.modelstub.script import load_script

AOT = """\
title = "t"
[[branches]]
name = "a"
ref = "x"

[[branches]]
# the second one
ref = "y"
name = "b"
[branches.meta]
owner.name = "o"
"""

INLINE = """\
branches = [
  { name = "a", ref = "x" },

  # name = "not this"
  { ref = "y", name = "b" },
]
tags = ["p", "q",
  "r"]
"""


@pytest.mark.parametrize(("text", "loc", "line"), [
    (AOT, ("branches", 1, "name"), 9),
    (AOT, ("branches", 0, "name"), 3),
    (AOT, ("branches", 1, "meta", "owner", "name"), 11),
    (AOT, ("branches", 1, "absent"), 6),  # a missing field: the element's header
    (AOT, ("title",), 1),
    (INLINE, ("branches", 1, "name"), 5),
    (INLINE, ("branches", 0, "name"), 2),
    (INLINE, ("branches", 1), 5),
    (INLINE, ("tags", 2), 8),
    (INLINE, ("nothing", 0), None),
])
def test_the_line_of_the_indexed_element(text: str, loc: tuple[int | str, ...], line: int | None) -> None:
    tomllib.loads(text)  # the fixtures are valid TOML
    assert key_line(text, loc) == line


NAMES = st.lists(st.sampled_from(["name", "ref", "note"]), min_size=1, max_size=3, unique=True)


@settings(max_examples=200, deadline=None)
@given(st.lists(NAMES, min_size=1, max_size=6), st.booleans(), st.data())
def test_every_element_key_is_found_on_its_own_line(elements: list[list[str]], inline: bool,
                                                    data: st.DataObject) -> None:
    """Random arrays of tables (one key per line), or an inline array of inline tables (one element per
    line): each element's key is found on the line it was written on, never another element's."""
    lines, where = ["branches = ["] if inline else [], {}
    for i, keys in enumerate(elements):
        if data.draw(st.booleans()):
            lines.append("# a comment with name = 1")
        if inline:
            lines.append("  {" + ", ".join(f'{key} = "v{i}"' for key in keys) + "},")
            where.update({("branches", i, key): len(lines) for key in keys})
            continue
        lines.append("[[branches]]")
        for key in keys:
            if data.draw(st.booleans()):
                lines.append("# a comment with name = 1")
            lines.append(f'{key} = "v{i}"')
            where[("branches", i, key)] = len(lines)
    if inline:
        lines.append("]")
    text = "\n".join(lines) + "\n"
    assert len(tomllib.loads(text)["branches"]) == len(elements)
    for loc, line in where.items():
        assert key_line(text, loc) == line, (loc, text)


def test_a_script_error_in_the_second_step_names_its_line(tmp_path: Path) -> None:
    """Through the real loader: the second step's `say` is wrong; the first step also has a `say`."""
    path = tmp_path / "s.toml"
    path.write_text('[[steps]]\nsay = "fine"\n\n[[steps]]\nsay = 3\n', encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_script(path)
    assert (caught.value.line, caught.value.field) == (5, "steps[1].say")
    assert field_name(("steps", 1, "say")) == "steps[1].say"


def test_not_toml_gives_what_was_found_before_the_problem() -> None:
    assert key_line('a = 1\nb = "open\nc = 2\n', ("a",)) == 1
    assert key_line("= broken", ("a",)) is None
