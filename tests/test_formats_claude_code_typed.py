"""The Claude Code reader's typed path (claude_code_typed: lines decoded by msgspec, blocks built
from the typed parts) reads every line as the dict path does (orjson and ``add``): a whole-file read,
the same file fed line by line (the follow path) and every line parsed by orjson and given to
``add`` give the same session."""

from __future__ import annotations

from pathlib import Path

import json

import orjson
import pytest

from inspector.formats import claude_code_typed as typed
from inspector.formats.claude_code import ClaudeCodeStream
from inspector.formats.records import iter_lines, parse_line

FIX = Path(__file__).parent / "fixtures" / "real" / "claude_code"


def _same(path: Path) -> ClaudeCodeStream:
    """The whole-file read, after checking it against the follow path and the dict path."""
    whole = ClaudeCodeStream(path)
    typed_line = whole._take
    whole.typed = 0  # type: ignore[attr-defined]

    def counted(entry, line_no: int) -> bool:
        took = typed_line(entry, line_no)
        whole.typed += took  # type: ignore[attr-defined]
        return took

    whole._take = counted  # type: ignore[method-assign]
    whole.read_file(path)
    whole.finish()
    fed = ClaudeCodeStream(path)
    for line_no, line in iter_lines(path):
        fed.feed(line, line_no)
    fed.finish()
    dicts = ClaudeCodeStream(path)
    for line_no, line in iter_lines(path):
        entry = parse_line(line, line_no, dicts.session.skipped)
        if entry is not None:
            dicts.add(entry, line_no)
    dicts.finish()
    assert whole.session.model_dump() == dicts.session.model_dump() == fed.session.model_dump()
    assert whole.recognised == dicts.recognised == fed.recognised
    return whole


@pytest.mark.parametrize("path", sorted(FIX.glob("*.jsonl")), ids=lambda p: p.name)
def test_fixture_read_whole_equals_fed_line_by_line(path):
    _same(path)


def _line(rtype: str, uuid: str | None, parent: str | None, **fields) -> dict:
    out = {"type": rtype, "parentUuid": parent, "isSidechain": False, "sessionId": "s", "cwd": "/w", "version": "2.1.0",
           "gitBranch": "main", "timestamp": "2026-01-01T00:00:00Z", **fields}
    if uuid is not None:
        out["uuid"] = uuid
    return out


def _reply(mid: str, content, **more) -> dict:
    return {"id": mid, "role": "assistant", "model": "claude-x", "content": content,
            "usage": {"input_tokens": 3, "cache_read_input_tokens": 100, "output_tokens": 5}, **more}


