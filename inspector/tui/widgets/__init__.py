"""Widgets of the TUI: the Line-API message list and pipeline panel, totals, replay chart, detail."""
