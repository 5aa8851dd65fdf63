"""Conformance: `workbench summary` on AgentsMD's published records reproduces their published tables.

Expected numbers are parsed from the results page (copied into tests/data), never written here: the
Claude Code table (rows x main/fix2 columns and the notes' intermediate arms, with "k read, no action"),
the negatives paragraph and the other-hosts table. Arm labels are resolved to shas from the same page.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from workbench.cli import main

DATA = Path(__file__).parent / "data" / "conformance"
SWEEP = DATA / "182-routing-sweep"
RESULTS = (SWEEP / "results.md").read_text()
FRACTION = re.compile(r"^(\d+)/(\d+)(?: \((\d+) read, no \w+\))?$")


def summary_json(path: Path) -> dict[str, Any]:
    """The summary JSON of a records file, produced by the command line."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(["summary", str(path), "--format", "json"]) == 0
    return dict(json.loads(buf.getvalue()))


@pytest.fixture(scope="module", params=["stored", "rescored"])
def summary(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The sweep's summary from the published verdicts, and again after `rescore` with the current rules."""
    path = SWEEP / "records.jsonl"
    if request.param == "rescored":
        out = tmp_path_factory.mktemp("rescored") / "records.jsonl"
        with contextlib.redirect_stdout(io.StringIO()):
            assert main(["rescore", str(path), "--write", str(out)]) == 0
        path = out
    return summary_json(path)


def sha_of(label: str) -> str:
    """The arm sha the page gives for a label: the first backticked sha shortly after it, outside tables."""
    match = re.search(r"\b" + re.escape(label) + r"\W[^`|]{0,80}?`([0-9a-f]{7})`", RESULTS)
    assert match, f"no sha for {label!r} on the results page"
    return match.group(1)


def table(header_start: str) -> list[list[str]]:
    """The rows of the markdown table whose header line starts with `header_start` (header included)."""
    lines = RESULTS.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header_start))
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return [rows[0], *rows[2:]]


def cells(summary: dict[str, Any], **match: Any) -> list[dict[str, Any]]:
    return [c for c in summary["runs"] if all(c[k] == v for k, v in match.items())]


def check(cell_text: str, found: list[dict[str, Any]], what: str) -> None:
    """Compare one published `k/n (j read, no action)` with the single matching summary cell."""
    cell_text = cell_text.replace("*", "").strip()
    m = FRACTION.match(cell_text)
    assert m, f"{what}: cannot parse published cell {cell_text!r}"
    assert len(found) == 1, f"{what}: expected one summary cell, found {len(found)}"
    cell = found[0]
    hits, n, read_noaction = int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)
    got = (cell["hits"], cell["valid"], cell["read_noaction"])
    assert got == (hits, n, read_noaction), f"{what}: published {cell_text!r}, summary {got}"


def claude_table() -> list[tuple[str, str, str]]:
    """(row, column label or note label, published text) for every cell of the Claude Code table."""
    header, *rows = table("| Row |")
    columns = [h.split()[0] for h in header[1:-1]]
    out = []
    for row in rows:
        target = row[0]
        for label, text in zip(columns, row[1:-1], strict=True):
            out.append((target, label, text))
        for note in filter(None, (n.strip().replace("*", "") for n in row[-1].split(";"))):
            label, _, text = note.rpartition(":")
            out.append((target, label.strip(), text.strip()))
    return out


CLAUDE_CELLS = claude_table()


def test_the_published_table_was_parsed() -> None:
    assert len({t for t, _, _ in CLAUDE_CELLS}) >= 26
    assert any(label == "fix1" for _, label, _ in CLAUDE_CELLS)
    assert any("read, no action" in text for _, _, text in CLAUDE_CELLS)


@pytest.mark.parametrize(("target", "label", "text"), CLAUDE_CELLS,
                         ids=[f"{t}-{a}" for t, a, _ in CLAUDE_CELLS])
def test_claude_code_table_cell(summary: dict[str, Any], target: str, label: str, text: str) -> None:
    sha = sha_of(label)
    found = cells(summary, host="claude", source=sha, target=target, kind="positive")
    if text == "not run" or re.search(r"\(#\d+\)", text):
        # "not run", or a figure from another study (e.g. "0/5 (#181)"): absent from these records.
        assert found == [], f"{target} on {label}: published {text!r} but the records have runs"
        return
    check(text, found, f"{target} on {label} ({sha})")


def negatives_paragraph() -> str:
    return next(p for p in RESULTS.split("\n\n") if p.startswith("Negatives:"))


def test_shared_negatives_clean_per_arm(summary: dict[str, Any]) -> None:
    clause = re.search(r"clean in every run on (.*?);", negatives_paragraph(), re.S)
    assert clause
    published = re.findall(r"(\w+)\s+\((\d+)/(\d+)\)", clause.group(1))
    assert len(published) >= 3
    for label, clean, n in published:
        found = [c for c in cells(summary, host="claude", source=sha_of(label), kind="negative")
                 if c["target"].startswith("sweep-negative")]
        got = (sum(c["clean"] for c in found), sum(c["valid"] for c in found))
        assert got == (int(clean), int(n)), f"negatives on {label}: published {clean}/{n}, summary {got}"
        assert int(clean) == int(n)  # "clean in every run"


