"""Every test (and every command a test runs) uses a token-count cache of its own session, never
the user's (``CONTEXT_INSPECTOR_CACHE_DIR`` is inherited by subprocesses)."""

from __future__ import annotations

import os
import tempfile

os.environ["CONTEXT_INSPECTOR_CACHE_DIR"] = tempfile.mkdtemp(prefix="ctxinspector-test-cache-")
