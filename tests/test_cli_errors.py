"""Every error path of the CLI: one paragraph on stderr, exit code 2, no traceback, nothing on stdout."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.cli.main import main

SAMPLES = Path(__file__).resolve().parent.parent / "sample_sessions"
THREE = str(SAMPLES / "three_questions.json")
FORMATS = "Known formats: openai, anthropic, jsonl"


def fail(capsys, *args) -> str:
    """Run, expect exit code 2 and one line of error; return it without the program prefix."""
    try:
        code = main([str(a) for a in args])
    except SystemExit as exc:  # argparse's own errors
        code = exc.code
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    assert "Traceback" not in err
    assert err.endswith("\n") and err.count("\n") == 1, err
    return err


def test_missing_file(capsys):
    err = fail(capsys, "info", "/nonexistent/session.json")
    assert err.startswith("context-inspector info: error: /nonexistent/session.json: no such file or directory.")
    assert FORMATS in err


def test_unrecognised_file(capsys, tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("just some notes\n")
    err = fail(capsys, "info", path)
    assert f"{path}: this is not a session format the inspector recognises." in err
    assert "Expected a JSON list of chat messages (OpenAI)" in err and FORMATS in err


def test_malformed_json_names_the_place(capsys, tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"messages": [{"role": "user", "content": 5}]}')
    err = fail(capsys, "info", path, "--format", "openai")
    assert str(path) in err and "$.messages[0]" in err


def test_unknown_format(capsys):
    err = fail(capsys, "info", THREE, "--format", "nope")
    assert err.startswith(f"context-inspector info: error: nope: unknown format 'nope'. {FORMATS}")
    assert err.endswith("(use --format NAME to force one).\n")


def test_unknown_strategy(capsys):
    err = fail(capsys, "plan", THREE, "--strategy", "fifo,bogus")
    assert err == (
        "context-inspector plan: error: unknown strategy 'bogus'; choose from: fifo, sliding_window, summarize, "
        "truncate_results, tool_pruning, clear_tool_uses, mask_tool_outputs, last_n_observations, thinking_prune, "
        "compact, trim_messages, strands_sliding_window\n"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--strategy", "summarize", "--summary-ratio", "2"], "invalid option value: --summary-ratio 2.0: Input should be less than or equal to 1."),
        (["--window", "-1"], "invalid option value: --window -1: Input should be greater than or equal to 0."),
        (["--window-mode", "messages", "--window", "-3"], "invalid option value: --window -3: Input should be greater than or equal to 0."),
        (["--budget", "-5"], "invalid option value: --budget -5: Input should be greater than or equal to 0."),
        (["--at", "12"], "--at 12: model calls are numbered 1 to 11 (or -1 to -11 from the end)."),
        (["--at", "0"], "--at 0: model calls are numbered 1 to 11 (or -1 to -11 from the end)."),
    ],
)
def test_bad_option_values(capsys, args, message):
    err = fail(capsys, "plan", THREE, *args)
    assert err == f"context-inspector plan: error: {message}\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["plan", THREE, "--budget", "x"], "argument --budget: invalid int value: 'x'"),
        (["plan", THREE, "--window-mode", "days"], "argument --window-mode: invalid choice: 'days'"),
        (["info", THREE, "--encoding", "gpt2"], "argument --encoding: invalid choice: 'gpt2'"),
        (["info"], "the following arguments are required: SESSION"),
        (["export", THREE, "--to", "gemini", "-o", "x.json"], "argument --to: invalid choice: 'gemini'"),
        (["plan", THREE, "--bogus"], "unrecognized arguments: --bogus"),
    ],
)
def test_parser_errors_are_one_paragraph(capsys, args, message):
    err = fail(capsys, *args)
    assert message in err
    assert err.endswith(f"See 'context-inspector {args[0]} --help'.\n")


def test_encoding_unavailable_falls_back_to_cl100k_with_a_warning(capsys, monkeypatch):
    import json

    from inspector import tokens
    from inspector.cli.main import main

    real = tokens.get_counter

    def no_o200k(name=tokens.DEFAULT_ENCODING):
        if name == "o200k_base":
            raise tokens.EncodingUnavailable("tiktoken could not load the o200k_base encoding (o200k_base: ConnectionError).")
        return real(name)

    monkeypatch.setattr(tokens.counters, "get_counter", no_o200k)
    assert main(["info", THREE, "--encoding", "o200k_base", "--json"]) == 0
    out, err = capsys.readouterr()
    assert err == (
        "warning: tiktoken could not load the o200k_base encoding (o200k_base: ConnectionError). "
        "Falling back to cl100k_base.\n"
    )
    assert json.loads(out)["encoding"] == "cl100k_base"


def test_tui_with_a_bad_file_fails_before_opening(capsys, tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    err = fail(capsys, str(empty))
    assert err.startswith(f"context-inspector: error: {empty}, line 1: the file is empty.")


def test_options_before_a_subcommand_are_its_own(capsys):
    """`--no-cache info X` runs `info --no-cache X`; an option the subcommand does not take is its error."""
    assert main(["--no-cache", "--encoding", "approx", "info", THREE, "--json"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert '"encoding": "approx"' in out
    err = fail(capsys, "--theme", "dark", "info", THREE)
    # the option with its value, not the session read as --theme's neighbour
    assert err.startswith("context-inspector info: error: unrecognized arguments: --theme dark."), err
    assert main(["--encoding", "approx", "info", "--json", "--", THREE]) == 0  # a '--' still ends the options
    assert '"encoding": "approx"' in capsys.readouterr().out
