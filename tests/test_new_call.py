"""new_call: the unvalidated build of a parser's call is the very model `Call(**fields)` validates."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from workbench.core.models import Call, new_call

GOOD: list[dict[str, Any]] = [
    {"index": 0, "tool": "Read", "kind": "read"},
    {"index": 3, "tool": "Bash", "kind": "shell", "command": "cat a.md", "call_id": "toolu_1", "turn": 2,
     "read_by": "subagent:Explore", "path": None},
    {"index": 1, "tool": "apply_patch", "kind": "edit", "path": "x.py", "status": "denied", "exit_code": -1,
     "skill": None, "result": "refused"},
]
BAD: list[dict[str, Any]] = [
    {"index": 0, "tool": "Read", "kind": "fetch"},  # not a kind
    {"index": 0, "tool": "Read", "kind": "read", "status": "maybe"},
    {"index": "0", "tool": "Read", "kind": "read"},  # lax pydantic takes it; validated, not built
    {"index": 0, "tool": 7, "kind": "read"},
    {"index": 0, "tool": "Read", "kind": "read", "turn": True},
    {"index": 0, "tool": "Read", "kind": "read", "unreadable": ["a.md"]},  # not a plain field: validated
    {"index": 0, "tool": "Read", "kind": "read", "other": 1},  # an extra field
    {"tool": "Read", "kind": "read"},  # index missing
]


def same(a: Call, b: Call) -> None:
    assert a.__dict__ == b.__dict__ and list(a.__dict__) == list(b.__dict__)
    assert a.__pydantic_fields_set__ == b.__pydantic_fields_set__
    assert a.__pydantic_extra__ == b.__pydantic_extra__ and a.__pydantic_private__ == b.__pydantic_private__
    assert a.model_dump_json() == b.model_dump_json() and repr(a) == repr(b) and a == b
    assert a.model_dump(exclude_unset=True) == b.model_dump(exclude_unset=True)


@pytest.mark.parametrize("fields", GOOD + BAD)
def test_new_call_is_what_call_validates(fields: dict[str, Any]) -> None:
    try:
        validated = Call(**fields)
    except ValidationError as exc:
        with pytest.raises(ValidationError) as raised:
            new_call(**fields)
        assert raised.value.errors() == exc.errors()
        return
    same(new_call(**fields), validated)


def test_built_calls_share_no_list_or_dict() -> None:
    first, second = new_call(**GOOD[0]), new_call(**GOOD[0])
    first.unreadable.append("a.md")
    first.evidence["a.md"] = "shown"
    first.effects.append(None)  # type: ignore[arg-type]
    assert second.unreadable == [] and second.evidence == {} and second.effects == []
    assert Call(**GOOD[0]).unreadable == []
