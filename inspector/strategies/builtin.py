"""Registers every built-in strategy (import for side effects)."""
