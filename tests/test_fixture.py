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
