"""Screens pushed over the main view: help, full message or rule text, the export prompt."""
