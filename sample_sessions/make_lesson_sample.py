#!/usr/bin/env python3
"""Writes ``measured_three_questions.json``, the lesson's three-question session (deterministic).

    python sample_sessions/make_lesson_sample.py

An OpenAI Chat Completions body: a support-analytics agent answers 3 questions in 11 model calls
(4, 4 and 3). Every message is fitted to an exact token count, counted the way the inspector
counts it (cl100k_base, the openai profile), so that the replay reproduces the measured table of
the seeds' proposal: per question, first and last call input 964 -> 1,349, 1,537 -> 2,370 and
2,670 -> 3,500; 21,837 input tokens over the 11 calls; a prior turn's context of 573 and 1,133
tokens. Tool pruning keeps each prior turn's question and answer: 188 and 300 tokens.

The texts are written by hand; the fitting only cuts a long text at a word boundary (or, for a
tool result, pads its notes field) until the message has its target count.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
NAME = "measured_three_questions.json"
MODEL = "gpt-4-turbo-2024-04-09"  # cl100k_base is its exact tokenizer

#: Tokens per message (framing included), in file order after the system message.
#: u = question, c/r = a tool call and its result, a = final answer.
QUESTION = 36
EXCHANGES = ((60, 80, 245), (300, 250, 283), (725, 105))  # per turn: call + result tokens
PRIOR_TURN_PRUNED = (188, 300)  # what tool pruning keeps of turns 1 and 2: the question and the answer
ANSWERS = (PRIOR_TURN_PRUNED[0] - QUESTION, PRIOR_TURN_PRUNED[1] - QUESTION, 141)
FIRST_CALL = 964  # system prompt + tool definitions + reply priming + the first question

QUESTIONS = (
    "How many support tickets did we open last week, and which product area had the most of them? "
    "Count merged tickets once and tell me which query you ran.",
    "Which of those billing tickets breached their first-response SLA, and why did they breach it? "
    "Look at one or two of them in detail if that helps.",
    "Draft a short note to the billing team lead summarising the breaches and one concrete fix to try. "
    "Keep it friendly, and keep it under 200 words.",
)

ANSWERS_TEXT = (
    "Last week (10 to 14 November) we opened 751 support tickets, counting merged and duplicate tickets once. "
    "Billing had the most by a wide margin: 412 tickets, 55% of the week, against 131 for accounts, 88 for "
    "integrations, 54 for the mobile app, 37 for reporting and 29 for everything else. The billing spike "
    "started on Tuesday, the day the new invoice form shipped (138 billing tickets that day against about 40 "
    "on a normal day), and it eased through the rest of the week. Queries: tickets per product area for the "
    "week, then the daily split for billing. The week before had 662 tickets, so the whole rise of 89 was in billing.",
    "Twenty-one billing tickets breached the four-hour first-response target last week, all of them opened "
    "between 07:00 and 09:00. Two causes explain every one of them. First, routing: twelve tickets came in "
    "through the general inbox because the new invoice form does not fill in the product field, so they sat "
    "in the wrong queue until someone moved them by hand. Ticket T-48213 is typical: opened at 07:12 with an "
    "empty product field, moved to billing at 09:48, first answered at 10:05, two hours and fifty-three minutes "
    "after it arrived and well past the target once the queue wait is added. Second, staffing: the other nine "
    "went straight to the billing queue but waited for the only agent on the early shift, who was already "
    "working through the overnight backlog. The queries were the breach list for billing, the ticket timeline "
    "of T-48213, and breaches by routing path and hour of the day. Outside those two hours the billing queue "
    "met its target all week, so this is a morning problem rather than a general one, and both causes can be "
    "fixed without adding people. Last week the same queue had four breaches, so the invoice form change "
    "accounts for most of the increase; the early-shift gap was already there.",
    "Here is a draft for Dara: Hi Dara, a quick note on last week's first-response breaches in billing. "
    "Twenty-one tickets missed the four-hour target, all opened between seven and nine in the morning. Twelve "
    "were routed to the general inbox because the new invoice form leaves the product field empty; the other "
    "nine waited for our single early-shift agent, who starts the day with the overnight backlog. One fix to "
    "try this week: default the invoice form's product field to billing, which would have sent those twelve "
    "straight to your queue. If that works, we can look at moving a second start to seven. Happy to share the "
    "ticket list. Thanks, Support Analytics.",
)

SYSTEM = (
    "You are the support analytics assistant for Northwind Helpdesk. You answer questions from the support "
    "operations team with data from the helpdesk warehouse, and you draft short messages for them when asked.\n\n"
    "Data. The warehouse schema is support. The tickets table holds one row per ticket with its root id (merged "
    "and duplicate tickets share a root id: count each root once), the time it was opened and first answered, "
    "its product area, the path it was routed through (billing_queue, general_inbox, api) and whether it "
    "breached its first-response target. The rota table lists each agent's shift start per ISO week. Ticket "
    "timelines are only available through get_ticket.\n\n"
    "Tools. Use the tools to look things up rather than guessing. Check a table's columns with describe_table "
    "before you query it for the first time in a conversation. run_sql is read-only and times out after thirty "
    "seconds; keep queries narrow, filter on opened_at, and never select every column of a large table. Use "
    "get_ticket for at most three tickets per question, picking typical ones rather than outliers.\n\n"
    "Time. Report times in business hours, Monday to Friday, 08:00 to 18:00 UTC. The first-response target is "
    "four business hours for billing and accounts and eight for every other product area. A week runs from "
    "Monday to Sunday; last week means the most recent complete week.\n\n"
    "Answers. Lead with the number that was asked for, then the two or three facts that explain it, then the "
    "query or queries that produced it, in one line each. Round percentages to whole numbers. Say so plainly "
    "when the data cannot answer a question, and suggest the query that would. Do not speculate about the "
    "causes of a trend without a ticket or a query that shows it.\n\n"
    "Privacy. Never quote a customer's name, email address or message text; refer to tickets by id. Agents may "
    "be named in internal notes and rota questions.\n\n"
    "Drafts. Write in plain language for the person the note is addressed to, keep it short and friendly, and "
    "end with one concrete next step. Sign drafts as Support Analytics.\n\n"
    "Escalation. If a question concerns a security incident, a data deletion request or a legal complaint, "
    "do not answer it from the warehouse: say that it belongs to the on-call lead and stop. If a query returns "
    "an error, read the message, fix the query once, and report the error if the second attempt fails too. "
    "When two figures disagree, say which one you trust and why, and show both.\n\n"
    "Context. The team works in weekly reviews: the head of support reads your answers on Monday morning, the "
    "queue leads act on them during the week, and finance uses the billing figures for refunds. Write for "
    "people who know the helpdesk well but do not read SQL every day. Where a number changed since last week, "
    "give last week's number beside it. Where a figure depends on a definition (what counts as a breach, which "
    "tickets are merged), state the definition you used in a short clause. Keep tables to ten rows or fewer "
    "and mention how many rows you left out. If the question is ambiguous, answer the most likely reading and "
    "say in one sentence which reading you chose.\n\n"
    "Style. Use short sentences and plain words. Prefer a list of three items to a paragraph of six clauses. "
    "Spell out what an abbreviation means the first time you use it, except SLA, SQL and UTC, which everyone "
    "on the team knows. Use the product area names exactly as they appear in the warehouse (billing, accounts, "
    "integrations, mobile app, reporting, other), and write ticket ids with their T- prefix. Do not add "
    "greetings or sign-offs to answers, only to drafts. When you are unsure whether a figure is right, say how "
    "you would check it and do that check if a tool can. Never invent a ticket id, a name or a number "
    "that no tool returned; if the team needs a figure the warehouse does not hold, say who has it."
)

def counter():
    sys.path.insert(0, str(HERE.parent))
    from inspector.tokens import get_counter, get_profile

    return get_counter("cl100k_base"), get_profile("openai")


def message_tokens(message: dict) -> int:
    """The inspector's count of one OpenAI message (framing included)."""
    import inspector
    from inspector.tokens.messages import count_message

    import tempfile

    count, profile = counter()
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"model": MODEL, "messages": [message]}, f)
    try:
        session = inspector.load(f.name, "openai")
    finally:
        Path(f.name).unlink()
    return count_message(session.messages[0], count, profile).total


