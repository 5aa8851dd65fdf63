"""Shell analysis: which files a command line reads and writes, and its simple commands."""

from __future__ import annotations

import pytest

from workbench.core.paths import either_suffix, join, normalize, suffix_match
from workbench.core.shell import analyze, python_files


def reads(command: str, cwd: str | None = None) -> list[str]:
    return analyze(command, cwd).reads


def writes(command: str) -> list[str]:
    return analyze(command).writes


# ---- paths


@pytest.mark.parametrize(("path", "required", "expected"), [
    ("a/b/writing.md", "writing.md", True),
    ("a/rewriting.md", "writing.md", False),
    ("<plugin>/x/references/context.md", "references/context.md", True),
    ("<plugin>/x/other/context.md", "references/context.md", False),
    ("context.md", "references/context.md", False),
    ("a/./b/x.md", "a/b/x.md", True),
    ("a/y/../b/x.md", "a/b/x.md", True),
    ("~/notes/x.md", "<home>/notes/x.md", True),
    ("/home/u/plugins/p/skills/x.md", "<plugin>/skills/x.md", True),
    ("<repo>/skills/x.md", "<plugin>/skills/x.md", False),
    ("p/references/*.md", "references/context.md", True),
    ("p/references/*.txt", "references/context.md", False),
    ("tests/*", "prose.md", False),  # a bare glob gives no evidence of the base-name-only file's directory
    ("<plugin>/x/*.md", "context.md", False),
    ("docs/*", "docs/prose.md", True),
])
def test_suffix_match_on_segment_boundaries(path: str, required: str, expected: bool) -> None:
    assert suffix_match(path, required) is expected


def test_normalize_and_join() -> None:
    assert normalize("./a//b/./c/../d") == "a/b/d"
    assert join("<plugin>/ops", "../refs/x.md") == "<plugin>/refs/x.md"
    assert join("<plugin>/ops", "/abs/x.md") == "/abs/x.md"
    assert join(None, "x.md") == "x.md"


def test_either_suffix_accepts_both_shapes() -> None:
    assert either_suffix("refs/x.md", "/abs/p/refs/x.md")
    assert either_suffix("/abs/p/refs/x.md", "refs/x.md")
    assert not either_suffix("refs/x.md", "refs/y.md")


# ---- readers


@pytest.mark.parametrize(("command", "expected"), [
    ("cat a.md b.md", ["a.md", "b.md"]),
    ("head -n 40 a.md", ["a.md"]),
    ("head -80 a.md", ["a.md"]),
    ("tail -n5 a.md", ["a.md"]),
    ("sed -n 1,80p f.md", ["f.md"]),
    ("sed -n -e 1p -e 2p f.md", ["f.md"]),
    ("nl -ba f.md", ["f.md"]),
    ("less f.md", ["f.md"]),
    ("bat --paging=never f.md", ["f.md"]),
    ("awk -F: '{print $1}' f.md", ["f.md"]),
    ("awk -f prog.awk f.md", ["f.md"]),
    ("grep -n pattern f.md g.md", ["f.md", "g.md"]),
    ("grep -e pat -e other f.md", ["f.md"]),
    ("rg -n -g '*.md' pat docs/f.md", ["docs/f.md"]),
    ("egrep 'a|b' f.md", ["f.md"]),
    ("view f.md", ["f.md"]),
    ("cat < f.md", ["f.md"]),
    ("python3 -c \"print(open('x.md').read())\"", ["x.md"]),
    ("python3 - <<'EOF'\nprint(open('x.md').read())\nEOF", ["x.md"]),
    ("python3 -c \"import pathlib; print(pathlib.Path('x.md').read_text())\"", ["x.md"]),
])
def test_readers(command: str, expected: list[str]) -> None:
    assert reads(command) == expected


@pytest.mark.parametrize("command", [
    "cat <<EOF\nwritten by the agent\nEOF",
    "grep -l pattern f.md",
    "grep -q pattern f.md",
    "grep -rn pattern",
    "source f.md",
    ". f.md",
    "python3 f.py",
    "python3 -m unittest",
    "ls f.md",
    "wc -l f.md",
    "echo cat f.md",
    "sed -i s/a/b/ f.md",
])
def test_not_reads(command: str) -> None:
    assert reads(command) == []


def test_grep_pattern_is_not_a_file() -> None:
    assert reads("grep writing.md notes.txt") == ["notes.txt"]


def test_cd_then_cat_from_published_record() -> None:
    command = "cd <plugin>/skills/operations/workflows/domain-modeling && cat GLOSSARY-FORMAT.md; cat index.md | head -60"
    assert reads(command) == [
        "<plugin>/skills/operations/workflows/domain-modeling/GLOSSARY-FORMAT.md",
        "<plugin>/skills/operations/workflows/domain-modeling/index.md",
    ]


def test_cd_chain_switches_back_to_repo() -> None:
    command = ("cd <plugin>/skills/operations && cat workflows/software-design/index.md "
               "references/implementation.md; cd <repo> && cat tests/test_app.py")
    assert reads(command) == [
        "<plugin>/skills/operations/workflows/software-design/index.md",
        "<plugin>/skills/operations/references/implementation.md",
        "<repo>/tests/test_app.py",
    ]


def test_cd_dash_and_bare_cd_forget_the_directory() -> None:
    assert reads("cd refs && cd - && cat x.md") == ["x.md"]
    assert reads("cd refs; cd; cat x.md") == ["<home>/x.md"]


def test_subshell_cd_does_not_leak() -> None:
    assert reads("(cd refs && cat a.md); cat b.md") == ["refs/a.md", "b.md"]


