"""Loading a tokenizer writes nothing: tiktoken copies a rank file it loads by path into
``$TMPDIR/data-gym-cache`` (1,681,126 bytes for cl100k_base, one copy per install path), which
``--no-cache`` promises not to do and which piled up 62 copies (104 MB) in /tmp on the team's
machine."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest


@pytest.mark.parametrize("encoding", ["cl100k_base", "o200k_base"])
def test_loading_an_encoding_writes_nothing_to_the_temp_dir(tmp_path, encoding):
    env = {k: v for k, v in os.environ.items() if k not in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR")}
    env.update(TMPDIR=str(tmp_path), CONTEXT_INSPECTOR_NO_CACHE="1")
    code = (
        "from inspector.tokens import get_counter\n"
        f"print(get_counter({encoding!r}).count('The quick brown fox jumps over the lazy dog.'))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "10\n"
    assert sorted(p.name for p in tmp_path.rglob("*")) == []
