"""Strategy parameters are declared once, next to each strategy: Settings, the README table and
the TUI's editing rules come from the declarations."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.cli import params_table
from inspector.strategies import STRATEGIES, Param, ParamConflict, Settings, params, register
from inspector.tui.state import spec_for

README = Path(__file__).resolve().parents[1] / "README.md"


def test_settings_has_every_declared_param_with_its_default():
    assert list(Settings.model_fields) == list(params.PARAMS)
    assert Settings().model_dump() == {
        "budget": None, "min_history_messages": 2, "pair_safe": True, "window_mode": "turns", "window_turns": 10,
        "window_messages": 40, "summary_ratio": 0.3, "summary_tokens": 300, "max_result_tokens": 2000,
        "truncate_unit": "tokens", "trigger": 100_000, "keep": 3, "clear_at_least": 0, "exclude_tools": (),
        "clear_tool_inputs": False,
        "mask_protect_tokens": 40_000, "mask_min_tokens": 20_000, "mask_keep_results": None, "mask_protect_turns": 2,
        "mask_tools": (), "mask_protected_tools": (), "mask_placeholder": "[Old tool result content cleared]",
        "observations_keep": 5, "polling": 1, "thinking_keep_turns": 1,
        "context_window": 200_000, "reserved_output": 0, "compact_margin": None, "compact_share": 0.0,
        "compact_tokens": None, "compact_messages": None, "keep_head_messages": 0, "keep_tail_messages": None,
        "keep_tail_tokens": None, "keep_tail_share": 0.0, "tail_at_user": False, "keep_user_tokens": None, "compact_count": "input",
        "trim_strategy": "last", "trim_include_system": False, "trim_start_on": "none", "trim_end_on": "none",
        "allow_partial": False,
    }
    assert Settings(window_mode="messages", window_messages=7).window == 7
    for strategy in STRATEGIES.values():
        assert set(strategy.params) <= set(params.PARAMS)


def test_the_readme_table_is_generated_from_the_declarations():
    text = README.read_text(encoding="utf-8")
    assert params_table.replace_in(text) == text, "run: python -m inspector.cli.params_table README.md"


def test_the_panel_edits_choices_and_optional_values_as_such():
    assert (spec_for("window_mode").kind, spec_for("window_mode").choices) == ("choice", ("turns", "messages"))
    assert (spec_for("truncate_unit").title, spec_for("truncate_unit").choices) == ("cut by", ("tokens", "chars"))
    assert spec_for("budget").kind == "optional_int"
    assert spec_for("exclude_tools").kind == "names"
    assert spec_for("profile").choices == ("openai", "anthropic")


def test_a_param_declared_twice_differently_is_refused():
    before = dict(STRATEGIES), dict(params.PARAMS)
    with pytest.raises(ParamConflict, match="strategy 'other' declares parameter 'keep' differently"):
        register("other", (Param("keep", int, 5, "something else"),), "x")(lambda w: None)
    with pytest.raises(ValueError, match="strategy 'other' reads undeclared parameter\\(s\\): nothing"):
        register("other", ("nothing",), "x")
    with pytest.raises(TypeError, match="parameter 'odd': unsupported type <class 'dict'>"):
        Param("odd", dict, {}, "x")
    assert (dict(STRATEGIES), dict(params.PARAMS)) == before
