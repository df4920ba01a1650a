"""The status line's counts read like every other count of the viewer (found reviewing main: a
50,000-message session showed '50,009 messages · 6251 turns · 22016 model calls')."""

from __future__ import annotations

from inspector.model import Session
from tui_helpers import make_app, msg, settle, status_text


async def test_status_line_counts_have_thousands_separators():
    messages = [msg(0, "system", "You are terse.")]
    for t in range(1_000):
        messages += [msg(len(messages), "user", f"question {t}"), msg(len(messages) + 1, "assistant", f"answer {t}")]
    app = make_app(Session(format="openai", messages=messages))
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(pilot, app)
        assert "2,001 messages · 1,000 turns · 1,000 model calls" in status_text(app)
