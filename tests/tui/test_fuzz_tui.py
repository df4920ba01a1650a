"""Fuzz the viewer: seeded mutants of the samples and fixtures that still load are opened in the
headless app and driven through its keys (strategies on, budget down, calls, presets, rows, the
detail view). The app must not crash, and no raw terminal control character may reach any cell of
the screen. The mutations are the CLI fuzz suite's (tests/test_fuzz.py); every case names its seed.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
from tui_helpers import make_app, settle

import inspector
from inspector.formats.base import SessionFormatError
from inspector.safeio import InputError

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_fuzz import RAW, SEEDS, mutate  # noqa: E402

KEYS = ("1", "2", "minus", "minus", "j", "j", "right_square_bracket", "3", "p", "end", "k", "enter", "escape",
        "4", "left_square_bracket", "5", "6", "home")
#: Every fourth seed file, two mutants each, keeps the suite near a minute on two cores.
CASES = [(f, n) for f in SEEDS[::4] for n in range(2)]


def _screen_text(app) -> str:
    return "\n".join("".join(seg.text for seg in strip) for strip in app.screen._compositor.render_strips())


@pytest.mark.parametrize("seed_file, n", CASES, ids=[f"{f.name[:30]}:{n}" for f, n in CASES])
async def test_viewer_survives_mutants_and_draws_no_raw_control(tmp_path, seed_file, n):
    seed = f"tui:{seed_file.name}:{n}"
    path = tmp_path / seed_file.name
    path.write_bytes(mutate(seed_file.read_bytes(), random.Random(seed)))
    try:
        session = inspector.load(path)
    except (SessionFormatError, InputError):
        pytest.skip(f"seed {seed!r}: the mutant does not load (the CLI fuzz suite covers its error)")
    app = make_app(session, path=str(path))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        for key in KEYS:
            await pilot.press(key)
            await pilot.pause()
            shown = RAW.search(_screen_text(app))
            assert shown is None, f"seed {seed!r}: raw {shown.group()!r} on screen after {key!r}"
        await settle(pilot, app)
    assert app.return_code in (None, 0), f"seed {seed!r}: the app ended with {app.return_code}"
