#!/usr/bin/env python3
"""Deterministic synthetic agent sessions for the benchmarks (modelled on the reference generator
in /work/shared/reference/bench/gen_session.py, seed 1234).

Message 0 is a system prompt. Each turn: a user prompt, 1-6 tool calls issued by assistant
messages (about 40 % of steps put 2-3 calls in one message, half carry a sentence of text), one
tool message per call (log-skewed sizes from 200 B to ~50 KB of JSON records, shell output or
code), then a final answer. ``generate(n)`` returns an :class:`inspector.model.Session` in memory
(stopping at the first turn boundary at or past ``n`` messages); run as a script it writes the
inspector's JSONL format.

Usage: python bench/gen_session.py [--seed S] [--out FILE] N
"""

from __future__ import annotations

import argparse
import json
import math
import random

from inspector.model import Message, Session, TextBlock, ToolCallBlock, ToolResultBlock

WORDS = (
    "the of and to in is that for it as with was on be by this are at from or an have not which but "
    "file function error test config value return class module import data request response server "
    "client build deploy cache token context message agent tool call result output input path branch "
    "commit merge update fix refactor add remove check parse load save read write run start stop retry"
).split()
IDENTS = "user_id order_id created_at status amount currency items name email address city score tags".split()
TOOLS = ["bash", "read_file", "search_code", "http_get", "list_dir", "run_tests", "query_db"]


class Gen:
    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)
        self.call_no = 0
        self.messages: list[Message] = []

    def words(self, n: int) -> str:
        return " ".join(self.r.choices(WORDS, k=n))

    def prose(self, nbytes: int) -> str:
        out, size = [], 0
        while size < nbytes:
            s = self.words(self.r.randint(6, 22)).capitalize() + self.r.choice([".", ".", "?", ":"])
            out.append(s)
            size += len(s) + 1
        return " ".join(out)

    def size(self) -> int:
        u = self.r.random() ** 3.0
        return int(200 * math.exp(u * math.log(50_000 / 200)))

    def result(self, nbytes: int) -> str:
        kind = self.r.random()
        lines, size = [], 0
        while size < nbytes:
            if kind < 0.4:
                rec = {k: self.r.randint(0, 10**6) if self.r.random() < 0.5 else self.words(3) for k in self.r.sample(IDENTS, 5)}
                ln = json.dumps(rec)
            elif kind < 0.7:
                ln = "src/%s/%s.py:%d:    return %s(%s)" % (
                    self.r.choice(IDENTS), self.r.choice(IDENTS), self.r.randint(1, 2000), self.r.choice(WORDS), self.r.choice(IDENTS))
            else:
                ln = "%5d\t    %s = %s.get(%r)" % (len(lines) + 1, self.r.choice(IDENTS), self.r.choice(IDENTS), self.r.choice(IDENTS))
            lines.append(ln)
            size += len(ln) + 1
        return "\n".join(lines)

    def add(self, role: str, content: list) -> None:
        self.messages.append(Message.model_construct(
            index=len(self.messages), role=role, content=content, name=None, usage=None,
            content_form="string", starts_context=False, extra={},
        ))

    def turn(self) -> None:
        self.add("user", [TextBlock(text=self.prose(self.r.randint(40, 900)))])
        remaining = self.r.randint(1, 6)
        while remaining > 0:
            batch = 1 if self.r.random() < 0.6 else min(remaining, self.r.randint(2, 3))
            remaining -= batch
            calls = []
            for _ in range(batch):
                self.call_no += 1
                tool = self.r.choice(TOOLS)
                args = json.dumps({"path": "src/%s.py" % self.r.choice(IDENTS), "limit": self.r.randint(1, 500)})
                calls.append(ToolCallBlock(id="call_%06d" % self.call_no, name=tool, arguments=args))
            text = [TextBlock(text=self.prose(60))] if self.r.random() < 0.5 else []
            self.add("assistant", text + calls)
            for c in calls:
                self.add("tool", [ToolResultBlock(tool_call_id=c.id, content=self.result(self.size()))])
        self.add("assistant", [TextBlock(text=self.prose(self.r.randint(150, 2500)))])


def generate(n: int, seed: int = 1234) -> Session:
    g = Gen(seed)
    g.add("system", [TextBlock(text="You are a coding agent. " + g.prose(3000))])
    while len(g.messages) < n:
        g.turn()
    return Session(format="inspector", messages=g.messages)


def write_jsonl(session: Session, path) -> None:
    """``session`` as the inspector's JSONL, one message a line."""
    with open(path, "w") as fh:
        for m in session.messages:
            record: dict = {"role": m.role, "content": m.text or None}
            if m.tool_calls:
                record["tool_calls"] = [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in m.tool_calls]
            if m.role == "tool":
                record["tool_call_id"] = m.tool_results[0].tool_call_id
                record["content"] = m.tool_results[0].content
            fh.write(json.dumps(record) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("size", type=int)
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--out", default=None, help="write the inspector JSONL here")
    a = ap.parse_args()
    session = generate(a.size, a.seed)
    print(f"{len(session.messages)} messages")
    if a.out:
        write_jsonl(session, a.out)


if __name__ == "__main__":
    main()
