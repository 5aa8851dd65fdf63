"""Exports of run records to the viewers people already use (optional extras)."""
