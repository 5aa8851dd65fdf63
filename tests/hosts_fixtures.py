"""Deprecated: `installed_hosts` and `make_repo` live in tests/conftest.py (use the fixture by name).

Kept only so a test module that still imports them keeps working; importing the fixture from here
makes pytest set it up once more for that module (an extra `workbench hosts install`).
"""

from conftest import installed_hosts, make_repo

__all__ = ["installed_hosts", "make_repo"]
