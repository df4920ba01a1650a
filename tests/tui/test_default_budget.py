"""One default budget for every view: the commands, the Python API and the viewer plan a file with
the same budget (the session model's window less what its agent keeps free) unless one is given,
and say which they used. The fixture: an 8,192-token gpt-4-0613 session of 21,902 tokens, where
fifo under that budget drops its oldest turns and without one drops nothing."""

from __future__ import annotations

import json

import inspector
from inspector.analysis.window import budget_note, default_budget
from inspector.strategies import Status

from cli_helpers import as_json, run
from inspector.tui.state import available_presets

from tui_helpers import make_app, settle

SIZE = (160, 48)


def write_session(path) -> None:
    lines = [{"type": "session", "version": 1, "model": "gpt-4-0613"},
             {"role": "system", "content": "You answer questions about the ledger."}]
    for t in range(6):
        cid = f"call_{t}"
        lines += [
            {"role": "user", "content": f"question {t}: what changed in ledger {t}?"},
            {"role": "assistant", "content": "", "tool_calls": [
                {"id": cid, "type": "function", "function": {"name": "read_file", "arguments": json.dumps({"path": f"l{t}"})}}]},
            {"role": "tool", "tool_call_id": cid, "content": " ".join(f"row{t}-{k}" for k in range(900))},
            {"role": "assistant", "content": f"ledger {t} changed in {t + 1} places."},
        ]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")


def kept(statuses) -> list[int]:
    return [i for i, s in enumerate(statuses) if s is not Status.DROPPED]


def test_the_command_and_the_api_plan_fifo_with_the_default_budget(tmp_path, capsys):
    path = tmp_path / "s.jsonl"
    write_session(path)
    session = inspector.load(path)
    assert default_budget(session) == 8192
    report = as_json(capsys, "plan", path, "--strategy", "fifo")
    assert report["budget"] == 8192
    assert report["budget_note"] == "budget 8,192 = the 8,192-token window of gpt-4-0613 (genai-prices)"
    cli_kept = [m["index"] for m in report["messages"] if m["status"] != "dropped"]
    assert cli_kept == [0, 16, 17, 18, 19, 20, 21, 22, 23, 24]  # 21,902 tokens: turns 5-6 fit, 1-4 go

    api = inspector.plan(inspector.analyze(session, encoding=report["encoding"]), "fifo")
    assert api.budget == 8192 and kept(api.status) == cli_kept
    assert kept(inspector.plan(inspector.analyze(session), "fifo", budget=None).status) == list(range(25))

    assert as_json(capsys, "plan", path, "--strategy", "fifo", "--budget", "100000")["budget_note"] == "budget 100,000, as set"
    code, out, _ = run(capsys, "plan", path, "--strategy", "fifo")
    assert code == 0 and "budget 8,192 = the 8,192-token window of gpt-4-0613 (genai-prices): fits" in " ".join(out.split())


async def test_the_viewer_plans_what_the_command_plans(tmp_path, capsys):
    path = tmp_path / "s.jsonl"
    write_session(path)
    cli = as_json(capsys, "plan", path, "--strategy", "fifo")
    app = make_app(inspector.load(path), path=str(path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("1")  # fifo on
        await settle(pilot, app)
        plan = app.result.plan
        assert plan.budget == cli["budget"] == 8192
        assert kept(plan.status) == [m["index"] for m in cli["messages"] if m["status"] != "dropped"]
        assert plan.tokens_after == cli["tokens_after"]


def test_the_note_says_where_an_agent_budget_comes_from():
    session = inspector.load("inspector/sample_sessions/coding_agent.jsonl")
    assert budget_note(session, None) == "no budget"
    assert budget_note(session, 200_000) == "budget 200,000 = the 200,000-token window of claude-sonnet-4-5 (genai-prices)"


async def test_a_budget_the_user_stepped_survives_a_preset_switch():
    app = make_app("coding_agent.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        assert app.state.settings.budget == 200_000
        await pilot.press("p")  # a preset before any budget change: the default budget
        await settle(pilot, app)
        assert app.state.settings.budget == 200_000
        await pilot.press("minus", "minus")  # the user's budget now
        await settle(pilot, app)
        assert app.state.settings.budget == 198_000
        names = []
        for _ in range(len(available_presets())):  # round the presets: LangChain's 8,000 included
            await pilot.press("p")
            await settle(pilot, app)
            names.append(app.state.preset)
            assert app.state.settings.budget == 198_000, app.state.preset
        assert "langchain-trim-last" in names


async def test_without_a_budget_of_the_users_a_preset_sets_its_own():
    app = make_app("coding_agent.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        for _ in range([p.name for p in available_presets()].index("langchain-trim-last") + 1):
            await pilot.press("p")
        await settle(pilot, app)
        assert app.state.preset == "langchain-trim-last" and app.state.settings.budget == 8_000


async def test_budget_given_to_the_viewer_wins_over_a_presets():
    app = make_app("coding_agent.jsonl", budget=50_000, preset="langchain-trim-last")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        assert app.state.preset == "langchain-trim-last" and app.state.settings.budget == 50_000


def test_a_budget_the_preset_chose_is_named_as_the_presets(tmp_path, capsys):
    """Review finding: ``--preset langchain-trim-last`` printed "budget 8,000, as set" though the
    user set nothing; the budget is the preset's (its max_tokens), and ``--budget`` is the user's."""
    path = tmp_path / "s.jsonl"
    write_session(path)
    note = as_json(capsys, "plan", path, "--preset", "langchain-trim-last")["budget_note"]
    assert note == "budget 8,000, the preset langchain-trim-last's"
    note = as_json(capsys, "plan", path, "--preset", "langchain-trim-last", "--budget", "5000")["budget_note"]
    assert note == "budget 5,000, as set"
    note = as_json(capsys, "plan", path, "--preset", "langchain-trim-last", "--set", "budget=6000")["budget_note"]
    assert note == "budget 6,000, as set"
