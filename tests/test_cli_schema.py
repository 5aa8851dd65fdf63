"""`workbench schema NAME` exports a JSON Schema for every file format, and rejects unknown names."""

import json

import pytest

from workbench.cli import main
from workbench.commands.schema import SCHEMAS


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_every_format_exports_a_schema(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", name]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["type"] == "object" and schema["properties"]


def test_record_schema_names_the_validity_fields(capsys: pytest.CaptureFixture[str]) -> None:
    main(["schema", "record"])
    props = json.loads(capsys.readouterr().out)["properties"]
    for field in ("valid", "invalid_reason", "verdict", "moment_at", "required_read_at", "usage", "scorer_rules"):
        assert field in props


def test_unknown_schema_is_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "nope"]) == 2
    err = capsys.readouterr().err
    assert "unknown schema 'nope'" in err and "record" in err
