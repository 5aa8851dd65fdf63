"""CLI subcommands: each module registers its own parser and handler."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from workbench.commands import (
                                arm,
                                authoring,
                                batch,
                                canary,
                                case,
                                export,
                                hosts,
                                postinstall,
                                report,
                                rescore,
                                schema,
                                score,
                                selftest,
                                summary,
)

Register = Callable[["argparse._SubParsersAction[argparse.ArgumentParser]"], None]

COMMANDS: list[Register] = [score.register, summary.register, rescore.register, schema.register, hosts.register,
                          canary.register, selftest.register]
COMMANDS += [authoring.register, arm.register, case.register]
COMMANDS += [batch.register, postinstall.register]
COMMANDS += [report.register, export.register]
