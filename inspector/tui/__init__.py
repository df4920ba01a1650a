"""The Textual user interface (``context-inspector SESSION``). Import :func:`run` from
:mod:`inspector.tui.app`; nothing outside this package imports Textual."""