#: Lines each of which asks the typed path something: refused shapes, rare records, values whose
#: msgspec and orjson forms differ. (raw lines where JSON is written by hand)
EDGES: list[dict | bytes] = [
    _line("user", "u1", None, message={"role": "user", "content": "hi"}),
    _line("assistant", "a1", "u1", requestId="r1", message=_reply("m1", [{"type": "thinking", "thinking": "t", "signature": "s"}])),
    _line("assistant", "a2", "a1", requestId="r1", message=_reply("m1", [{"type": "text", "text": "x", "citations": None}])),
    _line("assistant", "a3", "a2", requestId="r1", message=_reply("m1", [
        {"type": "tool_use", "id": "c1", "name": "Bash", "input": {"n": 12345678901234567890123, "f": 1.5e300, "neg": -9223372036854775809}},
        {"type": "tool_use", "id": "c2", "name": "Bash", "input": "already text"},
        {"type": "tool_use", "id": "c3", "name": "Bash"},
        {"type": "redacted_thinking", "data": "zz"}])),
    _line("user", "u2", "a3", message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "content": None, "is_error": True}]}),
    _line("progress", "p1", "u2", data={"deep": [1, 2, {"x": None}]}),
    _line("user", "u2b", "p1", toolUseResult={"status": "completed", "resolvedModel": "claude-opus-4-8[1m]", "content": [{"t": 1}]},
          message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c9", "content": "done"}]}),
    _line("user", "u2c", "u2b", toolUseResult="Error: a string result",
          message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c8", "content": "err"}]}),
    _line("user", "u2d", "u2c", toolUseResult={"resolvedModel": 7},
          message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c7", "content": "x"}]}),
    _line("result", None, None, modelUsage={"claude-x": {"contextWindow": 1000000}}, session_id="s"),
    _line("user", "u3", "p1", message={"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "c2", "content": [{"type": "text", "text": "part", "extra": 1}, {"type": "text"}]}]}),
    _line("user", "u4", "u3", message={"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "c3", "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}]}]}),
    _line("attachment", "t1", "u4", attachment={"type": "hook_success", "hookEvent": "PreToolUse", "content": ""}),
    _line("attachment", "t2", "t1", attachment={"type": "edited_text_file", "snippet": "1 changed"}),
    _line("system", "s1", "t2", subtype="turn_duration", durationMs=5),
    _line("system", "s2", "s1", subtype={"odd": True}),
    _line("ai-title", None, None, aiTitle="A title"),
    _line("file-history-snapshot", None, None, messageId="m", snapshot={}),
    _line("last-prompt", None, None, lastPrompt="x"),
    _line("mystery-record", "q1", "s2"),
    _line("assistant", "a4", "q1", isApiErrorMessage=True, message=_reply("m2", [{"type": "text", "text": "API Error"}])),
    _line("assistant", "a5", "a4", message={**_reply("m3", [{"type": "text", "text": "y"}]), "model": "<synthetic>"}),
    _line("user", "u5", "a5", isMeta=True, message={"role": "user", "content": "<system-reminder>x</system-reminder>"}),
    _line("assistant", "a6", "u5", requestId=7, message=_reply("m4", [{"type": "text", "text": "id not a string"}])),
    _line("assistant", "a6", "u5", message=_reply("m4", [{"type": "text", "text": "duplicate uuid"}])),
    _line("user", "u6", "a6", isSidechain=True, agentId="ag", message={"role": "user", "content": "side"}),
    _line("user", "u7", "a6", message={"role": "user", "content": [{"type": "text", "text": "img"},
                                                                    {"type": "image", "source": {"type": "url", "url": "http://x/y.png"}}]}),
    _line("assistant", "a7", "u7", message={**_reply("m5", []), "usage": {"input_tokens": 1 << 70, "output_tokens": -(1 << 70)}}),
    _line("assistant", "a7b", "a7", message={**_reply("m5b", []), "usage": {"input_tokens": 3.0, "output_tokens": True, "speed": "fast",
                                                                            "cache_creation_input_tokens": 5,
                                                                            "cache_creation": {"ephemeral_1h_input_tokens": 9}}}),
    _line("assistant", "a7c", "a7b", message={**_reply("m5c", []), "usage": {"input_tokens": 3, "output_tokens": 1, "speed": "standard",
                                                                            "cache_creation_input_tokens": 50,
                                                                            "cache_creation": {"ephemeral_1h_input_tokens": 9}}}),
    _line("assistant", "a7d", "a7c", message={**_reply("m5d", []), "usage": {"input_tokens": 3, "speed": "x" * 40, "cache_creation": None}}),
    _line("assistant", "a7e", "a7d", message={**_reply("m5e", []), "usage": "not an object"}),
    _line("user", "u8", "u1", message={"role": "user", "content": "a rewind to the first prompt"}),
    _line("assistant", "a8", "u8", message=_reply("m6", "a string content")),
    _line("assistant", "a9", "a8", message=_reply("m7", None)),
    _line("assistant", "a10", "a9", message=_reply("m8", [{"type": "server_tool_use", "id": "s", "name": "web_search", "input": {}}])),
    _line("system", "b1", "a10", subtype="compact_boundary", compactMetadata={"trigger": "auto"}),
    _line("user", "u9", "b1", isCompactSummary=True, message={"role": "user", "content": "summary"}),
    _line("user", "u10", "u9", message={"role": "user", "content": "after", "extra": [1]}, unknown={"a": 1e308}),
    b'{"type":"user","uu\\u0069d":"u12","parentUuid":"u10","timestamp":"t","message":{"role":"user","content":"escaped key"}}',
    b'{"type":"assistant","uuid":"a11","parentUuid":"u12","message":{"id":"m9","role":"assistant","content":[{"type":"text","text":"a"}]},'
    b'"message":{"id":"m9","role":"assistant","content":[{"type":"text","text":"dup key: last wins"}]}}',
    b'{"type":"user","uuid":"u13","parentUuid":"a11","message":{"role":"user","content":"crlf"}}\r',
    b"not json",
    b"[1, 2]",
    b"",
]


def test_edge_lines_read_whole_equal_fed_line_by_line(tmp_path):
    path = tmp_path / "edges.jsonl"
    # (json: orjson writes no integer beyond 64 bits)
    path.write_bytes(b"\n".join(e if isinstance(e, bytes) else json.dumps(e, separators=(",", ":")).encode() for e in EDGES) + b"\n")
    whole = _same(path)
    assert whole.typed == 23  # the typed path took these; the rest (a3's integers beyond 64 bits among them) went to the dict path
    assert whole.session.extra["resolved_models"] == ["claude-opus-4-8[1m]"]
    notes = [s.reason for s in whole.session.skipped]
    assert any(r.startswith("not valid JSON") for r in notes)