def test_cwd_argument_resolves_relative_paths() -> None:
    assert reads("cat x.md", cwd="<repo>/docs") == ["<repo>/docs/x.md"]


def test_variable_then_cat_from_published_record() -> None:
    command = ("P=<plugin>/skills/operations; cat $P/workflows/software-design/index.md "
               "$P/references/implementation.md; cd <repo>; cat tests/test_app.py")
    assert reads(command) == [
        "<plugin>/skills/operations/workflows/software-design/index.md",
        "<plugin>/skills/operations/references/implementation.md",
        "<repo>/tests/test_app.py",
    ]


def test_for_loop_from_published_record() -> None:
    command = ('for f in README.md GLOSSARY.md skills/greet/SKILL.md; do echo "=== $f"; cat "$f"; done; '
               "git remote -v")
    assert reads(command) == ["README.md", "GLOSSARY.md", "skills/greet/SKILL.md"]


def test_brace_list_and_glob() -> None:
    assert reads("cat refs/{a,b}.md") == ["refs/a.md", "refs/b.md"]
    assert reads("cat 'refs/{a,b}.md'") == ["refs/{a,b}.md"]
    assert reads("cat $P/references/*.md") == ["$P/references/*.md"]


def test_chains_pipes_and_substitutions() -> None:
    assert reads("git status && cat a.md || cat b.md; ls | cat c.md") == ["a.md", "b.md", "c.md"]
    assert reads("echo $(cat a.md) `cat b.md`") == ["a.md", "b.md"]
    assert reads('diff <(cat a.md) b.md') == ["a.md"]
    assert reads("bash -lc 'cd refs && cat a.md'") == ["refs/a.md"]


def test_flattened_heredoc_body_is_not_commands() -> None:
    command = ("git switch -c x && cat > tests/test_greet.py <<'EOF' import unittest cat secret.md "
               "EOF && cat README.md")
    assert reads(command) == ["README.md"]
    assert writes(command) == ["tests/test_greet.py"]


def test_placeholder_is_not_a_redirection() -> None:
    assert reads("cat <plugin>/x.md") == ["<plugin>/x.md"]
    assert writes("cat <plugin>/x.md") == []


# ---- writes


@pytest.mark.parametrize(("command", "expected"), [
    ("echo x > f.md", ["f.md"]),
    ("echo x >> f.md", ["f.md"]),
    ("echo x>f.md", ["f.md"]),
    ("cat > f.md <<'EOF'\nbody\nEOF", ["f.md"]),
    ("sed -i 's/a/b/' f.md", ["f.md"]),
    ("sed -i.bak -e 's/a/b/' f.md", ["f.md"]),
    ("echo x | tee -a f.md", ["f.md"]),
    ("perl -pi -e 's/a/b/' f.md", ["f.md"]),
    ("cp a.md b.md", ["b.md"]),
    ("rm f.md", ["f.md"]),
    ("python3 -c \"open('f.md','w').write('x')\"", ["f.md"]),
    ("python3 - <<'EOF' import pathlib p = pathlib.Path(\"src/app.py\") s = p.read_text() "
     "p.write_text(s) EOF", ["src/app.py"]),
    ("apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: src/app.py\n*** End Patch\nEOF", ["src/app.py"]),
    ("cmd &> log.txt", ["log.txt"]),
])
def test_writes(command: str, expected: list[str]) -> None:
    assert writes(command) == expected


@pytest.mark.parametrize("command", [
    "ls 2>/dev/null", "ls >/dev/null 2>&1", "echo x >&2", "cmd 2>&1 | tail -5", "cat f.md", "mkdir -p d",
    "sed -n 1p f.md", "echo x | tee /dev/null",
    "touch f.md",  # an existing file's content is unchanged; a new file is seen by the repo watcher
])
def test_not_writes(command: str) -> None:
    assert writes(command) == []


def test_python_files_modes() -> None:
    assert python_files("open('a','r+'); open('b', mode='a')") == (["a"], ["a", "b"])


# ---- simple commands


def test_simple_commands_strip_assignments_and_sudo() -> None:
    cmds = analyze("FOO=1 sudo -u me git commit -m 'a b' && command -v grok").simple_commands
    assert cmds == [["git", "commit", "-m", "a b"], ["command", "-v", "grok"]]


@pytest.mark.parametrize("command", ['cat "unbalanced', "echo 'x", "$(((", "cat <<", "a && && ||", "`", "\\"])
def test_broken_input_keeps_what_came_before_it(command: str) -> None:
    """A broken tail neither raises nor loses the well-formed commands before it: their read, their
    write and their words are still found, in order."""
    alone = analyze(command)
    both = analyze("cat f.md && echo hi > out.txt; " + command)
    assert both.reads[:1] == ["f.md"] and both.reads[1:] == alone.reads
    assert both.writes == ["out.txt", *alone.writes]
    assert both.simple_commands[:2] == [["cat", "f.md"], ["echo", "hi"]]
    assert both.simple_commands[2:] == alone.simple_commands


def test_git_apply_writes_the_tree_unless_dry_run_or_index_only() -> None:
    # captured on every host (tests/data/adversarial S20): `git apply fix.diff` changed notes.txt
    assert analyze("git apply fix.diff").writes == ["<git apply>"]
    assert analyze("git -C /r apply x.diff").writes == ["<git apply>"]
    assert analyze("git apply --stat --apply x.diff").writes == ["<git apply>"]
    for dry in ("git apply --check x.diff", "git apply --stat x.diff", "git apply --cached x.diff", "git log"):
        assert analyze(dry).writes == [], dry
