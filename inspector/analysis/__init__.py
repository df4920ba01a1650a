"""What the views show, computed once: replay of every model call, comparison, calibration."""
