"""Make a small test copy of a real transcript that records automatic compactions.

    .venv/bin/python bench/trim_compaction_fixture.py SOURCE TARGET [--keep LINES]

Every record keeps its structure (ids, parent links, usage figures, record types); only the
strings longer than 100 characters are cut to their first 40 characters plus a note of how
many were cut, except in the ``--keep`` lines (default 12) before each ``compact_boundary``
(Claude Code) or ``compacted`` (Codex) record and the 2 after it; the records more than
``--tail`` lines (default 30) after the last automatic compaction are left out. The trigger of a compaction
preset reads the input the file recorded for the previous call plus the messages added since,
which all lie in those lines, so the copy fires where the original does (the test
tests/test_compaction.py checks that on the copies; bench/bench_compaction_points.py on
the originals). Used once to make tests/fixtures/real/compactions/ (PROVENANCE.md there).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

LIMIT, HEAD = 100, 40


def _shorten(value):
    if isinstance(value, str) and len(value) > LIMIT:
        return f"{value[:HEAD]}…[{len(value) - HEAD} characters trimmed]"
    if isinstance(value, list):
        return [_shorten(v) for v in value]
    if isinstance(value, dict):
        return {k: _shorten(v) for k, v in value.items()}
    return value


def _is_boundary(record: dict) -> bool:
    return record.get("subtype") == "compact_boundary" or record.get("type") == "compacted"


def _is_auto(record: dict) -> bool:
    return record.get("type") == "compacted" or (record.get("compactMetadata") or {}).get("trigger") == "auto"


def trim(source: Path, target: Path, keep: int, tail: int) -> None:
    lines = source.read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    last_auto = max(n for n, r in enumerate(records) if _is_boundary(r) and _is_auto(r))
    lines, records = lines[: last_auto + tail + 1], records[: last_auto + tail + 1]
    kept: set[int] = set()
    for n, record in enumerate(records):
        if _is_boundary(record):
            kept.update(range(max(0, n - keep), min(len(records), n + 3)))
    out = [line if n in kept else json.dumps(_shorten(r), ensure_ascii=False, separators=(",", ":")) for n, (line, r) in enumerate(zip(lines, records))]
    target.write_text("\n".join(out) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path)
    parser.add_argument("target", type=Path)
    parser.add_argument("--keep", type=int, default=12)
    parser.add_argument("--tail", type=int, default=30)
    args = parser.parse_args()
    trim(args.source, args.target, args.keep, args.tail)


if __name__ == "__main__":
    main()
