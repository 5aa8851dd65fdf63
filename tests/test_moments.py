"""Moment specs: parsing, presets, and where the first attempt happened."""

from __future__ import annotations

import pytest

from workbench.core.errors import InputError
from workbench.core.models import Call, CallKind, CallStatus
from workbench.core.moments import find_moment, parse_moment


def sh(command: str, status: CallStatus = "ok", index: int = 0) -> Call:
    return Call(index=index, tool="Bash", kind="shell", command=command, status=status)


def tool(name: str, kind: CallKind, status: CallStatus = "ok", path: str | None = None) -> Call:
    return Call(index=0, tool=name, kind=kind, status=status, path=path)


def at(spec: str, *calls: Call) -> int | None:
    return find_moment(spec, list(calls))


def test_edit_is_first_edit_tool_or_writing_shell() -> None:
    assert at("edit", sh("ls"), tool("Edit", "edit", path="a.md")) == 1
    assert at("edit", sh("ls"), sh("echo x > a.md"), tool("Write", "edit")) == 1
    assert at("edit", sh("ls 2>/dev/null"), sh("cat a.md")) is None


def test_denied_or_failed_attempt_is_the_moment() -> None:
    assert at("edit", sh("ls"), tool("Edit", "edit", status="denied")) == 1
    assert at("edit", tool("apply_patch", "edit", status="error")) == 0
    assert at("commit", sh("git commit -m x", status="denied")) == 0


def test_end_is_len_calls() -> None:
    assert at("end", sh("ls"), sh("ls")) == 2
    assert at("end") == 0
    assert at("edit,end", sh("ls"), sh("echo x > a"), sh("ls")) == 1
    assert at("edit,end", sh("ls")) == 1


@pytest.mark.parametrize(("command", "expected"), [
    ("git commit -m 'x'", True),
    ("git -C <repo> commit -qm x", True),
    ("git -c user.name=x commit -m y", True),
    ("python3 -m unittest && git add a && git commit -q -m 'fix'", True),
    ("git commit-tree HEAD^{tree}", False),
    ("git log --grep commit", False),
    ("echo git commit", False),
])
def test_commit_preset(command: str, expected: bool) -> None:
    assert (at("commit", sh(command)) == 0) is expected


@pytest.mark.parametrize(("command", "expected"), [
    ("gh pr create --base main --title 'x' --body 'y'", True),
    ("gh pr edit 3 --body x", True),
    ("gh pr ready 3", True),
    ("gh pr view 3", False),
    ("gh pr list", False),
    ("gh pr checks", False),
    ("gh pr status", False),
    ("gh pr diff", False),
])
def test_pr_preset(command: str, expected: bool) -> None:
    assert (at("pr", sh(command)) == 0) is expected


@pytest.mark.parametrize(("command", "expected"), [
    ("git merge --ff-only fix/divide && git tag -a v1.0.1 -m 'v1.0.1'", True),
    ("git merge --no-ff fix/divide -m 'Merge'", True),
    ("gh pr merge 3 --squash", True),
    ("git merge-base --is-ancestor task/docs main && echo merged", False),
    ("git merge --abort", False),
])
def test_merge_preset(command: str, expected: bool) -> None:
    assert (at("merge", sh(command)) == 0) is expected


@pytest.mark.parametrize(("command", "expected"), [
    ("git tag v1.0.1", True),
    ("git tag -a v1.0.1 -m 'release notes'", True),
    ("gh release create v1 --notes x", True),
    ("npm publish", True),
    ("git tag", False),
    ("git tag; ls src tests", False),
    ("git tag -l", False),
    ("git tag --list 'v*'", False),
    ("git tag -n", False),
    ("git tag -n5", False),
    ("git tag --contains HEAD", False),
    ("git tag -d v1", False),
    ("gh release list", False),
])
def test_release_preset(command: str, expected: bool) -> None:
    assert (at("release", sh(command)) == 0) is expected


def test_issue_preset() -> None:
    assert at("issue", sh("gh issue list --state all"), sh("gh issue create -t x -b y")) == 1


def test_bash_regex_anchors_at_command_word() -> None:
    assert at(r"bash:^grok\b", sh("command -v grok"), sh("which grok")) is None
    assert at(r"bash:^grok\b", sh("ls"), sh("cd /tmp && FOO=1 sudo grok --prompt x")) == 1
    assert at(r"bash:^python3\b", sh("cd \"$TMPDIR\" && python3 --version")) == 0


def test_tool_regex_uses_search_case_sensitive() -> None:
    assert at("tool:^Agent$", tool("agent", "agent"), tool("Agent", "agent")) == 1
    assert at("tool:Task", tool("SubTask", "agent")) == 0


def test_comma_inside_regex_is_not_a_separator() -> None:
    spec = parse_moment(r"bash:^x{1,3}$,tool:Agent")
    assert [a.text for a in spec.alternatives] == [r"bash:^x{1,3}$", "tool:Agent"]
    assert at(r"bash:^x{1,3}$,tool:Agent", sh("xx"), tool("Agent", "agent")) == 0


def test_alternatives_earliest_wins() -> None:
    calls = [sh("ls"), sh("gh pr create -t x"), sh("git commit -m y")]
    assert find_moment("commit, pr", calls) == 1
    assert find_moment("commit", calls) == 2


@pytest.mark.parametrize("spec", ["bash:(", "tool:[a-", "bash:"])
def test_invalid_regex_names_the_field(spec: str) -> None:
    with pytest.raises(InputError) as err:
        parse_moment(spec)
    assert err.value.field == "moment"
    assert spec.partition(":")[2] in str(err.value) or "empty" in str(err.value)


def test_unknown_kind_is_input_error() -> None:
    with pytest.raises(InputError, match="deploy"):
        parse_moment("deploy")
