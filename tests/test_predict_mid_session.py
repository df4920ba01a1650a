"""A Claude Code transcript that starts mid-session: the first call's part not in the file.

Its first entry continues a record the file does not hold, so its first call was sent the
conversation before the file as well: the typical size of a session's first call is no estimate
of it, the call's own record is the only figure the file has, and that call's residual is not the
agent's prefix after a compaction."""

from __future__ import annotations

from pathlib import Path

import orjson

import inspector
from inspector.analysis.predict import TYPICAL, predictions
from inspector.model import UNSEEN_START

FIXTURE = Path(__file__).parent / "fixtures" / "real" / "claude_code" / "entirecli_cc2.1.14_mid_session_start.jsonl"


def _calls(path: Path):
    session = inspector.load(path)
    analysis = inspector.analyze(session, "cl100k_base")
    return session, predictions(analysis.view, analysis.table)


def test_a_checkpoint_that_starts_mid_session_takes_its_first_calls_own_record():
    session, calls = _calls(FIXTURE)
    assert session.extra[UNSEEN_START] == "5572916c-0452-4b31-8af2-d024b3919bcc"
    first = calls[0]
    assert (first.call, first.recorded_tokens, first.fit.basis) == (1, 127_793, "own record")
    assert first.predicted_tokens == 127_793  # not typical + 22 counted (29,922)
    assert first.fit.how.startswith("the file starts mid-session")
    assert calls[1].fit.basis == "recorded" and calls[1].fit.anchor[:2] == (1, 127_793)


def test_after_a_compaction_the_mid_session_residual_is_not_the_prefix():
    _, calls = _calls(FIXTURE)
    after = calls[26]
    typical = next(t for t in TYPICAL if t.agent == "claude_code" and t.version_prefix == "2.1." and not t.since)
    assert (after.call, after.recorded_tokens, after.fit.basis) == (27, 49_879, "typical")
    assert after.predicted_tokens == after.baseline_tokens + typical.tokens  # was 127,771 + counted (+164 %)


def _entry(kind: str, uuid: str, parent: str | None, **more) -> dict:
    return {"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": "s", "version": "2.1.14",
            "timestamp": "2026-01-01T00:00:00Z", **more}


def _write(tmp_path: Path, entries: list[dict]) -> Path:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join(orjson.dumps(e) for e in entries) + b"\n")
    return path


def _turn(first_parent: str | None) -> list[dict]:
    usage = {"input_tokens": 10, "cache_read_input_tokens": 60_000, "cache_creation_input_tokens": 5, "output_tokens": 3}
    reply = {"role": "assistant", "id": "m1", "model": "claude-opus-4-5-20251101", "content": [{"type": "text", "text": "ok"}], "usage": usage}
    return [
        _entry("system", "a", first_parent, subtype="turn_duration", durationMs=5),
        _entry("user", "b", "a", message={"role": "user", "content": "go on"}),
        _entry("assistant", "c", "b", message=reply, requestId="r1"),
    ]


def test_the_reader_tells_a_chain_rooted_outside_the_file(tmp_path):
    session, calls = _calls(_write(tmp_path, _turn("gone")))
    assert session.extra[UNSEEN_START] == "gone"
    assert (calls[0].fit.basis, calls[0].predicted_tokens) == ("own record", 60_015)


def test_a_session_start_keeps_the_typical(tmp_path):
    session, calls = _calls(_write(tmp_path, _turn(None)))
    assert UNSEEN_START not in session.extra
    assert calls[0].fit.basis == "typical"


def test_a_file_that_starts_with_a_compaction_keeps_the_typical(tmp_path):
    """A continuation that starts at a summary: the summary replaced the conversation before it."""
    boundary = _entry("system", "z", None, subtype="compact_boundary", logicalParentUuid="gone")
    summary = _entry("user", "y", "z", isCompactSummary=True,
                     message={"role": "user", "content": "This session is being continued from a previous conversation."})
    entries = [boundary, summary, *_turn("y")]
    session, calls = _calls(_write(tmp_path, entries))
    assert session.extra[UNSEEN_START] == "gone"
    assert calls[0].fit.basis == "typical"
