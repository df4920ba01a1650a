"""The tool diet screen (``T``): it shows the figures of ``tools --json`` (the same core dict),
secrets only redacted, and ``enter`` on a tool puts the list's cursor on its largest result."""

from __future__ import annotations

import sys
from pathlib import Path

from textual.widgets import DataTable, Static
from tui_helpers import make_app, settle

import inspector
from inspector.fleet.diet import tools_report
from inspector.fleet.worker import analyse
from inspector.tui.screens.tools import COLUMNS, ToolsScreen

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the diet session shared with test_fleet
from diet_helpers import SECRET, diet_session  # noqa: E402


def _table_rows(screen: ToolsScreen) -> list[list[str]]:
    table = screen.query_one(DataTable)
    return [[table.get_cell_at((r, c)).plain.strip() for c in range(len(COLUMNS))] for r in range(table.row_count)]


async def test_the_screen_shows_the_tools_report_and_jumps_to_the_largest_result(tmp_path):
    path = diet_session(tmp_path / "diet.jsonl")
    expected = tools_report(analyse(str(path)))
    app = make_app(inspector.load(path), path=str(path))
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot, app)
        await pilot.press("T")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ToolsScreen)
        rows = _table_rows(screen)
        lookup = next(t for t in expected["tools"] if t["tool"] == "lookup_user")
        run = next(t for t in expected["tools"] if t["tool"] == "run")
        assert [r[0] for r in rows] == [t["tool"] for t in expected["tools"]]
        assert rows[[r[0] for r in rows].index("lookup_user")] == [
            "lookup_user", "1", f"{lookup['result_tokens']:,}", f"{lookup['share_pct']:.1f}",
            *(f"{lookup[k]:,}" for k in ("tokens_p50", "tokens_p90", "tokens_max")), "0", "0", "0", "3 of 4", "2",
        ]
        assert rows[[r[0] for r in rows].index("run")][8:] == ["0", "1", "—", "0"]  # not flagged is_error, but unstructured
        assert run["unstructured_errors"] == 1
        details = screen.query_one("#tools-details-text", Static).content.plain
        assert "lookup_user: api_key, email, internal_note" in details
        assert "run at line 6 (message 5)" in details
        assert "openai_key at line 4 (message 3), result line 1 column 69: sk-p…[36 chars]" in details
        assert "j***@example.com" in details and SECRET not in details and "jane.doe" not in details

        table = screen.query_one(DataTable)
        table.move_cursor(row=[r[0] for r in rows].index("run"))
        await pilot.press("enter")
        await pilot.pause()
        assert not isinstance(app.screen, ToolsScreen)
        assert app.list.cursor == app.result.row_of[5]  # the run tool's (only, so largest) result

        await pilot.press("T")
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, ToolsScreen) and app.list.cursor == app.result.row_of[5]


def test_tools_screen_snapshot(snap_compare):
    """vendor_onboarding: nine tools, unused fields, two redacted secrets."""
    app = make_app("vendor_onboarding.json")

    async def ready(pilot):
        await settle(pilot, app)
        await pilot.press("T")
        await pilot.pause()

    assert snap_compare(app, terminal_size=(160, 48), run_before=ready)
