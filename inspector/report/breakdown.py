"""The window at a glance for the page: the model's window by category, before and after the
pipeline, read from the ``info`` and ``plan`` reports (their figures, grouped; nothing recounted)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..analysis.breakdown import CATEGORY_LABELS, MESSAGE_CATEGORIES, inserted_category, window_categories

#: (key, label) of every category the page draws, in window order (``tool`` rows come per tool).
CATEGORIES = tuple((key, CATEGORY_LABELS[key]) for key in
                   ("system", "not_in_file", "overhead", "user", "assistant", "tool_exchange", "summary"))


@dataclass(frozen=True)
class Category:
    key: str
    label: str
    before: int
    after: int


@dataclass(frozen=True)
class Window:
    tokens: int | None  # the model's window (None: unknown)
    reserved: int
    categories: tuple[Category, ...]
    tools: tuple[Category, ...]  # the tool exchanges' rows by the tool they call or answer

    @property
    def used_before(self) -> int:
        return sum(c.before for c in self.categories)

    @property
    def used_after(self) -> int:
        return sum(c.after for c in self.categories)

    def free(self, used: int) -> int | None:
        return None if self.tokens is None else self.tokens - self.reserved - used


def window_breakdown(info: dict[str, Any], plan: dict[str, Any], tool_of: dict[int, str]) -> Window:
    """The categories of the plan's call: ``before`` from the plan's rows as the call sends them
    (rows a recorded compaction removed before it are in neither),
    ``after`` from the same rows under the pipeline (inserted rows count as their kind), summed by
    :func:`~inspector.analysis.breakdown.window_categories` as the viewer's gauge is. A tool
    exchange's row counts for the first tool its message calls or answers (``tool_of``)."""
    code = {key: k for k, key in enumerate(MESSAGE_CATEGORIES)}
    members: list[list[int]] = [[] for _ in MESSAGE_CATEGORIES]
    tokens: dict[int, int] = {}
    tokens_after: dict[int, int] = {}
    inserted: list[tuple[str, int]] = []
    by_tool: dict[str, list[int]] = {}
    for row in plan["messages"]:
        index = row["index"]
        if row.get("by") == "source":  # compacted away before this call: sent neither before nor after
            continue
        if index is None:
            inserted.append((row["unit"], row["tokens_after"]))
            kind = inserted_category(row["unit"])
        else:
            kind = row["unit"] if row["unit"] in code else "summary"
            members[code[kind]].append(index)
            tokens[index], tokens_after[index] = row["tokens"], row["tokens_after"]
        if kind == "tool_exchange":
            pair = by_tool.setdefault(tool_of.get(index, "?"), [0, 0])
            pair[0] += row["tokens"]
            pair[1] += row["tokens_after"]
    sums = window_categories(members, tokens.__getitem__, tokens_after.__getitem__, inserted)
    before = dict(zip(MESSAGE_CATEGORIES, sums[0]))
    after = dict(zip(MESSAGE_CATEGORIES, sums[1]))
    for key in ("not_in_file", "overhead"):
        before[key] = after[key] = plan[key]
    window = info.get("window") or {}
    tools = tuple(Category(name, name, b, a) for name, (b, a) in sorted(by_tool.items(), key=lambda kv: (-kv[1][0], kv[0])))
    resent = plan.get("resent_reasoning", 0)  # part of not_in_file: named, as plan's text does
    categories = tuple(Category(key, "not in file + re-sent reasoning" if key == "not_in_file" and resent else label,
                                before[key], after[key]) for key, label in CATEGORIES)
    return Window(window.get("tokens"), window.get("reserved") or 0, categories, tools)
