"""The capture scripts (scripts/capture_*.py) as modules: their scenarios and ground truth are the tests' too."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

import capture_delegation as delegation  # noqa: E402
import capture_sessions as sessions  # noqa: E402

__all__ = ["delegation", "sessions"]
