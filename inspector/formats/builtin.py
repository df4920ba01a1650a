"""Registers every built-in format (import for side effects)."""
