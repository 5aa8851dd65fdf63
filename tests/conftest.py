"""Shared test settings: no test is timed (performance lives in bench/), so hypothesis has no deadline."""

from hypothesis import settings

settings.register_profile("workbench", deadline=None)
settings.load_profile("workbench")