def cut_to(make, text: str, target: int) -> dict:
    """``make(prefix)`` for a long prefix of ``text`` whose message has exactly ``target`` tokens: cut at
    a word boundary (with a short ending tried), else between two characters."""
    words = text.split(" ")
    lo, hi = 1, len(words)
    while lo < hi:  # the largest word count whose message is <= target
        mid = (lo + hi + 1) // 2
        if message_tokens(make(" ".join(words[:mid]))) <= target:
            lo = mid
        else:
            hi = mid - 1
    for n in range(lo, max(lo - 40, 0), -1):
        prefix = " ".join(words[:n]).rstrip(",;:")
        for ending in ("", ".", "!", " -", " ok"):
            candidate = make(prefix + ending)
            if message_tokens(candidate) == target:
                return candidate
    lo, hi = 1, len(text)  # no word boundary lands on it: cut between characters
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if message_tokens(make(text[:mid])) <= target:
            lo = mid
        else:
            hi = mid - 1
    for n in range(lo, max(lo - 12, 0), -1):
        candidate = make(text[:n])
        if message_tokens(candidate) == target:
            return candidate
    raise SystemExit(f"cannot fit {text[:40]!r} to {target} tokens")


def tools() -> list[dict]:
    def tool(name: str, description: str, properties: dict) -> dict:
        return {"type": "function", "function": {"name": name, "description": description, "parameters": {
            "type": "object", "properties": properties, "required": list(properties)}}}

    s = {"type": "string"}
    return [
        tool("describe_table", "Columns and types of a helpdesk warehouse table.", {"table": s}),
        tool("run_sql", "Run a read-only SQL query against the helpdesk warehouse.", {"sql": s}),
        tool("get_ticket", "One ticket with its timeline of events.", {"ticket_id": s}),
    ]


