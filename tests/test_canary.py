"""`workbench canary` on the offline sim: live view, one anonymized record, verdicts keyed as the case names them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.cli import main
from workbench.core.cases import find_case
from workbench.core.records import load_file
from workbench.core.scoring import SCORER_RULES
from workbench.runner.execute import execute
from workbench.runner.redact import Redactor
from workbench.runner.request import build_request

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = {"steps": [{"calls": [{"read": "{plugin}/skills/ops/workflows/commit.md"}]},
                    {"calls": [{"edit": {"path": "{repo}/src/app.py", "old": "Helo", "new": "Hello"}}]},
                    {"calls": [{"shell": "git commit -qam 'app: fix typo'"}]}]}


def test_json_prints_only_the_record_and_appends_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = tmp_path / "r.jsonl"
    code = main(["canary", "diagnose-failing-test", "--host", "sim", "--record", str(records), "--json"])
    out, err = capsys.readouterr()
    assert code == 0
    record = json.loads(out)  # stdout is exactly one JSON document
    assert record["condition"] == "canary" and record["case_id"] == "diagnose-failing-test"
    assert set(record["verdict"]) == {"workflows/diagnosis.md"}
    assert "canary diagnose-failing-test" in err  # the live view went to stderr
    stored = load_file(records).records
    assert len(stored) == 1 and stored[0].overall == record["overall"]
    assert record["host_version"].startswith("sim-") and record["entry"]["offered"] is True
    assert record["workbench_version"] and record["scorer_rules"] == SCORER_RULES


def test_ad_hoc_script_run_is_scored_and_anonymized(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "s.json"
    script.write_text(json.dumps(SCRIPT))
    records = tmp_path / "r.jsonl"
    code = main(["canary", "--host", "sim", "--prompt", "Fix the typo and commit", "--require",
                 "workflows/commit.md", "--moment", "commit", "--script", str(script), "--record", str(records)])
    out, _ = capsys.readouterr()
    assert code == 0
    assert "READ workflows/commit.md" in out and "MOMENT (commit)" in out and "overall: fired" in out
    line = records.read_text()
    record = json.loads(line)
    assert record["verdict"] == {"workflows/commit.md": "fired"} and record["moment_at"] == 2
    assert "/tmp/" not in line and "wb-canary" not in line
    assert record["calls"][0]["path"] == "<plugin>/skills/ops/workflows/commit.md"
    assert record["calls"][1]["path"] == "<repo>/src/app.py"


def test_calls_after_the_moment_are_dropped_for_positives() -> None:
    case = find_case("commit-typo-fix", ROOT / "cases")
    from workbench.modelstub.script import parse_script

    script = parse_script({"steps": [*SCRIPT["steps"], {"calls": [{"read": "{repo}/README.md"}]}]})
    result = execute(build_request(case, "sim", door="canary", plugin=ROOT / "plugin",
                                   fixture=ROOT / "fixtures" / "base", script=script))
    assert result.record.tool_calls == 4 and len(result.record.calls) == 3
    assert not result.run_dir.exists()  # the throwaway repo is gone


def test_no_output_is_invalid() -> None:
    case = find_case("docs-readme-section", ROOT / "cases")
    record = execute(build_request(case, "sim", door="canary", plugin=ROOT / "plugin", no_output=True)).record
    assert (record.valid, record.invalid_reason, record.overall) == (False, "no-output", "no-output")
    assert record.verdict == {"workflows/docs.md": "no-output"}
    assert record.usage.cost_usd is None


def test_redactor_prefers_the_longest_path() -> None:
    clean = Redactor({"/h": "~", "/h/run/repo": "<repo>", "/h/run": "<run>"})
    assert clean({"a": ["/h/run/repo/x", "/h/run/y", "/h/z"]}) == {"a": ["<repo>/x", "<run>/y", "~/z"]}


def test_bad_input_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["canary", "no-such-case", "--host", "sim"]) == 2
    assert main(["canary", "--host", "sim", "--prompt", "p", "--require", "a.md", "--moment", "later"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and "no-such-case" in err[0] and "moment" in err[1]


def test_arm_builds_the_plugin_from_its_commit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--arm NAME=REF` runs the plugin as committed at REF (not the working folder) and records its sha."""
    import git

    plugin = tmp_path / "plugin"
    (plugin / "skills" / "ops" / "workflows").mkdir(parents=True)
    (plugin / "skills" / "ops" / "SKILL.md").write_text("---\nname: ops\ndescription: ops\n---\n")
    (plugin / "skills" / "ops" / "workflows" / "commit.md").write_text("committed procedure\n")
    repo = git.Repo.init(plugin, initial_branch="main")
    repo.git.add(A=True)
    actor = git.Actor("t", "t@localhost")
    sha = repo.index.commit("arm", author=actor, committer=actor).hexsha
    (plugin / "skills" / "ops" / "workflows" / "commit.md").unlink()  # only in the working folder
    script = tmp_path / "s.json"
    script.write_text(json.dumps(SCRIPT))
    records = tmp_path / "r.jsonl"
    code = main(["canary", "--host", "sim", "--prompt", "Fix the typo and commit", "--require",
                 "workflows/commit.md", "--moment", "commit", "--script", str(script), "--plugin", str(plugin),
                 "--arm", "v1=HEAD", "--record", str(records), "--json"])
    record = json.loads(capsys.readouterr().out)
    assert code == 0 and record["arm"] == "v1" and record["source"] == sha
    assert record["verdict"] == {"workflows/commit.md": "fired"}  # read from the commit's copy
    code = main(["canary", "--host", "sim", "--prompt", "Fix the typo and commit", "--require",
                 "workflows/commit.md", "--moment", "commit", "--script", str(script), "--plugin", str(plugin),
                 "--arm", "wt=@worktree", "--record", str(records), "--json"])
    record = json.loads(capsys.readouterr().out)
    assert record["source"] is None and record["verdict"] == {"workflows/commit.md": "skip"}  # file gone
