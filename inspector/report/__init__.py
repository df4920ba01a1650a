"""The shareable view: one self-contained HTML page of a session's analysis (``context-inspector
report``). It draws the JSON-ready dicts the CLI builds (info, plan, replay, compare); it never
computes a figure, never imports Textual or Rich, and needs no network to be viewed."""

from .html import render_page

__all__ = ["render_page"]
