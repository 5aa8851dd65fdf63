"""Content fingerprints: which procedure a tool output shows, and which it provably does not."""

from __future__ import annotations

from workbench.core.fingerprints import Fingerprints, call_evidence, content_evidence
from workbench.core.models import Call

TESTING = """# Testing
Follow these steps before you act.
1. Run the whole suite with `make check` before touching a test.
2.   Quarantine a flaky test,   never delete it.
"""
WRITING = """# Writing
Follow these steps before you act.
1. Every sentence names the command the reader types next.
"""
RELEASE = """1. Run the whole suite with `make check` before touching a test.
2. Then tag the release with the version from CHANGELOG.md.
"""
PROCS = {"procedures/testing.md": TESTING, "procedures/writing.md": WRITING}


def test_line_number_prefixes_and_whitespace_are_tolerated() -> None:
    fp = Fingerprints(PROCS)
    for shown in ("     4\t2. Quarantine a flaky test, never delete it.",  # cat -n, Claude's Read
                  "4→2. Quarantine a flaky test, never delete it.",
                  "4: 2.  Quarantine a flaky test,\tnever delete it.  ",  # OpenCode's read, grep -n
                  "procedures/testing.md:4:2. Quarantine a flaky test, never delete it."):  # grep -Hn
        assert fp.match(shown)["procedures/testing.md"] == "shown", shown


def test_shared_boilerplate_is_neither_shown_nor_absent() -> None:
    fp = Fingerprints(PROCS)
    assert "Follow these steps before you act." not in fp.distinctive["procedures/testing.md"]
    assert fp.match("Follow these steps before you act.\n") == {}  # some of both shown, neither proven


def test_a_line_another_procedure_contains_is_not_distinctive() -> None:
    fp = Fingerprints({**PROCS, "procedures/release.md": RELEASE})
    assert fp.distinctive["procedures/testing.md"] == ("2. Quarantine a flaky test, never delete it.",)
    found = fp.match("1. Run the whole suite with `make check` before touching a test.\n")
    assert "procedures/testing.md" not in found and "procedures/release.md" not in found
    assert found["procedures/writing.md"] == "absent"


def test_absent_needs_the_whole_output() -> None:
    fp = Fingerprints(PROCS)
    assert fp.match("no local copy\n") == {"procedures/testing.md": "absent", "procedures/writing.md": "absent"}
    assert fp.match("") == {"procedures/testing.md": "absent", "procedures/writing.md": "absent"}
    assert fp.match("no local copy\n", truncated=True) == {}
    assert fp.match(None) == {}


def test_a_file_without_long_lines_is_never_absent() -> None:
    fp = Fingerprints({"a.md": "# A\n- x\n", "b.md": "A line long enough to be distinctive, surely.\n"})
    assert fp.match("unrelated output") == {"b.md": "absent"}


def test_absent_is_kept_only_for_procedures_the_call_names() -> None:
    fp = Fingerprints(PROCS)
    cat = Call(index=0, tool="Bash", kind="shell", command="cat procedures/writing.md || echo none", output="none\n")
    assert call_evidence(fp, cat).evidence == {"procedures/writing.md": "absent"}
    glob = cat.model_copy(update={"command": "cat procedures/*.md"})
    assert set(call_evidence(fp, glob).evidence) == set(PROCS)
    shown = Call(index=1, tool="Bash", kind="shell", command="python3 show.py",
                 output="1. Every sentence names the command the reader types next.\n")
    assert call_evidence(fp, shown).evidence == {"procedures/writing.md": "shown"}


def test_edits_and_calls_without_output_get_no_evidence() -> None:
    edit = Call(index=0, tool="Edit", kind="edit", path="procedures/testing.md", output=TESTING)
    hidden = Call(index=1, tool="read_file", kind="read", path="procedures/testing.md")
    assert [c.evidence for c in content_evidence([edit, hidden], PROCS)] == [{}, {}]
    assert content_evidence([edit], {}) == [edit]


def test_a_title_alone_is_absent_and_never_distinctive() -> None:
    long_title = "# Before you create a commit, read this\nKeep the subject line under sixty characters.\n"
    fp = Fingerprints({**PROCS, "procedures/commit.md": long_title})
    assert fp.match("# Testing\n")["procedures/testing.md"] == "absent"  # head -1: the title only
    assert fp.match("     1\t# Before you create a commit, read this\n")["procedures/commit.md"] == "absent"
    assert fp.distinctive["procedures/commit.md"] == ("Keep the subject line under sixty characters.",)
    assert "procedures/testing.md" not in fp.match("# Testing\nFollow these steps before you act.\n")


def test_a_test_bracket_or_an_index_is_no_glob() -> None:
    fp = Fingerprints(PROCS)
    test = Call(index=0, tool="Bash", kind="shell", output="",
                command="[ -f procedures/writing.md ] && cat procedures/writing.md")
    assert call_evidence(fp, test).evidence == {"procedures/writing.md": "absent"}
    index = test.model_copy(update={"command": "python3 -c 'import sys; print(open(sys.argv[1]).read())' w.md"})
    assert call_evidence(fp, index).evidence == {}
    bracket = test.model_copy(update={"command": "cat procedures/[tw]*.md"})
    assert set(call_evidence(fp, bracket).evidence) == set(PROCS)
