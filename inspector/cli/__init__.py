"""The command line: ``context-inspector`` (TUI) and its subcommands (``info``, ``plan``, ...).

Only :mod:`inspector.cli.main` is an entry point; it never imports Textual unless it opens the TUI.
"""
