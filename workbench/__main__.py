"""`python -m workbench` runs the same entry point as the console script."""

from workbench.cli import main

raise SystemExit(main())
