"""Reusable widgets: the call pane and its cards, interval bars."""
