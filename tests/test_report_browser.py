"""The report in a real browser: Debian's headless Chromium loads it from file://, its DOM's numbers
equal `summary --format json` of the same records, markup from agent output stays inert, and the
first screen is not blank."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import lxml.html
import pytest
from browser_support import dump_dom, luminance_stats, screenshot
from report_support import delegated_records, fresh_records

from workbench.cli import main

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "records" / "demo-batch.jsonl"
FIRED = ("fired", "fired_by_main", "fired_by_subagent")


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return fresh_records(tmp_path_factory.mktemp("fresh"))


def summary_json(path: Path, compare: str, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(["summary", str(path), "--format", "json", "--compare", compare, "--confusion"]) == 0
    return dict(json.loads(capsys.readouterr().out))


def rendered(path: Path, compare: str, tmp: Path) -> lxml.html.HtmlElement:
    page = tmp / "report.html"
    assert main(["report", str(path), "-o", str(page), "--compare", compare]) == 0
    return lxml.html.fromstring(dump_dom(page, tmp))


def select(dom: lxml.html.HtmlElement, tag: str, cls: str | None = None) -> list[lxml.html.HtmlElement]:
    """Elements TAG (with class CLS) of the DOM."""
    where = f"[contains(concat(' ', @class, ' '), ' {cls} ')]" if cls else ""
    return list(dom.xpath(f"//{tag}{where}"))


def number(text: str | None) -> Any:
    if text in (None, ""):
        return None
    return float(text) if "." in text or "e" in text else int(text)


@pytest.mark.parametrize("which", ["demo", "fresh"])
def test_dom_numbers_equal_summary_json(which: str, fresh: Path, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    path, compare = (DEMO, "weak,shipped") if which == "demo" else (fresh, "A,B")
    data = summary_json(path, compare, capsys)
    dom = rendered(path, compare, tmp_path)
    capsys.readouterr()
    assert dom.body.get("data-ready") == str(len(select(dom, "details", "run")))  # the page's script ran
    cells = {}
    for td in select(dom, "td", "cell"):
        a = td.attrib
        key = (a["data-host"], a["data-source"] or None, a["data-target"], a["data-kind"])
        cells[key] = {"hits": number(a["data-hits"]), "valid": number(a["data-valid"]),
                      "invalid": number(a["data-invalid"]), "cases": number(a["data-cases"]),
                      "majority_cases": number(a["data-majority-cases"]),
                      "wilson95": None if a["data-lo"] == "" else [number(a["data-lo"]), number(a["data-hi"])],
                      "flaky": [f for f in a["data-flaky"].split(";") if f],
                      **{k: number(a[f"data-{k.replace('_', '-')}"]) for k in FIRED}}
    expected = {(c["host"], c["source"], c["target"], c["kind"]): {k: c[k] for k in (
        "hits", "valid", "invalid", "cases", "majority_cases", "wilson95", "flaky", *FIRED)} for c in data["runs"]}
    assert cells == expected
    rows = [{k: number(tr.get(f"data-{k.replace('_', '-')}")) for k in (
        "hits_a", "valid_a", "hits_b", "valid_b", "delta_pp", "pairs", "only_a", "only_b", "mcnemar_p")}
        for tr in select(dom, "tr", "cmp")]
    assert rows and rows == [{k: r[k] for k in rows[0]} for r in data["comparisons"]]
    assert len(select(dom, "details", "run")) == sum(c["total"] for c in data["runs"])
    stages = ("runs", "offered", "offered_unknown", "loaded", "opened", "read_before")
    funnel = [{k: number(tr.get(f"data-{k.replace('_', '-')}")) for k in stages} for tr in select(dom, "tr", "funnel")]
    assert funnel and funnel == [{k: r[k] for k in stages} for r in data["funnel"]]
    confusion = {(tr.get("data-source"), tr.get("data-case")): (number(tr.get("data-sibling-instead")), {
        td.get("data-file"): number(td.get("data-opened")) for td in tr.xpath("td[@data-file]")})
        for tr in select(dom, "tr", "confusion")}
    assert confusion == {(r["source"] or "", r["case"]): (r["sibling_instead"], r["opened"]) for r in data["confusion"]}


def test_fired_by_main_and_subagent_as_summary_json_says(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Delegating runs: each cell splits its fired runs as `summary --format json` does and says how many a
    subagent fired, as the text table does; each run says who fired it, each subagent call its reader."""
    path = delegated_records(tmp_path)
    assert main(["summary", str(path), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert main(["summary", str(path)]) == 0
    text = capsys.readouterr().out
    page = tmp_path / "report.html"
    assert main(["report", str(path), "-o", str(page)]) == 0
    dom = lxml.html.fromstring(dump_dom(page, tmp_path))
    cells = {a.get("data-script-digest"): {k: number(a.get(f"data-{k.replace('_', '-')}")) for k in FIRED}
             for a in select(dom, "td", "cell")}
    assert cells == {c["script_digest"]: {k: c[k] for k in FIRED} for c in data["runs"]}
    assert sorted(cells.values(), key=lambda c: (c["fired_by_main"], c["fired_by_subagent"])) == [
        {"fired": 0, "fired_by_main": 0, "fired_by_subagent": 0},
        {"fired": 2, "fired_by_main": 0, "fired_by_subagent": 2},
        {"fired": 2, "fired_by_main": 2, "fired_by_subagent": 0}]
    notes = [td.text_content() for td in select(dom, "td", "cell") if "fired by subagent" in td.text_content()]
    assert len(notes) == 1 and "2/2 (2 fired by subagent)" in notes[0]
    assert text.count("(2 fired by subagent)") == 1
    runs = select(dom, "details", "run")
    assert sorted((d.get("data-verdict"), d.get("data-fired-by")) for d in runs) == [
        ("fired", "main")] * 2 + [("fired", "subagent")] * 2 + [("skip", "")] * 2
    assert all(f"fired by {d.get('data-fired-by')}" in d.xpath("summary")[0].text_content()
               for d in runs if d.get("data-fired-by"))
    readers = {tr.get("data-read-by") for tr in dom.xpath("//table[contains(@class, 'calls')]//tr[@data-read-by]")}
    assert readers == {"main", "subagent:general-purpose"}
    badges = {b.text_content() for b in select(dom, "span", "by-subagent") if "badge" in b.get("class", "")}
    assert badges == {"subagent:general-purpose"}


def test_markup_in_agent_output_is_inert(fresh: Path, tmp_path: Path) -> None:
    dom = rendered(fresh, "A,B", tmp_path)
    assert dom.body.get("data-pwned") is None
    assert not dom.xpath("//*[@id='pwned']")
    assert len(select(dom, "script")) == 1
    texts = [pre.text_content() for pre in select(dom, "pre")]
    assert any("<script>document.body.dataset.pwned='script'</script>" in t for t in texts)


def test_first_screen_is_not_blank(tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    assert main(["report", str(DEMO), "-o", str(page), "--compare", "weak,shipped"]) == 0
    width, height, spread, colours = luminance_stats(screenshot(page, tmp_path, tmp_path / "shot.png"))
    assert (width, height) == (1280, 800)
    assert spread > 10 and colours > 50, (spread, colours)
