"""Property-based fuzzing, 10,000 examples each: every host stream parser never raises, and every file
loader (case TOML, script JSON/TOML, workspace TOML, records JSONL) either loads or raises ONE
InputError naming the file on one line. Inputs mix arbitrary text, arbitrary JSON/TOML values with the
formats' own keys, and real files with parts replaced, so the fuzzer reaches past the first check.
Marked slow (run by `make test` / CI); the total wall time is measured in docs/reliability.md."""

from __future__ import annotations

import json
import multiprocessing
import os
import random
import sys
import tempfile
import traceback
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.core.cases import load_case
from workbench.core.errors import InputError
from workbench.core.hostinfo import NAMES
from workbench.core.parsers import make_parser
from workbench.core.records import load_file
from workbench.core.workspace import parse_workspace
from workbench.modelstub import load_script

ROOT = Path(__file__).resolve().parent.parent
STREAMS = ROOT / "tests" / "data" / "streams"
EXAMPLES = int(os.environ.get("WB_FUZZ_EXAMPLES", "10000"))
"""Examples per test; set lower only to measure (CI runs 10,000)."""
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow])

STREAM_FILES = {"claude": ["claude.jsonl", "claude-default.jsonl"], "codex": ["codex.jsonl"],
                "opencode": ["opencode-final.jsonl"], "gemini": ["gemini-autoedit-allowshell.jsonl"],
                "grok": ["grok.jsonl", "grok-tools.jsonl"], "sim": ["claude.jsonl"]}
REAL = {h: [ln for n in names for ln in (STREAMS / n).read_text().splitlines() if ln.strip()]
        for h, names in STREAM_FILES.items()}
ROLLOUT = (STREAMS / "codex-rollout.jsonl").read_text().splitlines()


def _keys(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys(v)}
    return set()


VOCAB = sorted({k for lines in REAL.values() for ln in lines for k in _keys(json.loads(ln))}
               | {"id", "target", "kind", "prompt", "required", "moment", "extra_files", "branches", "exceptions",
                  "steps", "say", "calls", "read", "shell", "edit", "write", "skill", "path", "old", "new", "content",
                  "name", "plugin", "defaults", "hosts", "audit", "cases", "records", "host", "valid", "verdict",
                  "run", "usage", "condition", "schema_version", "overall", "positive", "negative", "end"})
scalars = (st.none() | st.booleans() | st.integers(-2**40, 2**40) | st.floats(allow_nan=False)
           | st.text(max_size=20) | st.sampled_from(VOCAB))
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.sampled_from(VOCAB) | st.text(max_size=8), inner, max_size=5),
                           max_leaves=12)


def mutate(value: Any, rnd: random.Random, replacement: Any) -> Any:
    """VALUE with one randomly chosen nested value (or the whole) replaced."""
    if isinstance(value, dict) and value and rnd.random() < 0.8:
        key = rnd.choice(sorted(value))
        return {**value, key: mutate(value[key], rnd, replacement)}
    if isinstance(value, list) and value and rnd.random() < 0.8:
        i = rnd.randrange(len(value))
        return [*value[:i], mutate(value[i], rnd, replacement), *value[i + 1:]]
    return replacement


def _garble(text: str, rnd: random.Random, junk: str) -> str:
    """TEXT with a slice replaced by JUNK (truncation, insertion, or both)."""
    a = rnd.randrange(len(text) + 1)
    b = min(len(text), a + rnd.randrange(12))
    return text[:a] + junk + text[b:]


# --- host parsers ---------------------------------------------------------------------------------

@st.composite
def stream_lines(draw: st.DrawFn, host: str) -> list[str]:
    rnd = random.Random(draw(st.integers(0, 2**32)))
    lines = list(rnd.sample(REAL[host], k=min(len(REAL[host]), 8)))
    for _ in range(draw(st.integers(1, 4))):
        pos = rnd.randrange(len(lines))
        choice = draw(st.integers(0, 3))
        if choice == 0:
            try:
                lines[pos] = json.dumps(mutate(json.loads(lines[pos]), rnd, draw(json_values)))
            except ValueError:  # a line garbled by an earlier round
                lines[pos] = json.dumps(draw(json_values))
        elif choice == 1:
            lines[pos] = _garble(lines[pos], rnd, draw(st.text(max_size=6)))
        elif choice == 2:
            lines.insert(pos, json.dumps(draw(json_values)))
        else:
            lines.insert(pos, draw(st.text(max_size=40)))
    return lines