def test_question_negative_opened_file(summary: dict[str, Any]) -> None:
    m = re.search(r"on (\w+) the question prompt opened\s+`([^`]+)`\s+in (\d+)/(\d+)", negatives_paragraph())
    assert m
    label, file, opened, n = m.group(1), m.group(2), int(m.group(3)), int(m.group(4))
    (cell,) = cells(summary, host="claude", source=sha_of(label), target="sweep-negative-question")
    assert (cell["opened"], cell["valid"]) == (opened, n)
    (per_file,) = [f for f in summary["files"] if f["source"] == sha_of(label) and f["host"] == "claude"
                   and f["target"] == "sweep-negative-question" and f["file"] == file]
    assert (per_file.get("opened", 0), per_file["runs"]) == (opened, n)


def test_first_edit_negatives(summary: dict[str, Any]) -> None:
    m = re.search(r"first-edit negatives stayed clean on (\w+) \((\d+)/(\d+)\)", negatives_paragraph())
    assert m
    found = [c for c in cells(summary, host="claude", source=sha_of(m.group(1)), kind="negative")
             if not c["target"].startswith("sweep-negative")]
    got = (sum(c["clean"] for c in found), sum(c["valid"] for c in found))
    assert got == (int(m.group(2)), int(m.group(3)))


def other_hosts_cells() -> list[tuple[str, str, str, str]]:
    """(host, target, arm label or '', published text) from the other-hosts table."""
    header, *rows = table("| Host, model |")
    assert "Verification" in header[1] and "negative" in header[2].lower()
    out = []
    for row in rows:
        host = row[0].split(",")[0].split()[0].lower()
        out.append((host, "verification", "", row[1]))
        for part in row[2].split(";"):
            text, _, label = part.replace("*", "").strip().partition(" on ")
            out.append((host, "sweep-negative-question", label.strip(), text.strip()))
    return out


OTHER_CELLS = other_hosts_cells()


@pytest.mark.parametrize(("host", "target", "label", "text"), OTHER_CELLS,
                         ids=[f"{h}-{t}-{a or 'head'}" for h, t, a, _ in OTHER_CELLS])
def test_other_hosts_cell(summary: dict[str, Any], host: str, target: str, label: str, text: str) -> None:
    head = re.search(r"earlier head `([0-9a-f]{7})` \((\w+) plus", RESULTS)
    assert head
    # The section's "fix2" is its head (fix2 plus the final scorer); other labels resolve as elsewhere.
    sha = head.group(1) if label in ("", head.group(2)) else sha_of(label)
    kind = "negative" if "negative" in target else "positive"
    found = cells(summary, host=host, source=sha, target=target, kind=kind)
    if kind == "negative":
        m = FRACTION.match(text)
        assert m and len(found) == 1
        got = (found[0]["clean"], found[0]["valid"])
        assert got == (int(m.group(1)), int(m.group(2))), (host, label, text)
    else:
        check(text, found, f"{host} {target} on {sha}")


def test_opencode_baseline_and_fix3_prose(summary: dict[str, Any]) -> None:
    base = re.search(r"against (\d+)/(\d+) on the released rows", RESULTS)
    assert base
    (cell,) = cells(summary, host="opencode", source=sha_of("main"), target="sweep-negative-question")
    assert (cell["opened"], cell["valid"]) == (int(base.group(1)), int(base.group(2)))
    m = re.search(r"On (\w+), OpenCode's question negative was (\d+)/(\d+) clean, research (\d+)/(\d+) and\s+"
                  r"verification (\d+)/(\d+)", RESULTS)
    assert m
    sha = sha_of(m.group(1))
    for target, (k, n) in (("sweep-negative-question", m.group(2, 3)), ("research", m.group(4, 5)),
                           ("verification", m.group(6, 7))):
        (cell,) = cells(summary, host="opencode", source=sha, target=target)
        assert (cell["hits"], cell["valid"]) == (int(k), int(n)), target


@pytest.mark.parametrize("name", ["174-routing-injection/midtask.jsonl", "174-routing-injection/canary.jsonl",
                                  "164-trigger-audit/records.jsonl", "174-routing-injection/records.jsonl"])
def test_older_files_summarize_without_error(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["summary", str(DATA / name), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    n_lines = sum(1 for line in (DATA / name).read_text().splitlines() if line.strip())
    assert sum(c["total"] + c["excluded"] for c in data["runs"]) == n_lines
    assert main(["summary", str(DATA / name)]) == 0
    assert "|" in capsys.readouterr().out


def test_invalid_batches_never_pool_with_fixed_ones(capsys: pytest.CaptureFixture[str]) -> None:
    inj = DATA / "174-routing-injection"
    files = [str(inj / "midtask.jsonl"), str(inj / "midtask-prefix.jsonl")]
    assert main(["summary", *files, "--format", "json"]) == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert data["unverified_runs"] == 60
    assert "no call status" in captured.err
    verified = sum(c["total"] for c in data["runs"] if c["reads_verified"])
    unverified = sum(c["total"] for c in data["runs"] if not c["reads_verified"])
    assert (verified, unverified) == (40, 60)
