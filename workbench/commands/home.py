"""What `workbench` does with no subcommand: the Textual workbench on the workspace of the current folder.

The workspace is the nearest `workbench.toml` upward from the current folder, else the bundled
demo. The app comes from the one factory the tests use (`workbench.tui.app.make_app`); Textual is
imported only here, so every headless command starts without it.
"""

from __future__ import annotations

import argparse

from workbench.exitcodes import ExitCode


def launch_default(args: argparse.Namespace) -> int:
    """Run the workbench app until the user quits."""
    from workbench.tui.app import make_app

    make_app().run()
    return int(ExitCode.OK)
