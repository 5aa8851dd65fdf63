"""Authoring side effects: arm commits in the plugin repo and files written in the user's tree.

`workbench.core` computes (rows, new wording, case text); this layer is the only one that commits
to git or writes workspace and case files for the authoring commands and the TUI.
"""
