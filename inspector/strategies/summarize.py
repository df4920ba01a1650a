"""``summarize``: replace the oldest part of the history by one summary message.

When the request is over ``budget``, the oldest ``summary_ratio`` of the non-system messages of
the history (all of them, the current turn included: ``int(count * summary_ratio)``, at least
one) is replaced by ONE system message ``[Earlier conversation summary]: ...`` of at most
``summary_tokens`` tokens (counted with the table's encoding), placed where the first replaced
message was. As in Strands Agents' ``SummarizingConversationManager`` (``summary_ratio=0.3``),
the cut moves forward until no tool exchange is split. It may reach into the current turn, as
Claude Code's and Codex's automatic compactions do mid-turn, but never replaces what the turn
needs: its prompt and its latest exchange (:func:`~inspector.strategies.common.protected_in_turn`)
stay, after the summary. If the request is still over budget, the summary is folded into the
next round with the next ``summary_ratio`` of what remains (Strands re-summarises a previous
summary the same way), until it fits or only the protected messages are left.

Offline and deterministic: the summary is an extractive stand-in (what the user asked, what the
assistant answered, the tools used), marked ``simulated``; a real run would send a model's
summary of about the same size. Its token count, not its wording, is what the plan uses.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Sequence
from functools import cached_property, partial
from itertools import accumulate
from operator import itemgetter, ne

from ..model import Message, TextBlock
from ..tokens import count_message, get_counter, get_profile
from ..tokens.counters import TiktokenCounter
from ..units import FINAL_ANSWER
from .base import Inserted, Reason, Status, Working, reason
from .common import candidates, non_system_count, view_cache
from .deferred import DeferredInserted
from .index_runs import IndexRuns, index_runs
from .params import Param
from .pipeline import register

NAME = "summarize"
PREFIX = "[Earlier conversation summary]:"
_REPLACED = "summarized by summarize: among the oldest {} messages replaced by one summary while {} > budget {}"
_INSERTED = "inserted by summarize: simulated extractive summary of {} messages, at most {} tokens"
_LINE_CHARS = 160
#: The summary's first part up to the number of messages it replaces, and the tool tally's head.
_TITLE = f"{PREFIX} (simulated offline summary of"
_TALLY = "Tools used:"
_SNAPSHOT = 512  # tool tallies kept every this many summarised messages


@register(
    NAME,
    (
        "budget",
        Param("summary_ratio", float, 0.3, "share of the oldest messages replaced", gt=0, le=1, step=0.05),
        Param("summary_tokens", int, 300, "size of the summary message", label="summary size", unit="tokens", ge=1, step=50),
    ),
    "When over budget, replaces the oldest share of the conversation by one short summary "
    "message (offline: a simulated extractive summary), inside the current turn too but never its "
    "prompt or latest exchange. Keeps a trace of old work in few "
    "tokens, but details are lost and a real summary costs an extra model call.",
)
def summarize(w: Working) -> None:
    budget = w.settings.budget
    if budget is None or w.running <= budget:
        return
    seq = candidates(w, in_turn=True)  # live non-system messages, oldest first, the protected ones aside
    if not seq:
        return
    m = len(seq)
    safe = _safe_cuts(w, seq)
    tokens = w.tokens
    prefix = [0]
    prefix.extend(accumulate([tokens[i] for i in seq]))

    counter = get_counter(w.table.encoding)
    profile = get_profile(w.table.profile)
    cap = w.settings.summary_tokens
    builder = _SummaryBuilder(w, seq, counter, profile, cap)
    estimate = builder.framing + cap  # an upper bound on the summary message
    ratio = w.settings.summary_ratio
    base = w.running
    history = non_system_count(w)  # the ratio is of the whole history, the current turn included
    cut = 0  # seq[:cut] is replaced
    while cut < m:
        remaining = history - cut + (1 if cut else 0)  # the summary counts as one message of the rest
        n = max(1, int(remaining * ratio)) - (1 if cut else 0)
        new_cut = min(m, cut + max(1, n))
        while new_cut < m and not safe[new_cut]:
            new_cut += 1
        if new_cut == m and not safe[m]:
            new_cut = max((p for p in range(cut + 1, m) if safe[p]), default=cut)
            if new_cut == cut:
                break
        cut = new_cut
        rest = base - prefix[cut]
        if rest + estimate <= budget:
            break
        if rest + builder.framing <= budget and rest + builder.tokens(cut) <= budget:
            break  # the actual summary is smaller than the cap and fits
    if cut == 0:
        return

    replaced = seq[:cut]
    position = w.order.index(replaced[0])
    w.drop_many(replaced, NAME, reason(_REPLACED, (cut, base, budget)), Status.SUMMARIZED)
    item = summary_message(builder, cut, tuple(replaced), w.table, by=NAME, reason=str(Reason(_INSERTED, (cut, cap))))
    w.insert(position, item)


def summary_message(builder: _SummaryBuilder, cut: int, replaces: Sequence[int], table, by: str, reason: str,
                    deferred: bool = True) -> Inserted:
    """The summary message of ``builder.seq[:cut]`` (``replaces``, its indices): its tokens now,
    its text when read (:class:`.deferred.DeferredInserted`), keyed by what the text is built
    from: the view, the table's encoding and profile, the cap, the role and ``replaces``; with
    ``deferred`` False, a plain :class:`~.base.Inserted` of its text (every summary of a history
    built call by call: few, and a plain one is cheaper to carry from call to call)."""
    if not deferred:
        return Inserted(role=builder.role, kind="summary", text=builder.text(cut), tokens=builder.tokens(cut), by=by,
                        reason=reason, replaces=replaces)
    runs = replaces if type(replaces) is IndexRuns else index_runs(replaces)
    runs_key = runs.runs if type(runs) is IndexRuns else runs  # the same indices: one key, whatever their type
    head = builder.key_head
    if head is None or head[2] != table.encoding or head[3] != table.profile:
        head = builder.key_head = ("summary", view_cache(builder.view), table.encoding, table.profile, builder.cap, builder.role)
    return DeferredInserted(partial(builder.text, cut), (*head, runs_key), role=builder.role, kind="summary",
                            tokens=builder.tokens(cut), by=by, reason=reason, replaces=replaces)


def safe_cut_at(w: Working, seq: list[int]) -> Callable[[int], object]:
    """``safe(p)``: :func:`_safe_cuts` ``[p]``, read at the positions asked only where units are
    runs inside one turn (a caller that visits a few positions, the start of a kept tail, builds
    no array of them all)."""
    if not view_cache(w.view).units_simple:
        return _safe_cuts(w, seq).__getitem__
    unit_of, m = w.view.unit_of, len(seq)
    return lambda p: p == 0 or p == m or unit_of[seq[p - 1]] != unit_of[seq[p]]


def _safe_cuts(w: Working, seq: list[int]) -> bytearray:
    """``safe[p]`` (0 <= p <= len(seq)): replacing ``seq[:p]`` splits no tool exchange."""
    view = w.view
    unit_of = view.unit_of
    m = len(seq)
    if view_cache(view).units_simple:  # units are runs inside one turn: cut between units
        units = [unit_of[i] for i in seq]
        return bytearray([1, *map(ne, units, units[1:]), 1])
    units_ = view.units
    live, stop = w.live, w.stop
    position_of = {i: k for k, i in enumerate(seq)}
    last_pos: dict[int, int] = {}
    for k, i in enumerate(seq):
        u = unit_of[i]
        if u in last_pos:
            continue
        end = k
        for j in units_[u].indices:
            if j < stop and live[j]:
                end = max(end, position_of.get(j, m))  # a member outside seq: never cut past it
        last_pos[u] = end
    safe = bytearray(m + 1)
    reach = -1
    for k, i in enumerate(seq):
        safe[k] = reach < k
        reach = max(reach, last_pos[unit_of[i]])
    safe[m] = reach < m
    return safe


class SharedCounts:
    """What the summaries one replay builds with one counter and profile count alike, kept from
    one builder to the next (a compacting replay builds one per compaction): the tokens of the
    title's and tool tally's pieces, of a count's digits, and of the message framing per role."""

    __slots__ = ("pieces", "numbers", "framing", "last")

    def __init__(self) -> None:
        self.pieces: dict[str, int] = {}
        self.numbers: dict[int, int] = {}
        self.framing: dict[str, int] = {}
        self.last: _SummaryBuilder | None = None  # the last builder :meth:`builder` made

    def builder(self, w: Working, seq: Sequence[int], counter, profile, cap: int, role: str) -> _SummaryBuilder:
        """A builder of ``seq``: the last one made here, its sequence extended, where ``seq``
        starts with that one's (a compaction that folds the earlier summary summarises what it
        did and more: only the new messages are read), else a new one. Where ``seq`` is
        :class:`.index_runs.IndexRuns` that :attr:`~.index_runs.IndexRuns.extends` the last
        builder's, that is known without comparing them."""
        last = self.last
        if (last is not None and last.view is w.view and last.counter is counter and last.profile is profile
                and last.cap == cap and last.role == role):
            if type(seq) is IndexRuns and last.key is not None and seq.extends is last.key:
                last.seq.extend(seq.since(len(last.seq)))
                last.key = seq
                return last
            items = seq if type(seq) is list else list(seq)
            if len(items) >= len(last.seq) and items[: len(last.seq)] == last.seq:
                last.seq.extend(items[len(last.seq) :])
                last.key = seq if type(seq) is IndexRuns else None
                return last
        self.last = _SummaryBuilder(w, list(seq), counter, profile, cap, role=role, shared=self)
        self.last.key = seq if type(seq) is IndexRuns else None
        return self.last


