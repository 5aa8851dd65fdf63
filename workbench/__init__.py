"""Trigger Workbench: does the agent read the procedure a routing row links before it acts?"""

__version__ = "0.1.0"
