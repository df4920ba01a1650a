"""OpenAI Agents SDK SQLiteSession reader: rows as Responses items, session choice, encrypted
rows, read-only access."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

import inspector
from inspector.cli.main import main
from inspector.formats import SessionFormatError, load
from inspector.formats import builtin  # noqa: F401  (registers every format)
from inspector.formats.agents_sqlite import read_database
from inspector.formats.base import FORMATS, Probe
from inspector.units import build_view

SQL = Path(__file__).parent / "fixtures" / "real" / "agents_sqlite" / "conversations.sql"


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "conversations.db"
    con = sqlite3.connect(path)
    con.executescript(SQL.read_text())
    con.commit()
    con.close()
    return path


def test_detection(db, tmp_path):
    scores = {n: f.detect(Probe(db)) for n, f in FORMATS.items()}
    assert scores.pop("agents_sqlite") == 90
    assert set(scores.values()) == {0}
    other = tmp_path / "other.db"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
    con.commit()
    con.close()
    assert FORMATS["agents_sqlite"].detect(Probe(other)) == 0


def test_newest_session_read(db):
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    s = load(db)
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before  # never written
    assert s.extra["session_id"] == "support-118"
    assert s.extra["sessions"] == [
        {"session_id": "support-118", "items": 11, "last_id": 13},
        {"session_id": "support-117", "items": 2, "last_id": 2},
    ]
    assert [(m.role, str(m.source)) for m in s.messages] == [
        ("user", "agent_messages[id=3].message_data"),
        ("assistant", "agent_messages[id=4].message_data"),
        ("tool", "agent_messages[id=7].message_data"),
        ("tool", "agent_messages[id=8].message_data"),
        ("assistant", "agent_messages[id=9].message_data"),
        ("tool", "agent_messages[id=10].message_data"),
        ("assistant", "agent_messages[id=12].message_data"),
    ]
    assert [c.id for c in s.messages[1].tool_calls] == ["call_o1", "call_o2"]
    assert s.messages[4].tool_calls[0].name == "transfer_to_refunds_agent"
    view = build_view(s)
    assert [(u.kind.value, u.indices) for u in view.units] == [
        ("user", (0,)), ("tool_exchange", (1, 2, 3)), ("tool_exchange", (4, 5)), ("assistant", (6,)),
    ]  # fmt: skip
    assert [(t.number, t.start, t.stop) for t in view.turns] == [(1, 0, 7)]
    assert [c.message_index for c in view.calls] == [1, 4, 6]
    assert [(x.where, x.reason, x.kind) for x in s.skipped] == [
        ("agent_messages", "2 sessions in this database: showing support-118 (the newest row); the others are "
                           "sidechains (open one with --sidechain session:SESSION_ID)", "ignored"),
        ("agent_messages[id=11].message_data", "encrypted item (EncryptedSession)", "ignored"),
        ("agent_messages[id=13].message_data", "handoff_marker_v9 (unknown item type)", "ignored"),
    ]


def test_named_session(db):
    s = read_database(db, "support-117")
    assert [(m.role, m.text) for m in s.messages] == [("user", "What is your returns window?"), ("assistant", "30 days from delivery.")]
    assert {k: len(v) for k, v in s.sidechains.items()} == {"session:support-118": 7}


def test_the_other_sessions_of_a_database_are_sidechains(db, capsys):
    """A database holding several sessions showed the newest and said nothing of the others (a
    public SQLAlchemy-session demo database holds three users' sessions: 12, 6 and 6 rows)."""
    s = load(db)
    assert list(s.sidechains) == ["session:support-117"]
    assert [(m.role, m.text) for m in s.sidechains["session:support-117"]] == [
        ("user", "What is your returns window?"), ("assistant", "30 days from delivery.")]
    assert main(["info", "--json", "--sidechain", "session:support-117", str(db)]) == 0
    assert json.loads(capsys.readouterr().out)["session"]["messages"] == 2
    with pytest.raises(SessionFormatError) as err:
        read_database(db, "nope")
    assert str(err.value).startswith(f"{db}: no session 'nope' in table agent_messages.")


def test_forced_on_a_database_without_the_table(tmp_path):
    other = tmp_path / "other.db"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
    con.commit()
    con.close()
    with pytest.raises(SessionFormatError) as err:
        load(other, format="agents_sqlite")
    assert str(err.value).startswith(f"{other}: this SQLite database has no Agents SDK message table.")


REAL = Path(__file__).parent / "fixtures" / "real" / "agents_sqlite" / "deepsearch_conversation_history_1.db"


def test_calls_recorded_without_ids_are_paired_by_order(tmp_path):
    """A real database written with a non-OpenAI model: every call_id is "". Two parallel calls
    are answered in order, so nothing is an orphan (before: the first of each pair was)."""
    copy = tmp_path / "history.db"
    copy.write_bytes(REAL.read_bytes())
    s = load(copy)
    view = build_view(s)
    calls = [(m.index, [c.id for c in m.tool_calls]) for m in s.messages if m.tool_calls]
    assert calls == [
        (5, ["unrecorded_1", "unrecorded_2"]), (14, ["unrecorded_3"]), (26, ["unrecorded_4"]),
        (30, ["unrecorded_5", "unrecorded_6"]), (37, ["unrecorded_7"]), (43, ["unrecorded_8"]), (47, ["unrecorded_9"]),
    ]  # fmt: skip
    assert [r.tool_call_id for m in s.messages for r in m.tool_results] == [f"unrecorded_{k}" for k in range(1, 10)]
    assert s.messages[5].tool_calls[0].extra["recorded_id"] == ""
    assert [view.flags[i] & 3 for i in range(len(s.messages))] == [0] * len(s.messages)  # no orphan call or result
    assert (len(s.messages), len(view.calls)) == (54, 26)
    assert inspector.validate(s.messages) == {"openai": [], "anthropic": []}


ADVANCED = Path(__file__).parent / "fixtures" / "constructed" / "agents_sqlite_advanced" / "advanced_branches.sql"
BRANCH = "branch_from_turn_2_1795518325"


def test_advanced_session_reads_one_branch_and_its_turn_usage(tmp_path):
    """An AdvancedSQLiteSession written by the SDK itself: a branch from turn 2 shares turn 1's rows.
    Before: every row in id order, both second turns one after the other (8 messages)."""
    path = tmp_path / "advanced.db"
    con = sqlite3.connect(path)
    con.executescript(ADVANCED.read_text())
    con.commit()
    con.close()
    s = load(path)
    assert (s.extra["branch"], s.extra["branches"]) == (BRANCH, [BRANCH, "main"])
    assert [(m.role, m.text) for m in s.messages] == [
        ("user", "What is the capital of Australia?"), ("assistant", "Canberra."),
        ("user", "And its area?"), ("assistant", "About 814 square kilometres."),
    ]  # fmt: skip
    assert [str(m.source) for m in s.messages] == [f"agent_messages[id={k}].message_data" for k in (1, 2, 7, 8)]
    main = s.sidechains["branch:main"]
    assert [m.role for m in main] == ["user", "assistant", "user", "assistant", "tool", "assistant"]
    assert main[3].tool_calls[0].name == "lookup_population"
    # the branch recorded usage for its turn 2 only: one request, so that call's usage
    assert [(t["turn"], t["requests"], t["input_tokens"], t["output_tokens"]) for t in s.extra["turn_usage"]] == [(2, 1, 70, 9)]
    assert [(m.index, m.usage.input_tokens, m.usage.output_tokens, m.usage.cache_read_input_tokens, m.usage.cache_creation_input_tokens)
            for m in s.messages if m.usage] == [(3, 70, 9, 0, 0)]
    # the main branch read alone: turn 1 took one request (its call gets the usage), turn 2 two (none does)
    from inspector.formats.agents_sqlite import SqliteSessionReader, connect, turn_usage

    reader = SqliteSessionReader(path, "trip-7", "main")
    con = connect(path)
    reader.read_new(con)
    turn_usage(con, reader)
    con.close()
    assert [(t["turn"], t["requests"], t["input_tokens"]) for t in reader.session.extra["turn_usage"]] == [(1, 1, 41), (2, 2, 262)]
    assert [(m.index, m.usage.input_tokens, m.usage.output_tokens) for m in reader.session.messages if m.usage] == [(1, 41, 4)]


def test_the_other_sessions_of_a_database_are_not_priced_as_this_ones_cost(db):
    import inspector
    from inspector.analysis.money import session_money

    s = load(db)
    assert s.extra["separate_sessions"] == ["session:support-117"]
    a = inspector.analyze(s, "cl100k_base")
    money = session_money(a.view, a.table)
    assert {c.sidechain for c in money.calls} == {None} and len(money.calls) == 3


def test_a_database_lists_its_sessions_once(db, monkeypatch):
    """Every other session's reader reuses the list (it was made again per session: a database of
    3,000 sessions took 14 s to open, not 0.5 s)."""
    from inspector.formats import agents_sqlite

    calls = []
    listing = agents_sqlite.sessions
    monkeypatch.setattr(agents_sqlite, "sessions", lambda con, table: calls.append(table) or listing(con, table))
    s = load(db)
    assert calls == ["agent_messages"] and list(s.sidechains) == ["session:support-117"]