CALLS = (
    (("describe_table", {"table": "support.tickets"}),
     ("run_sql", {"sql": "SELECT product_area, COUNT(DISTINCT root_id) FROM support.tickets WHERE opened_at >= '2025-11-10' GROUP BY 1"}),
     ("run_sql", {"sql": "SELECT opened_at::date, COUNT(*) FROM support.tickets WHERE product_area = 'billing' GROUP BY 1"})),
    (("run_sql", {"sql": "SELECT id, opened_at, first_response_at FROM support.tickets WHERE product_area = 'billing' AND sla_breached"}),
     ("get_ticket", {"ticket_id": "T-48213"}),
     ("run_sql", {"sql": "SELECT routed_via, EXTRACT(hour FROM opened_at) AS h, COUNT(*) FROM support.tickets WHERE sla_breached GROUP BY 1, 2"})),
    (("run_sql", {"sql": "SELECT agent, shift_start, tickets_handled FROM support.rota WHERE week = '2025-W46'"}),
     ("get_ticket", {"ticket_id": "T-48391"})),
)

RESULT_NOTES = (
    "columns: id, root_id, opened_at, first_response_at, product_area, routed_via, sla_breached, status. ",
    "billing 412, accounts 131, integrations 88, mobile app 54, reporting 37, other 29; total 751 distinct tickets. ",
    "2025-11-10 41, 2025-11-11 138, 2025-11-12 96, 2025-11-13 71, 2025-11-14 66. ",
    "T-48213 07:12 10:05, T-48219 07:40 10:22, T-48230 08:03 10:41, T-48251 08:15 11:02, T-48266 08:31 11:09, ",
    "T-48213 opened 07:12 via general inbox; product field empty; moved to billing 09:48; first response 10:05. ",
    "general_inbox 07 9, general_inbox 08 11, billing_queue 07 6, billing_queue 08 5, billing_queue 14 1. ",
    "Ana Ruiz 07:00 61, Ben Ode 11:00 58, Chen Li 11:00 49, Dara Moss 11:00 52, Eli Park 11:00 44. ",
    "T-48391 opened 08:02 via billing queue; waited for the only morning agent; first response 10:47. ",
)


def build() -> dict:
    import random

    ids = random.Random(1611)

    def call_id() -> str:
        return "call_" + "".join(ids.choices("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", k=24))

    defs = tools()
    messages: list[dict] = []
    # the system prompt takes what the first call has left after tools, priming and the question
    probe = {"model": MODEL, "tools": defs, "messages": [{"role": "user", "content": QUESTIONS[0]}]}
    overhead = first_input(probe) - message_tokens(probe["messages"][0])
    messages.append(cut_to(lambda t: {"role": "system", "content": t}, SYSTEM, FIRST_CALL - overhead - QUESTION))
    note = 0
    for turn, (sizes, calls) in enumerate(zip(EXCHANGES, CALLS)):
        messages.append(cut_to(lambda t: {"role": "user", "content": t}, QUESTIONS[turn], QUESTION))
        for size, (name, arguments) in zip(sizes, calls):
            cid = call_id()
            call = {"role": "assistant", "content": None, "tool_calls": [
                {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}]}
            messages.append(call)
            text = RESULT_NOTES[note] * 40
            note += 1
            messages.append(cut_to(lambda t, cid=cid: {"role": "tool", "tool_call_id": cid, "content": t}, text,
                                   size - message_tokens(call)))
        messages.append(cut_to(lambda t: {"role": "assistant", "content": t}, ANSWERS_TEXT[turn], ANSWERS[turn]))
    return {"model": MODEL, "tools": defs, "messages": messages}


def first_input(doc: dict) -> int:
    """The replay's input tokens of the document's first model call (an assistant message is appended)."""
    import tempfile

    import inspector

    body = {**doc, "messages": doc["messages"] + [{"role": "assistant", "content": "ok"}]}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(body, f)
    try:
        result = inspector.replay(inspector.load(f.name, "openai"), encoding="cl100k_base")
    finally:
        Path(f.name).unlink()
    return result.calls[0].baseline_tokens


def text() -> str:
    return json.dumps(build(), ensure_ascii=False, indent=2) + "\n"


def main() -> None:
    (HERE / NAME).write_text(text(), encoding="utf-8")
    print(f"wrote {NAME}")


if __name__ == "__main__":
    main()
