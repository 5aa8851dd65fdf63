"""The HTML report: one self-contained page rendered from `workbench.core.report` data."""
