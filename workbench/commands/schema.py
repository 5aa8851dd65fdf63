"""`workbench schema NAME`: print the JSON Schema of one file format."""

from __future__ import annotations

import argparse
import json

from pydantic import BaseModel

from workbench.core import models
from workbench.core.errors import InputError
from workbench.exitcodes import ExitCode
from workbench.modelstub.script import Script

SCHEMAS: dict[str, type[BaseModel]] = {
    "call": models.Call,
    "case": models.Case,
    "record": models.RunRecord,
    "score-spec": models.ScoreSpec,
    "script": Script,
    "usage": models.Usage,
}


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `schema` subcommand."""
    p = sub.add_parser("schema", help="print the JSON Schema of a file format")
    p.add_argument("name", help="one of: " + ", ".join(SCHEMAS))
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Print the schema as JSON on stdout."""
    model = SCHEMAS.get(args.name.lower())
    if model is None:
        raise InputError(f"unknown schema {args.name!r}; known: {', '.join(SCHEMAS)}", field="NAME")
    print(json.dumps(model.model_json_schema(), indent=2))
    return int(ExitCode.OK)
