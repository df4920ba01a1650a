#!/usr/bin/env python3
"""Read and follow speed of the Claude Code and Codex readers on synthetic transcripts.

Writes a Claude Code transcript (one line per content block, progress lines, parallel calls) and a
Codex rollout (response items, duplicated UI events, token_count) of N turns to a temp directory,
then times: the whole-file read, and following the file while a writer appends 50 records a
second (the poll cost per batch). Run: python bench/bench_agent_formats.py [TURNS]
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

from inspector.follow import Follower
from inspector.formats import load

RESULT = "x" * 2000


def claude_lines(turns: int) -> list[str]:
    out, parent, n = [], None, 0

    def entry(kind: str, **kw) -> None:
        nonlocal parent, n
        n += 1
        uuid = f"u{n}"
        out.append(json.dumps({"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": "s", "isSidechain": False, **kw}, separators=(",", ":")))
        parent = uuid

    for t in range(turns):
        entry("user", message={"role": "user", "content": f"turn {t}: please look at module {t}"})
        for step in range(3):
            mid = f"msg_{t}_{step}"
            usage = {"input_tokens": 3, "cache_read_input_tokens": 1000 * t, "cache_creation_input_tokens": 50, "output_tokens": 10}
            entry("assistant", requestId=f"r{t}{step}", message={"id": mid, "role": "assistant", "content": [{"type": "text", "text": "Reading two files."}], "usage": usage})
            for c in range(2):
                entry("assistant", requestId=f"r{t}{step}", message={"id": mid, "role": "assistant", "content": [{"type": "tool_use", "id": f"t{t}{step}{c}", "name": "Read", "input": {"file_path": f"/src/m{t}_{c}.py"}}], "usage": usage})
            for c in range(2):
                entry("user", message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{t}{step}{c}", "content": RESULT}]})
            entry("progress", data={"type": "hook_progress"})
        entry("assistant", requestId=f"r{t}end", message={"id": f"msg_{t}_end", "role": "assistant", "content": [{"type": "text", "text": "Done."}], "usage": {"input_tokens": 5, "output_tokens": 5}})
    return out


def codex_lines(turns: int) -> list[str]:
    out = [json.dumps({"timestamp": "t", "type": "session_meta", "payload": {"id": "x", "cwd": "/w", "base_instructions": {"text": "You are Codex."}}})]

    def rec(kind: str, payload: dict) -> None:
        out.append(json.dumps({"timestamp": "t", "type": kind, "payload": payload}, separators=(",", ":")))

    total = 0
    for t in range(turns):
        rec("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": f"turn {t}"}]})
        rec("event_msg", {"type": "user_message", "message": f"turn {t}"})
        for step in range(3):
            rec("response_item", {"type": "reasoning", "summary": [{"type": "summary_text", "text": "think"}]})
            for c in range(2):
                rec("response_item", {"type": "function_call", "name": "shell", "arguments": "{\"command\":[\"ls\"]}", "call_id": f"c{t}{step}{c}"})
            total += 1000
            rec("event_msg", {"type": "token_count", "info": {"total_token_usage": {"input_tokens": total}, "last_token_usage": {"input_tokens": 1000, "cached_input_tokens": 500, "output_tokens": 10}}})
            for c in range(2):
                rec("response_item", {"type": "function_call_output", "call_id": f"c{t}{step}{c}", "output": RESULT})
        rec("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Done."}]})
        rec("event_msg", {"type": "agent_message", "message": "Done."})
    return out


def bench(name: str, fmt: str, lines: list[str], tmp: Path) -> None:
    path = tmp / f"{name}.jsonl"
    path.write_text("\n".join(lines) + "\n")
    t0 = time.perf_counter()
    session = load(path, fmt)
    read_s = time.perf_counter() - t0
    print(f"{name}: {len(lines):,} lines, {path.stat().st_size / 1e6:.1f} MB -> {len(session.messages):,} messages: read {read_s:.2f} s")
    live = tmp / f"{name}-live.jsonl"
    half = len(lines) // 2
    live.write_text("\n".join(lines[:half]) + "\n")
    t0 = time.perf_counter()
    follower = Follower(live, fmt)
    start_s = time.perf_counter() - t0
    polls, worst, total = 0, 0.0, 0.0
    for k in range(half, min(len(lines), half + 1000), 5):  # 5 lines per 100 ms poll = 50 records/s
        with open(live, "a") as fh:
            fh.write("\n".join(lines[k : k + 5]) + "\n")
        t0 = time.perf_counter()
        follower.poll()
        dt = time.perf_counter() - t0
        polls, worst, total = polls + 1, max(worst, dt), total + dt
    print(f"  follow: initial read of {half:,} lines {start_s:.2f} s; {polls} polls of 5 lines: mean {1000 * total / polls:.2f} ms, worst {1000 * worst:.2f} ms")


def main() -> None:
    turns = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        bench("claude_code", "claude_code", claude_lines(turns), tmp)
        bench("codex", "codex", codex_lines(turns), tmp)


if __name__ == "__main__":
    main()