@pytest.mark.parametrize("depth", [300, 900])
def test_a_tool_input_orjson_does_not_write_takes_the_dict_path(tmp_path, depth):
    """A tool call's input nested deeper than orjson writes (254) is the dict path's line, read
    as it reads it (json_text), as deep as orjson parses it (1,024) less Python's own limit."""
    deep = "1"
    for _ in range(depth):
        deep = '{"a":' + deep + "}"
    lines = _chain(1) + [_line("assistant", "a1", "a0", message=_reply("m1", [{"type": "tool_use", "id": "c1", "name": "T", "input": {}}]))]
    path = _write(tmp_path / "deep.jsonl", [*lines[:-1], json.dumps(lines[-1], separators=(",", ":")).replace('"input":{}', '"input":' + deep).encode()])
    whole = _same(path)
    assert whole.typed == 1  # a0; not a1
    assert [len(m.content) for m in whole.session.messages] == [1, 1, 1]
    assert whole.session.messages[2].tool_calls[0].arguments.count('{"a":') == depth


def test_watched_fields_absent_typed(tmp_path):
    lines = [{"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s", "message": {"role": "user", "content": "q"}}]
    lines += [{"type": "assistant", "uuid": f"a{i}", "parentUuid": "u1" if i == 0 else f"a{i - 1}", "sessionId": "s",
               "message": _reply(f"m{i}", [{"type": "text", "text": str(i)}])} for i in range(5)]
    path = tmp_path / "plain.jsonl"
    path.write_bytes(b"\n".join(orjson.dumps(e) for e in lines))
    whole = _same(path)
    assert whole.typed == 5  # all but the first conversation entry
    assert [m.text for m in whole.session.messages] == ["q", "0", "1", "2", "3", "4"]


def test_a_number_orjson_refuses_in_a_field_never_read_loads(tmp_path):
    """The one difference left (claude_code_typed's docstring): msgspec skips a field the reader
    never reads, so a number beyond a double's range there no longer costs the line."""
    path = tmp_path / "big.jsonl"
    path.write_bytes(b'{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"q"}}\n'
                     b'{"type":"assistant","uuid":"a1","parentUuid":"u1","x":1e400,"message":{"id":"m","content":[{"type":"text","text":"a"}]}}\n')
    whole = ClaudeCodeStream(path)
    whole.read_file(path)
    assert [m.text for m in whole.session.messages] == ["q", "a"]
    assert whole.session.skipped == []


class _Counting:
    """The typed decoder, counting the runs it decodes in one call."""

    def __init__(self) -> None:
        self.runs, self.decoder = 0, typed.DECODER

    def decode(self, line):
        return self.decoder.decode(line)

    def decode_lines(self, lines):
        self.runs += 1
        return self.decoder.decode_lines(lines)


def _write(path: Path, lines: list[dict | bytes]) -> Path:
    path.write_bytes(b"\n".join(e if isinstance(e, bytes) else json.dumps(e, separators=(",", ":")).encode() for e in lines) + b"\n")
    return path


def _chain(n: int) -> list[dict]:
    lines = [_line("user", "u0", None, message={"role": "user", "content": "q"})]
    return lines + [_line("assistant", f"a{i}", "u0" if i == 0 else f"a{i - 1}", message=_reply(f"m{i}", [{"type": "text", "text": str(i)}]))
                    for i in range(n)]


def test_a_run_of_object_lines_is_decoded_in_one_call_and_lines_it_refuses_go_the_dict_way(tmp_path, monkeypatch):
    lines = _chain(6)
    lines.insert(3, lines[2])  # a duplicate uuid: refused by the reader, not the decoder
    counting = _Counting()
    monkeypatch.setattr(typed, "DECODER", counting)
    whole = _same(_write(tmp_path / "run.jsonl", lines))
    assert counting.runs == 1
    assert whole.typed == 6  # the first entry and the duplicate went the dict way
    assert [s.reason for s in whole.session.skipped] == ["assistant (duplicate uuid, replayed entry)"]
    assert [s.where for s in whole.session.skipped] == ["line 4"]


@pytest.mark.parametrize("odd", [
    # a line the structs refuse: the run is decoded line by line
    _line("assistant", "x", "a5", message=_reply("mx", [{"type": "text", "text": "t", "cache_control": {"type": "ephemeral"}}])),
    # one value over two lines, and a line of two values: every line starts with { and ends with },
    # and as many values as lines, but a value cannot hold } then { (the run goes line by line)
    b'{"type":"progress","uuid":"p","data":[{}',
    b'{}]}\n{"type":"progress","uuid":"q"} {"type":"progress","uuid":"r"}',
    b'  {"type":"progress","uuid":"p"}',  # not starting with {
    b'{"type":"progress","uuid":"p"}\r',  # CRLF
])
def test_runs_with_other_lines_read_line_by_line_as_the_dict_path(tmp_path, odd):
    _same(_write(tmp_path / "odd.jsonl", [*_chain(6), odd, *_chain(3)[1:]]))
