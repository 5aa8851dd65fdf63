"""The adversarial set: every stored capture scored by THE scorer, every hand label asserted.

tests/data/adversarial/README.md says how the captures were made (scripts/capture_adversarial.py,
real CLIs driven by the scripted model server) and how each label was decided: by hand, from the
tool results as the model received them (`<host>.received.json`), never from the scorer.

A label the scorer does not reach yet is a strict xfail naming why (labels.json `xfail`): it fails
loudly the day the scorer gets it right, so the label is then promoted to a plain assertion.
`needs effect moments (A1)`: the moment is a write only the repo watcher saw; the stored effects are
given to the calls as soon as the record schema has `Call.effects`.
"""

from __future__ import annotations

from typing import Any

import pytest
from adversarial_support import HOSTS, captured, labels, scenarios, scored

from workbench.core.models import ScoreSpec

LABELS = labels()
SCENARIOS = {s["id"]: s for s in scenarios()}


def _merged(label: dict[str, Any], host: str) -> dict[str, Any]:
    """A label with its host override applied (`hosts: {host: {field: value}}`, fields merged one level)."""
    out = {k: v for k, v in label.items() if k not in ("hosts", "xfail")}
    for key, value in (label.get("hosts") or {}).get(host, {}).items():
        out[key] = {**out[key], **value} if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def _cases() -> list[Any]:
    params = []
    for sid, entry in LABELS["scenarios"].items():
        for n, label in enumerate(entry["labels"]):
            for host in HOSTS:
                if host in entry.get("not_captured", {}):
                    continue
                marks = [pytest.mark.xfail(strict=True, reason=x["reason"]) for x in label.get("xfail", [])
                         if host in x["hosts"] or "*" in x["hosts"]][:1]
                params.append(pytest.param(sid, n, host, id=f"{sid}-{n}-{host}", marks=marks))
    return params


def test_every_scenario_is_labelled_and_captured_on_every_host() -> None:
    assert len(SCENARIOS) >= 25
    assert set(LABELS["scenarios"]) == set(SCENARIOS)
    for sid, entry in LABELS["scenarios"].items():
        assert entry["labels"], sid
        for host in HOSTS:
            assert captured(sid, host) or host in entry.get("not_captured", {}), (sid, host)


@pytest.mark.parametrize(("sid", "n", "host"), _cases())
def test_label(sid: str, n: int, host: str) -> None:
    label = _merged(LABELS["scenarios"][sid]["labels"][n], host)
    spec = ScoreSpec.model_validate(label["spec"])
    result = scored(sid, host, spec)
    got = {"moment_at": result.moment_at, "reads": result.reads, "verdicts": result.verdicts,
           "overall": result.overall}
    want = {k: label[k] for k in ("moment_at", "reads", "verdicts", "overall")}
    assert got == want, label.get("why")
    for required, basis in (label.get("read_basis") or {}).items():
        assert result.read_basis.get(required) == basis, (required, result.read_basis)
