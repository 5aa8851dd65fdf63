"""Case loader: the bundled cases load; bad files fail with file, line and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.core.cases import find_case, load_case, load_cases
from workbench.core.errors import InputError

ROOT = Path(__file__).resolve().parent.parent


def write(tmp_path: Path, text: str, name: str = "c.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_bundled_cases_cover_rows_negatives_and_mid_task_moments() -> None:
    cases = load_cases(ROOT / "cases")
    positives = {c.target for c in cases if c.kind == "positive" and c.moment == "edit"}
    assert len(positives) >= 3
    assert sum(c.kind == "negative" for c in cases) >= 2
    assert {"commit", "pr"} <= {c.moment for c in cases}
    pr = next(c for c in cases if c.moment == "pr")
    assert pr.branches and pr.branches[0].files


def test_id_defaults_to_file_stem(tmp_path: Path) -> None:
    path = write(tmp_path, 'target = "t"\nkind = "negative"\nprompt = "p"\n', "my-case.toml")
    assert load_case(path).id == "my-case"


def test_bad_moment_names_file_line_and_field(tmp_path: Path) -> None:
    path = write(tmp_path, 'target = "t"\nkind = "positive"\nprompt = "p"\nrequired = ["a.md"]\nmoment = "comit"\n')
    with pytest.raises(InputError) as err:
        load_case(path)
    assert (err.value.file, err.value.line, err.value.field) == (str(path), 5, "moment")


def test_wrong_kind_names_the_field_and_line(tmp_path: Path) -> None:
    path = write(tmp_path, 'target = "t"\n\nkind = "maybe"\nprompt = "p"\n')
    with pytest.raises(InputError) as err:
        load_case(path)
    assert (err.value.line, err.value.field) == (3, "kind")


def test_unknown_key_and_branch_field(tmp_path: Path) -> None:
    path = write(tmp_path, 'target = "t"\nkind = "negative"\nprompt = "p"\nrequird = ["x"]\n')
    with pytest.raises(InputError) as err:
        load_case(path)
    assert err.value.field == "requird" and err.value.line == 4
    path = write(tmp_path, 'target = "t"\nkind = "negative"\nprompt = "p"\n[[branches]]\nfiles = {}\n', "b.toml")
    with pytest.raises(InputError) as err:
        load_case(path)
    assert err.value.field == "branches[0].name"


def test_positive_without_required_and_toml_syntax(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="required"):
        load_case(write(tmp_path, 'target = "t"\nkind = "positive"\nprompt = "p"\n'))
    with pytest.raises(InputError) as err:
        load_case(write(tmp_path, 'target = "t"\nkind = \n', "s.toml"))
    assert err.value.line == 2


def test_find_case_by_id_or_path_and_duplicates(tmp_path: Path) -> None:
    a = write(tmp_path, 'id = "x"\ntarget = "t"\nkind = "negative"\nprompt = "p"\n', "a.toml")
    assert find_case("x", tmp_path).id == "x"
    assert find_case(str(a), ROOT / "cases").id == "x"
    with pytest.raises(InputError, match="no case"):
        find_case("y", tmp_path)
    write(tmp_path, 'id = "x"\ntarget = "t"\nkind = "negative"\nprompt = "q"\n', "b.toml")
    with pytest.raises(InputError, match="duplicate"):
        load_cases(tmp_path)
