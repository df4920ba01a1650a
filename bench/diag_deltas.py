"""Why a counted delta misses the recorded one: the worst deltas of bench_baseline, with the
messages added between the two calls (role, block kinds, tool names, counted tokens) and
counted vs recorded growth.

    .venv/bin/python bench/diag_deltas.py [--top N] [--min-delta 500] FILES...
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import inspector
from inspector.analysis.baseline import baseline_tokens
sys.path.insert(0, str(Path(__file__).parent))
from bench_baseline import recorded_pairs  # noqa: E402
from inspector.model import ImageBlock, RawBlock, TextBlock, ThinkingBlock, ToolCallBlock, ToolResultBlock


def describe(message, count, names: dict[str, str]) -> str:
    parts = []
    for block, n in zip(message.content, count.blocks):
        if isinstance(block, ToolCallBlock):
            parts.append(f"call {block.name}={n}")
        elif isinstance(block, ToolResultBlock):
            parts.append(f"result {names.get(block.tool_call_id, '?')}={n}")
        elif isinstance(block, TextBlock):
            head = block.text[:40].replace("\n", " ")
            parts.append(f"text={n} {head!r}")
        elif isinstance(block, ThinkingBlock):
            parts.append("thinking")
        elif isinstance(block, ImageBlock):
            parts.append(f"image={n}")
        elif isinstance(block, RawBlock):
            parts.append(f"raw={n}")
    return f"#{message.index} {message.role} L{message.source.line if message.source else '?'}: " + ", ".join(parts)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--top", type=int, default=10)
    ap.add_argument("--min-delta", type=int, default=500)
    args = ap.parse_args()
    for path in args.files:
        session = inspector.load(Path(path))
        a = inspector.analyze(session, None, "anthropic" if session.format == "claude_code" else "openai")
        view, table = a.view, a.table
        names = {b.id: b.name for m in view.messages for b in m.content if isinstance(b, ToolCallBlock)}
        base = baseline_tokens(view, table)
        rows = []
        for j, k, dr in recorded_pairs(view):
            if dr < args.min_delta:
                continue
            db = base[k] - base[j]
            rows.append((abs(db - dr) / dr, k, db, dr, view.calls[j].message_index, view.calls[k].message_index))
        rows.sort(reverse=True)
        print(f"== {Path(path).name} [{table.encoding}] {len(rows)} deltas")
        for err, k, db, dr, ia, ib in rows[: args.top]:
            print(f"  call {k}: counted {db:+} recorded {dr:+} err {err:.1%} (ratio {dr / max(db, 1):.2f})")
            for i in range(ia, ib):
                print("     ", describe(view.messages[i], table.counts[i], names)[:220])
    return 0


if __name__ == "__main__":
    sys.exit(main())