class _SummaryBuilder:
    """Builds the extractive stand-in for ``seq[:cut]``: what the user asked and the assistant
    answered (first lines, oldest first), and the tools used; cut to ``cap`` tokens. The tool
    tally grows with the cut, so successive rounds cost only what they add.

    Its token count (:meth:`tokens`) is found without building its text where the encoding lets
    the summary be counted by parts (:func:`_line_additive`): the title from its pieces, the tool
    tally from a running sum of its tools' pieces, the lines from prefix sums of their counts,
    and the one part the cap cuts by a bisection (:meth:`_fit_decision`); the text is built only
    when asked for (:meth:`text`: a plan's inserted message), from the same decision."""

    def __init__(self, w: Working, seq: list[int], counter, profile, cap: int, role: str = "system",
                 shared: SharedCounts | None = None) -> None:
        # of ``w`` it keeps the view alone: a summary whose text is not built yet holds its builder
        self.view, self.seq, self.counter, self.profile, self.cap = w.view, seq, counter, profile, cap
        #: the :class:`.index_runs.IndexRuns` ``seq`` holds, where :class:`SharedCounts` made it of one
        self.key: IndexRuns | None = None
        self.role = role  # the summary message's role (its framing is counted)
        #: the start of its summaries' text keys (:func:`summary_message`): all but their runs
        self.key_head: tuple | None = None
        shared = shared or SharedCounts()
        framing = shared.framing.get(role)
        if framing is None:
            framing = shared.framing[role] = self._message_tokens("")
        self.framing = framing
        self.tools: Counter[str] = Counter()
        self.tallied = 0
        #: sum over the tallied tools of :meth:`_tool_tokens` (the tally's tokens but its frame)
        self.tally_sum = 0
        #: ``(tallied, tools, tally_sum)`` every ``_SNAPSHOT`` positions: a smaller cut than one
        #: tallied before (the next call's, in a replay) restarts from the nearest one, not from 0.
        self.snapshots: list[tuple[int, Counter[str], int]] = [(0, Counter(), 0)]
        self.lines: list[str] = []  # the user's and final answers' first lines, oldest first
        self.lines_upto = 0  # seq positions scanned for lines
        self.lines_chars = 0
        self.lines_limit = cap * 8 + 200  # enough characters to reach the cap with any tokenizer
        self._memo: dict[int, tuple[str, int]] = {}  # cut -> text, tokens
        self._counts: dict[int, int] = {}  # cut -> tokens
        self._fitted: dict[tuple[int, ...], int] = {}  # (*head sizes, lines shown) -> tokens fitted in lines
        #: a part's tokens, with its newline (True: the last part, without), for _fit_lines
        self._counted: dict[bool, dict[str, int]] = {False: {}, True: {}}
        #: ``(part, last, n)`` -> the head of its piece within ``n`` tokens and that head's tokens
        self._heads: dict[tuple[str, bool, int], tuple[str, int]] = {}
        self._by_lines = _additive_encoding(counter)
        self._pieces = shared.pieces  # the tokens of the pieces of the title and tool tally
        self._numbers = shared.numbers  # a count's tokens (:meth:`_number_tokens`)
        self._steps: list[int] = [0]  # ``_steps[n]``: what a count's tokens grow by from n to n + 1
        self.line_uptos: list[int] = []  # each line's seq positions scanned when it was added
        self.line_prefix: list[int] = [0]  # prefix sums of the first lines' tokens, each with its newline
        self.lines_additive = 0  # how many of the first lines have the shape _additive_parts needs

    def _message_tokens(self, text: str) -> int:
        return count_message(Message(index=-1, role=self.role, content=[TextBlock(text=text)]), self.counter, self.profile).total

    def _tally(self, cut: int) -> None:
        view = self.view
        seq, call_ids, tool_names = self.seq, view.call_ids, view.tool_names
        steps = self._steps
        if cut < self.tallied:
            at = bisect_right(self.snapshots, cut, key=lambda snap: snap[0]) - 1
            if cut - self.snapshots[at][0] < self.tallied - cut:  # nearer the snapshot: from there on
                self.tallied, tools, self.tally_sum = self.snapshots[at]
                self.tools = Counter(tools)
            else:  # back from where it is
                tools, tally = self.tools, self.tally_sum
                for i in seq[cut : self.tallied]:
                    if call_ids[i]:
                        for name in tool_names[i]:
                            n = tools[name] - 1
                            if n:
                                tools[name] = n
                                tally -= steps[n]
                            else:
                                del tools[name]
                                tally -= self._tool_tokens(name, 1)
                self.tally_sum, self.tallied = tally, cut
                return
        tools, tally = self.tools, self.tally_sum
        for k, i in enumerate(seq[self.tallied : cut], self.tallied):
            if call_ids[i]:
                for name in tool_names[i]:  # (Counter.update's type checks cost more than the count)
                    n = tools[name]
                    tools[name] = n + 1
                    if not n:
                        tally += self._tool_tokens(name, 1)
                    else:
                        while len(steps) <= n:
                            steps.append(self._number_tokens(len(steps) + 1) - self._number_tokens(len(steps)))
                        tally += steps[n]
            if (k + 1) % _SNAPSHOT == 0 and k + 1 > self.snapshots[-1][0]:
                self.snapshots.append((k + 1, Counter(tools), tally))
        self.tally_sum = tally
        self.tallied = cut

    def _gather_lines(self, cut: int) -> None:
        """The first lines of the user's and final answers' messages of ``seq[:cut]``, until
        there are enough characters to reach the cap with any tokenizer."""
        view, seq = self.view, self.seq
        plain_user = view_cache(view).plain_user
        roles, flags, messages = view.roles, view.flags, view.messages
        limit = self.lines_limit
        k = self.lines_upto
        while k < cut and self.lines_chars <= limit:
            i = seq[k]
            k += 1
            if plain_user[i]:
                who = "User"
            elif roles[i] == "assistant" and flags[i] & FINAL_ANSWER:
                who = "Assistant"
            else:
                continue
            first = next((ln.strip() for ln in messages[i].text.splitlines() if ln.strip()), "")
            if not first:
                continue
            if len(first) > _LINE_CHARS:
                first = first[: _LINE_CHARS - 3].rstrip() + "..."
            line = f"- {who}: {first}"
            if self.lines_additive == len(self.lines) and _additive_line(line):
                self.lines_additive += 1
            self.lines.append(line)
            self.line_uptos.append(k)
            self.lines_chars += len(line) + 1
        self.lines_upto = k

    def _span(self, cut: int) -> str:
        turn_of = self.view.turn_of
        first_turn, last_turn = self._first_turn, turn_of[self.seq[cut - 1]]
        return f"turn {first_turn}" if first_turn == last_turn else f"turns {first_turn}-{last_turn}"

    @cached_property
    def _first_turn(self) -> int:
        return self.view.turn_of[self.seq[0]]

    def _head_parts(self, cut: int) -> list[str]:
        """The summary's parts before its lines: the title and, when a tool was used, the tally."""
        parts = [f"{_TITLE} {cut} earlier messages, {self._span(cut)})"]
        ranked = sorted(sorted(self.tools.items()), key=itemgetter(1), reverse=True)  # most used first, then by name
        if ranked:
            parts.append(_TALLY + "".join([f" {name} x{n}," for name, n in ranked])[:-1] + ".")
        return parts

    def _head_sizes(self, cut: int, shown: int) -> list[int]:
        """:meth:`_part_tokens` of each of :meth:`_head_parts`, from their pieces (the tally's
        from :attr:`tally_sum`)."""
        tallied = len(self.tools)
        last_turn = self.view.turn_of[self.seq[cut - 1]]
        sizes = [self._title_tokens(cut, self._first_turn, last_turn, not tallied and not shown)]
        if tallied:
            sizes.append(self._tally_frame(tallied, not shown) + self.tally_sum)
        return sizes

    def _by_parts(self, cut: int) -> int | None:
        """How many lines the summary of ``seq[:cut]`` shows when it is counted by parts
        (:func:`_line_additive`), else None. Tallies the tools to ``cut``."""
        if cut != self.tallied:  # (inline: once per compaction of a replay)
            self._tally(cut)
        if self.lines_upto < cut and self.lines_chars <= self.lines_limit:
            self._gather_lines(cut)
        shown = bisect_right(self.line_uptos, cut)  # the lines a cut shows are the first ones
        # _line_additive(counter, parts), its lines' part checked once per line
        return shown if self._by_lines and shown <= self.lines_additive else None

    def _build(self, cut: int) -> tuple[str, int]:
        memo = self._memo.get(cut)
        if memo is not None:
            return memo
        shown = self._by_parts(cut)
        parts = self._head_parts(cut)
        if shown is not None:
            parts += self.lines[:shown]
            text, tokens = self._assemble(parts, self._fit_decision(self._head_sizes(cut, shown), shown, parts.__getitem__))
        else:
            parts += self.lines[: bisect_right(self.line_uptos, cut)]
            text, tokens = fit_counted("\n".join(parts), self.counter, self.cap)
        result = (text, self.framing + tokens)  # a one-text message: its framing plus the text
        self._memo[cut] = result
        return result

    def _line_prefix(self, n: int) -> list[int]:
        """Prefix sums (at least ``n + 1`` of them) of the lines' tokens, each with its newline."""
        prefix = self.line_prefix
        while len(prefix) <= n:
            prefix.append(prefix[-1] + self._part_tokens(self.lines[len(prefix) - 1], False))
        return prefix

    def _fit_decision(self, heads: list[int], shown: int, part) -> tuple[int, int, int]:
        """Where :func:`fit_counted` cuts ``"\\n".join(parts)``, the parts being ``len(heads)``
        parts of tokens ``heads`` (:meth:`_part_tokens`) then the first ``shown`` lines, in an
        encoding that counts them by parts (:func:`_line_additive`): ``(k, room, tokens)``, the
        text is the first ``k`` parts whole and the head of part ``k`` (``part(k)``, asked only
        for a head part) within ``room`` tokens (:meth:`_head`), or every part when ``k`` is
        their number; ``tokens`` its count. Its first ``limit`` tokens are whole parts and the
        head of one part, and so is their count; the whole lines are found by a bisection."""
        cap, count = self.cap, len(heads)
        last = count + shown - 1
        total = sum(heads)
        prefix = self.line_prefix
        if shown:
            prefix = self._line_prefix(shown - 1)
            total += prefix[shown - 1] + self._part_tokens(self.lines[shown - 1], True)
        if total <= cap:
            return last + 1, 0, total
        limit = cap
        while True:
            whole, k = 0, 0
            while k < count and whole + heads[k] <= limit:  # the parts wholly within the first limit tokens
                whole += heads[k]
                k += 1
            if k < count:
                text = part(k)
            else:  # the last line is never whole: the text is over the cap
                j = bisect_right(prefix, limit - whole, 0, shown) - 1
                whole += prefix[j]
                k += j
                text = self.lines[j]
            tokens = whole + self._head(text, k == last, limit - whole)[1]
            if tokens <= cap or limit <= 0:
                return k, limit - whole, tokens
            limit -= 1

    def _assemble(self, parts: list[str], decision: tuple[int, int, int]) -> tuple[str, int]:
        """The text and tokens of :meth:`_fit_decision` ``decision`` on ``parts``."""
        k, room, tokens = decision
        if k == len(parts):
            return "\n".join(parts), tokens
        partial = self._head(parts[k], k == len(parts) - 1, room)[0]
        return ("\n".join(parts[:k]) + "\n" if k else "") + partial, tokens

    def _fit_lines(self, parts: list[str]) -> tuple[str, int]:
        """:func:`fit_counted` of ``"\\n".join(parts)`` from each part's own count, where the text
        encodes as the concatenation of its parts' encodings (:func:`_line_additive`)."""
        last = len(parts) - 1
        sizes = [self._part_tokens(p, k == last) for k, p in enumerate(parts)]
        return self._assemble(parts, self._fit_decision(sizes, 0, parts.__getitem__))

    def _title_tokens(self, cut: int, first_turn: int, last_turn: int, last: bool) -> int:
        """``_part_tokens`` of the summary's first part, from the tokens of its pieces (each
        counted once): the pre-tokenizer of an additive encoding (:data:`_LINE_ADDITIVE`) ends a
        piece before a space and a number, after a number and after a ``-`` before a number
        (``test_incremental_summary`` checks it)."""
        head, one, many, dash, end, end_line = self._title_pieces
        known, number = self._numbers.get, self._number_tokens  # (a count of 0 tokens is asked again: the same 0)
        tokens = head + (known(cut) or number(cut))
        if first_turn == last_turn:
            tokens += one + (known(first_turn) or number(first_turn))
        else:
            tokens += many + (known(first_turn) or number(first_turn)) + dash + (known(last_turn) or number(last_turn))
        return tokens + (end if last else end_line)

    @cached_property
    def _title_pieces(self) -> tuple[int, ...]:
        """The tokens of the title's fixed pieces: up to its count, before a single turn, before
        a span of turns, the span's ``-``, and its end (last part, or followed by a newline)."""
        piece = self._piece_tokens
        return (piece(_TITLE) + piece(" "), piece(" earlier messages, turn") + piece(" "),
                piece(" earlier messages, turns") + piece(" "), piece("-"), piece(")"), piece(")\n"))

    def _tally_tokens(self, ranked: list[tuple[str, int]], last: bool) -> int:
        """``_part_tokens`` of the tool tally, from the tokens of its pieces: an additive
        encoding's pre-tokenizer ends a piece at a comma (or colon) followed by a space, before
        and after each count, whatever the tool's name holds."""
        return self._tally_frame(len(ranked), last) + sum(self._tool_tokens(name, n) for name, n in ranked)

    def _tally_frame(self, tools: int, last: bool) -> int:
        """The tokens of a tally of ``tools`` tools but its tools' own pieces (:meth:`_tool_tokens`)."""
        head, comma, end, end_line = self._tally_pieces
        return head + comma * (tools - 1) + (end if last else end_line)

    @cached_property
    def _tally_pieces(self) -> tuple[int, ...]:
        piece = self._piece_tokens
        return piece(_TALLY), piece(","), piece("."), piece(".\n")

    def _tool_tokens(self, name: str, n: int) -> int:
        """The tokens of one tool's pieces in the tally: `` name x`` and its count."""
        return self._piece_tokens(f" {name} x") + self._number_tokens(n)

    def _number_tokens(self, n: int) -> int:
        """The tokens of ``n``'s digits: pieces of at most three, from the left."""
        size = self._numbers.get(n)
        if size is None:  # (a new count at most compactions of a replay: the pieces read inline)
            digits, counted, size = str(n), self._pieces, 0
            for k in range(0, len(digits), 3):  # (a loop: a generator costs more, once per count)
                piece = digits[k : k + 3]
                tokens = counted.get(piece)
                size += self._piece_tokens(piece) if tokens is None else tokens
            self._numbers[n] = size
        return size

    def _piece_tokens(self, piece: str) -> int:
        counted = self._pieces
        size = counted.get(piece)
        if size is None:
            size = counted[piece] = self.counter.count(piece)
        return size

    def _part_tokens(self, part: str, last: bool) -> int:
        """The tokens of ``part`` followed by its newline (the last part: without)."""
        counted = self._counted[last]
        size = counted.get(part)
        if size is None:
            size = counted[part] = self.counter.count(part if last else part + "\n")
        return size

    def _head(self, part: str, last: bool, limit: int) -> tuple[str, int]:
        """The head of ``part``'s piece (with its newline unless last) within ``limit`` tokens,
        and the tokens of that head."""
        key = (part, last, limit)
        found = self._heads.get(key)
        if found is None:
            partial = self.counter.head(part if last else part + "\n", limit)
            found = self._heads[key] = (partial, self.counter.count(partial))
        return found

    def text(self, cut: int) -> str:
        return self._build(cut)[0]

    def tokens(self, cut: int) -> int:
        """The summary message's tokens: :meth:`text`'s, its text built only where the summary
        cannot be counted by parts (and read from it where it was built: a compaction's summary)."""
        counted = self._counts.get(cut)
        if counted is not None:
            return counted
        built = self._memo.get(cut)
        if built is not None:
            return built[1]
        shown = self._by_parts(cut)
        if shown is None:
            counted = self._build(cut)[1]
        else:
            heads = self._head_sizes(cut, shown)
            # where the cap cuts a line, the count follows from the heads' sizes and the lines shown
            key = (*heads, shown)
            fitted = self._fitted.get(key)
            if fitted is None:
                k, _, fitted = self._fit_decision(heads, shown, lambda k: self._head_parts(cut)[k])
                if k >= len(heads):
                    self._fitted[key] = fitted
            counted = self.framing + fitted
        self._counts[cut] = counted
        return counted