def parse_all(host: str, lines: list[str], session_log: list[str] | None = None) -> None:
    parser = make_parser(host, session_log)
    for line in lines:
        parser.feed(line)
    parser.finish()


def fuzz_host_parser(host: str, workdir: Path) -> None:
    """Never raises, whatever the lines."""
    @FUZZ
    @given(lines=stream_lines(host))
    def check(lines: list[str]) -> None:
        parse_all(host, lines)
    check()


def fuzz_codex_session_log(host: str, workdir: Path) -> None:
    """The Codex parser with a garbled rollout log never raises."""
    @FUZZ
    @given(seed=st.integers(0, 2**32), junk=json_values, text=st.text(max_size=30))
    def check(seed: int, junk: Any, text: str) -> None:
        rnd = random.Random(seed)
        log = list(ROLLOUT)
        pos = rnd.randrange(len(log))
        log[pos] = json.dumps(mutate(json.loads(log[pos]), rnd, junk)) if rnd.random() < 0.7 else text
        parse_all("codex", REAL["codex"], log)
    check()


# --- file loaders ---------------------------------------------------------------------------------

def toml_value(value: Any) -> str:
    """A TOML rendering of a JSON-like value (None becomes a string: TOML has no null)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {toml_value(v)}" for k, v in value.items()) + "}"
    return json.dumps(str(value) if value is not None else "null")


@st.composite
def toml_texts(draw: st.DrawFn, real: str) -> str:
    """A real TOML file with lines replaced, garbled or added (keys from the formats' vocabulary)."""
    rnd = random.Random(draw(st.integers(0, 2**32)))
    lines = real.splitlines()
    for _ in range(draw(st.integers(1, 3))):
        pos = rnd.randrange(len(lines) + 1)
        choice = draw(st.integers(0, 2))
        if choice == 0:
            lines.insert(pos, f"{draw(st.sampled_from(VOCAB))} = {toml_value(draw(json_values))}")
        elif choice == 1 and lines:
            lines[min(pos, len(lines) - 1)] = _garble(lines[min(pos, len(lines) - 1)], rnd, draw(st.text(max_size=5)))
        else:
            lines.insert(pos, draw(st.text(max_size=30)))
    return "\n".join(lines) + "\n"


def assert_loads_or_one_line_error(load: Any, path: Path) -> None:
    try:
        load(path)
    except InputError as err:
        text = str(err)
        assert "\n" not in text and str(path) in text, text


CASE = (ROOT / "cases" / "docs-readme-section.toml").read_text()
WORKSPACE = (ROOT / "workbench.toml").read_text()
SCRIPT_TOML = '[[steps]]\nsay = "hi"\n[[steps.calls]]\nread = "{repo}/a.md"\n[[steps]]\nsay = "done"\n'
SCRIPT_JSON = json.dumps({"steps": [{"calls": [{"read": "{repo}/a.md"}, {"edit": {"path": "{repo}/a", "old": "x",
                                                                                 "new": "y"}}]}, {"say": "done"}]})
RECORD = (ROOT / "tests" / "data" / "record.json").read_text() if (ROOT / "tests" / "data" / "record.json").is_file() \
    else json.dumps({"condition": "canary", "host": "sim", "target": "docs", "kind": "positive", "run": 0,
                     "calls": [{"index": 0, "tool": "Read", "kind": "read", "path": "<plugin>/a.md"}],
                     "verdict": {"a.md": "fired"}, "usage": {"input_tokens": 3}})


def fuzz_case_toml(host: str, workdir: Path) -> None:
    path = workdir / "case.toml"

    @FUZZ
    @given(text=st.one_of(toml_texts(CASE), st.text(max_size=200)))
    def check(text: str) -> None:
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        assert_loads_or_one_line_error(lambda p: load_case(p, rows=[]), path)
    check()


def fuzz_workspace_toml(host: str, workdir: Path) -> None:
    path = workdir / "workbench.toml"

    @FUZZ
    @given(text=st.one_of(toml_texts(WORKSPACE), st.text(max_size=200)))
    def check(text: str) -> None:
        assert_loads_or_one_line_error(lambda p: parse_workspace(text, file=p), path)
    check()


def fuzz_script_toml(host: str, workdir: Path) -> None:
    path = workdir / "script.toml"

    @FUZZ
    @given(text=st.one_of(toml_texts(SCRIPT_TOML), st.text(max_size=200)))
    def check(text: str) -> None:
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        assert_loads_or_one_line_error(load_script, path)
    check()


@st.composite
def json_texts(draw: st.DrawFn, real: str) -> str:
    rnd = random.Random(draw(st.integers(0, 2**32)))
    choice = draw(st.integers(0, 2))
    if choice == 0:
        return json.dumps(mutate(json.loads(real), rnd, draw(json_values)))
    if choice == 1:
        return _garble(real, rnd, draw(st.text(max_size=6)))
    return json.dumps(draw(json_values))


def fuzz_script_json(host: str, workdir: Path) -> None:
    path = workdir / "script.json"

    @FUZZ
    @given(text=json_texts(SCRIPT_JSON))
    def check(text: str) -> None:
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        assert_loads_or_one_line_error(load_script, path)
    check()


def fuzz_records_jsonl(host: str, workdir: Path) -> None:
    path = workdir / "records.jsonl"
    good = json.dumps(json.loads(RECORD))

    @FUZZ
    @given(lines=st.lists(st.one_of(st.just(good), json_texts(RECORD), st.text(max_size=40)), min_size=1, max_size=4),
           lenient=st.booleans())
    def check(lines: list[str], lenient: bool) -> None:
        path.write_text("\n".join(lines) + "\n", encoding="utf-8", errors="surrogatepass")
        assert_loads_or_one_line_error(lambda p: load_file(p, lenient=lenient), path)
    check()


# --- the runner: every target in two processes, one test each -------------------------------------

TARGETS: dict[str, tuple[Callable[[str, Path], None], str]] = {
    **{f"parser {h}": (fuzz_host_parser, h) for h in NAMES},
    "parser codex + session log": (fuzz_codex_session_log, "codex"),
    "case TOML": (fuzz_case_toml, ""),
    "workspace TOML": (fuzz_workspace_toml, ""),
    "script TOML": (fuzz_script_toml, ""),
    "script JSON": (fuzz_script_json, ""),
    "records JSONL": (fuzz_records_jsonl, ""),
}
WORKERS = 2
"""Processes the targets share (CI has 2 cores): 12 x 10,000 examples are ~236 CPU-seconds."""


def run_target(name: str) -> str | None:
    """Run one target in a worker; None when it held, else the failure with hypothesis's example."""
    fn, host = TARGETS[name]
    with tempfile.TemporaryDirectory(prefix="wb-fuzz-") as workdir:
        try:
            fn(host, Path(workdir))
        except Exception as exc:  # noqa: BLE001 - reported to the test in the main process
            return "".join(traceback.format_exception(exc))
    return None


@pytest.fixture(scope="module")
def fuzzing(request: pytest.FixtureRequest) -> Iterator[dict[str, Future[str | None]]]:
    """Every selected target submitted at once to WORKERS processes; each test waits for its own."""
    selected = [item.callspec.params["target"] for item in request.session.items
                if item.module is sys.modules[__name__] and hasattr(item, "callspec")]
    with ProcessPoolExecutor(WORKERS, mp_context=multiprocessing.get_context("spawn")) as pool:
        yield {name: pool.submit(run_target, name) for name in TARGETS if name in selected}


@pytest.mark.slow
@pytest.mark.parametrize("target", list(TARGETS))
def test_fuzz(target: str, fuzzing: dict[str, Future[str | None]]) -> None:
    failure = fuzzing[target].result()
    assert failure is None, failure
