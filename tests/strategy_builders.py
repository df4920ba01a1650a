"""Small hand-built sessions for the strategy, validation and replay tests.

``SessionBuilder`` appends messages in the provider-neutral model directly (no reader involved),
so the tests pin the strategies alone. With ``encoding="approx"`` and the OpenAI profile a
message costs 3 + tokens(role) + ceil(chars / 4) per text or result, and a tool call adds
3 + tokens(name) + tokens(arguments): tests choose texts whose lengths make the sums easy.
"""

from __future__ import annotations

from inspector import Analysis, analyze
from inspector.model import Message, Session, TextBlock, ToolCallBlock, ToolDefinition, ToolResultBlock, Usage


def text_of(tokens: int, letter: str = "x") -> str:
    """A text of exactly ``tokens`` approx tokens (4 characters each)."""
    return (letter * 3 + " ") * tokens


class SessionBuilder:
    def __init__(self, id_prefix: str = "call_", fmt: str = "inspector") -> None:
        self.messages: list[Message] = []
        self.id_prefix = id_prefix
        self.format = fmt
        self.next_call = 1
        self.tools: list[ToolDefinition] = []

    def _add(self, role: str, content: list, **kw) -> int:
        index = len(self.messages)
        self.messages.append(Message(index=index, role=role, content=content, **kw))
        return index

    def system(self, text: str) -> int:
        return self._add("system", [TextBlock(text=text)])

    def user(self, text: str, **kw) -> int:
        return self._add("user", [TextBlock(text=text)], **kw)

    def assistant(self, text: str = "", calls: list[tuple[str, str]] | None = None, usage: int | None = None) -> tuple[int, list[str]]:
        """An assistant message; ``calls`` = [(tool name, arguments JSON)]. Returns (index, call ids)."""
        content: list = [TextBlock(text=text)] if text else []
        ids = []
        for name, args in calls or []:
            call_id = f"{self.id_prefix}{self.next_call}"
            self.next_call += 1
            ids.append(call_id)
            content.append(ToolCallBlock(id=call_id, name=name, arguments=args))
        kw = {"usage": Usage(input_tokens=usage)} if usage is not None else {}
        return self._add("assistant", content, **kw), ids

    def answer(self, text: str, usage: int | None = None) -> int:
        return self.assistant(text, usage=usage)[0]

    def tool(self, call_id: str, text: str, is_error: bool = False) -> int:
        """An OpenAI-style tool message answering one call."""
        return self._add("tool", [ToolResultBlock(tool_call_id=call_id, content=text, is_error=is_error)])

    def results(self, pairs: list[tuple[str, str]], text: str | None = None) -> int:
        """An Anthropic-style user message holding tool_result blocks (and optional text after)."""
        content: list = [ToolResultBlock(tool_call_id=cid, content=t) for cid, t in pairs]
        if text:
            content.append(TextBlock(text=text))
        return self._add("user", content, content_form="blocks")

    def exchange(self, name: str, args: str, result: str, text: str = "") -> tuple[int, int]:
        """One call and its tool message: (assistant index, tool index)."""
        a, ids = self.assistant(text, [(name, args)])
        return a, self.tool(ids[0], result)

    def build(self) -> Session:
        return Session(path=None, format=self.format, messages=list(self.messages), tools=list(self.tools))

    def analyze(self, encoding: str = "approx", profile: str = "openai") -> Analysis:
        return analyze(self.build(), encoding, profile)


def small_session() -> SessionBuilder:
    """Three turns (approx / OpenAI profile token totals in brackets; overhead 3, total 1,064):

    0 system [9] | 1 user [14] 2 call read_file [16] 3 result [504] 4 answer [26] |
    5 user [14] 6 call read_file [16] 7 result [304] 8 call bash [14] 9 result [104] 10 answer [26] |
    11 user [14]
    """
    b = SessionBuilder()
    b.system("You are helpful.")
    b.user(text_of(10, "q"))
    b.exchange("read_file", '{"path": "a.py"}', text_of(500, "a"))
    b.answer(text_of(20, "f"))
    b.user(text_of(10, "r"))
    b.exchange("read_file", '{"path": "b.py"}', text_of(300, "b"))
    b.exchange("bash", '{"cmd": "ls"}', text_of(100, "c"))
    b.answer(text_of(20, "g"))
    b.user(text_of(10, "s"))
    return b


SEEDS_RESULTS = ((400, 600, 200), (800, 300), (500, 700, 100))


def seeds_session() -> SessionBuilder:
    """Shaped like the session measured in the seeds: 3 user questions, 11 model calls, each
    turn a few SQL tool calls then a final answer; every result is re-sent on later calls.

    Totals (approx / OpenAI profile): system 55, question 24, call 16, result 4 + size,
    answer 56; overhead 3. Result sizes per turn: SEEDS_RESULTS.
    """
    b = SessionBuilder()
    b.system(text_of(50, "s"))
    for turn, sizes in enumerate(SEEDS_RESULTS, 1):
        b.user(text_of(20, "q"))
        for size in sizes:
            b.exchange("run_sql", '{"sql": "SELECT 1"}', text_of(size, "r"))
        b.answer(text_of(50, "a"))
    return b
