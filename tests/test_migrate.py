"""Version-1 records keyed by base name read back keyed by the required path as given."""

from __future__ import annotations

import json
from pathlib import Path

from workbench.core import records
from workbench.core.migrate import rekey_v1


def v1(verdict: dict[str, str], required: list[str]) -> dict[str, object]:
    return {"schema_version": 1, "condition": "canary", "host": "sim", "target": "t", "kind": "positive",
            "required": required, "verdict": verdict,
            "required_read_at": {k: 0 for k in verdict}, "overall": "fired"}


def test_base_name_keys_map_back_to_the_required_path() -> None:
    data = rekey_v1(v1({"commit.md": "fired", "docs.md": "skip"}, ["workflows/commit.md", "workflows/docs.md"]))
    assert data["verdict"] == {"workflows/commit.md": "fired", "workflows/docs.md": "skip"}
    assert data["required_read_at"] == {"workflows/commit.md": 0, "workflows/docs.md": 0}


def test_keys_already_as_given_or_ambiguous_are_kept() -> None:
    given = v1({"workflows/commit.md": "fired"}, ["workflows/commit.md"])
    assert rekey_v1(given) == given
    shared = v1({"index.md": "fired"}, ["a/index.md", "b/index.md"])
    assert rekey_v1(shared)["verdict"] == {"index.md": "fired"}


def test_loading_a_v1_file_applies_it(tmp_path: Path) -> None:
    path = tmp_path / "old.jsonl"
    path.write_text(json.dumps(v1({"commit.md": "fired"}, ["workflows/commit.md"]), separators=(",", ":")) + "\n")
    (record,) = records.load_file(path).records
    assert record.verdict == {"workflows/commit.md": "fired"}
    assert record.required_read_at == {"workflows/commit.md": 0}