#: Encodings whose pre-tokenizer ends a piece at a newline that follows a non-space character and
#: comes before ``-`` or a letter (their patterns: a newline is matched on its own or after
#: punctuation, never with what follows it, and no rule looks back), so a text joined from such
#: lines by newlines encodes as the concatenation of each line's encoding (with its newline).
_LINE_ADDITIVE = frozenset({"cl100k_base", "o200k_base"})


def _line_additive(counter, parts: list[str]) -> bool:
    """Whether ``"\\n".join(parts)`` encodes as its parts do, each with its newline: a tiktoken
    encoding of :data:`_LINE_ADDITIVE`, every part ending in a non-space character and every
    part after the first starting with ``-`` or ``T`` (the summary's lines and tool tally)."""
    return _additive_encoding(counter) and _additive_parts(parts)


def _additive_encoding(counter) -> bool:
    return isinstance(counter, TiktokenCounter) and counter.name in _LINE_ADDITIVE


def _additive_parts(parts: list[str]) -> bool:
    if not parts:
        return True
    return bool(parts[0]) and not parts[0][-1].isspace() and all(map(_additive_line, parts[1:]))


def _additive_line(part: str) -> bool:
    """A part after the first as :func:`_line_additive` needs it: starting with ``-`` or ``T``,
    ending in a non-space character."""
    return bool(part) and part[0] in "-T" and not part[-1].isspace()


def fit(text: str, counter, cap: int) -> str:
    """``text`` cut to at most ``cap`` tokens (re-checked: a cut can re-tokenize differently)."""
    return fit_counted(text, counter, cap)[0]


def fit_counted(text: str, counter, cap: int) -> tuple[str, int]:
    """``(fit(text), its tokens)``. With tiktoken, whose ``head`` keeps the whole text exactly
    when its count is within ``cap``, a text over the cap is encoded once, not twice."""
    if isinstance(counter, TiktokenCounter):
        cut = counter.head(text, cap)
        if cut == text:
            return text, counter.count(text)
    else:
        tokens = counter.count(text)
        if tokens <= cap:
            return text, tokens
        cut = counter.head(text, cap)
    limit = cap
    while True:
        tokens = counter.count(cut)
        if tokens <= cap or limit <= 0:
            return cut, tokens
        limit -= 1
        cut = counter.head(text, limit)
