"""Where the agent presets fire on real transcripts that record the agent's own compactions.

    .venv/bin/python bench/bench_compaction_points.py FILE...

For each file: the calls a compaction recorded in the file comes just before, and the calls
before which the stateful replay (inspector/analysis/compaction.py) fires the agent's preset
(Claude Code files: claude-code and claude-code-32k-output; Codex: codex, at the limit its
source gives, 90 % of the catalog window 272,000 = 244,800). For a Codex rollout it also prints,
at each recorded compaction, the part of Codex's own count the file shows (the last call's
total_tokens plus bytes/4 of the items after the last model item, as
context_manager/history.rs get_total_token_usage) and how far that is below the limit: the rest
is Codex's estimate of earlier encrypted reasoning items, which the public rollouts redact. The
files are not part of the repository (see /work/extra_sessions/PROVENANCE.md).
"""

from __future__ import annotations

import json
import sys

import inspector
from inspector.presets import resolve
from inspector.tokens import resolve_or_fallback

_MODEL_ITEMS = {"reasoning", "function_call", "custom_tool_call", "local_shell_call", "web_search_call"}


def codex_counts(path: str) -> list[tuple[int, int, int]]:
    """(line of each ``compacted`` record, last total_tokens, bytes/4 of the items after the last
    model-generated item) in a Codex rollout."""
    out, total, after = [], 0, 0
    with open(path, encoding="utf-8") as handle:
        for n, line in enumerate(handle, 1):
            record = json.loads(line)
            payload = record.get("payload") or {}
            kind = payload.get("type")
            if record.get("type") == "compacted":
                out.append((n, total, after // 4))
            elif record.get("type") == "response_item":
                model = kind in _MODEL_ITEMS or (kind == "message" and payload.get("role") == "assistant")
                after = 0 if model else after + len(json.dumps(payload, separators=(",", ":")))
            elif kind == "token_count" and payload.get("info"):
                total = payload["info"]["last_token_usage"]["total_tokens"]
    return out


def main(paths: list[str]) -> None:
    for path in paths:
        session = inspector.load(path)
        profile = "anthropic" if session.format == "claude_code" else "openai"
        resolution, _ = resolve_or_fallback(session.model, None, profile)
        a = inspector.analyze(session, resolution.counter, profile, session.model)
        calls = a.view.calls
        recorded = [c.number for c in calls[1:] if c.context_start != calls[c.number - 2].context_start]
        presets = ("claude-code", "claude-code-32k-output") if session.format == "claude_code" else ("codex",)
        name_only = path.rsplit("/", 1)[-1]
        for name in presets:
            _, names, settings = resolve(name)
            fired = [c.call for c in inspector.replay(a, names, settings=settings).calls if c.compacted_by]
            print(f"{name_only}\t{name}\trecorded before calls {recorded}\tfired before {fired}\t({len(calls)} calls, {a.table.encoding})")
            if name == "codex":
                from inspector.strategies.compact import trigger_tokens

                limit = trigger_tokens(settings)
                for line, total, after in codex_counts(path):
                    shown = total + after
                    print(f"\t  compacted at line {line}: total_tokens {total:,} + items after {after:,} = {shown:,}; limit {limit:,}; unseen part >= {limit - shown:,}")


if __name__ == "__main__":
    main(sys.argv[1:])
