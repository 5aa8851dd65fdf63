"""Fixture repos: base content and extra files on main, one real commit per branch, no escapes."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.core.errors import InputError
from workbench.core.models import Branch, Case
from workbench.runner.fixture import make_fixture

BASE = Path(__file__).resolve().parent.parent / "fixtures" / "base"


def case(**kw: object) -> Case:
    return Case.model_validate({"id": "c", "target": "t", "kind": "negative", "prompt": "p", **kw})


def test_base_and_extra_files_committed_on_main(tmp_path: Path) -> None:
    repo = make_fixture(tmp_path / "r", case(extra_files={"docs/x.md": "x\n"}), BASE)
    assert repo.active_branch.name == "main"
    assert not repo.is_dirty(untracked_files=True)
    tracked = set(repo.git.ls_files().split("\n"))
    assert {"README.md", "src/app.py", "tests/test_app.py", "docs/x.md"} <= tracked


def test_each_branch_has_exactly_one_commit_and_head_ends_on_the_last(tmp_path: Path) -> None:
    c = case(branches=[Branch(name="one", files={"a.txt": "a"}), Branch(name="two", files={"b.txt": "b"})])
    repo = make_fixture(tmp_path / "r", c, files={"README.md": "hi\n"})
    assert repo.active_branch.name == "two"
    for name, path in (("one", "a.txt"), ("two", "b.txt")):
        assert repo.git.rev_list("--count", f"main..{name}") == "1"
        assert repo.git.diff("--name-only", f"main..{name}") == path


def test_paths_leaving_the_repo_are_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="leaves the repo"):
        make_fixture(tmp_path / "r", case(extra_files={"../evil": "x"}))
    assert not (tmp_path / "evil").exists()


def test_missing_base_and_non_empty_destination(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not found"):
        make_fixture(tmp_path / "r", None, tmp_path / "nope")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "f").write_text("x")
    with pytest.raises(InputError, match="not empty"):
        make_fixture(tmp_path / "full")


def test_a_branch_the_prompt_names_must_exist(tmp_path: Path) -> None:
    case = Case(id="c", target="pr", kind="positive", prompt="The branch fix/divide is done. Open a PR.",
                required=["pull-request.md"], moment="pr")
    with pytest.raises(InputError) as err:
        make_fixture(tmp_path / "repo", case)
    assert "fix/divide" in str(err.value) and err.value.field == "branches"
    assert not (tmp_path / "repo").exists()  # refused before anything was made


def test_a_named_branch_with_its_commit_is_possible(tmp_path: Path) -> None:
    case = Case(id="c", target="pr", kind="positive", prompt="The branch fix/divide is done. Open a PR.",
                required=["pull-request.md"], moment="pr",
                branches=[Branch(name="fix/divide", files={"src/x.py": "x = 1\n"})])
    repo = make_fixture(tmp_path / "repo", case)
    assert repo.active_branch.name == "fix/divide"


def test_merge_moment_needs_a_branch(tmp_path: Path) -> None:
    case = Case(id="c", target="merge", kind="positive", prompt="Merge the finished work.",
                required=["merge.md"], moment="merge")
    with pytest.raises(InputError) as err:
        make_fixture(tmp_path / "repo", case)
    assert err.value.field == "moment"
