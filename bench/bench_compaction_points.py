"""Where the agent presets fire on real transcripts that record the agent's own compactions.

    .venv/bin/python bench/bench_compaction_points.py FILE...

For each file: the calls a compaction recorded in the file comes just before, and the calls
before which the stateful replay (inspector/analysis/compaction.py) fires the agent's preset
(Claude Code files: claude-code and claude-code-32k-output; Codex: codex, at the limit its
source gives, 90 % of the catalog window 272,000 = 244,800), each with the parameters it gives the
version the file records, as the commands apply it. At the end, for Claude Code files whose
first compaction is automatic: in how many the fitted claude-code preset fired within one call
of it. For a Codex rollout it also prints, at each
recorded compaction, Codex's own count as far as the file shows it
(inspector/analysis/codex_count.py: the last call's total_tokens, the items after the last
model item at 4 bytes a token, earlier encrypted reasoning where not redacted) and how far that
is below the limit: the rest is Codex's estimate of the encrypted reasoning items the public
rollouts redact. The files are not part of the repository (see
/work/extra_sessions/PROVENANCE.md).
"""

from __future__ import annotations

import json
import sys

import inspector
from inspector.analysis.window import for_session_version
from inspector.presets import resolve
from inspector.tokens import resolve_or_fallback

def automatic_flags(path: str) -> list[bool]:
    """Whether each compact_boundary of the main conversation, in file order, says it was automatic."""
    flags = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if '"compact_boundary"' not in line:
                continue
            entry = json.loads(line)
            if entry.get("subtype") == "compact_boundary" and not entry.get("isSidechain"):
                meta = entry.get("compactMetadata") or entry.get("compact_metadata") or {}
                flags.append(meta.get("trigger") == "auto")
    return flags


def main(paths: list[str]) -> None:
    first_auto: list[tuple[str, str | None, int, int | None]] = []  # (file, version, recorded call, fired call)
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
            # as the commands apply a preset: with the parameters of the version the file records
            settings = for_session_version(settings, session, set(), name)
            fired = [c.call for c in inspector.replay(a, names, settings=settings).calls if c.compacted_by]
            print(f"{name_only}\t{name}\trecorded before calls {recorded}\tfired before {fired}\t({len(calls)} calls, "
                  f"{session.agent} {session.agent_version}, reserved_output {settings.reserved_output:,}, {a.table.encoding})")
            if name == "claude-code" and recorded and automatic_flags(path)[:1] == [True]:
                first_auto.append((name_only, session.agent_version, recorded[0], fired[0] if fired else None))
            if name == "codex":
                from inspector.analysis.codex_count import codex_count
                from inspector.strategies.compact import trigger_tokens

                limit = trigger_tokens(settings)
                for r in recorded:
                    shown = codex_count(a.view, calls[r - 2], calls[r - 1])
                    before = codex_count(a.view, calls[r - 3], calls[r - 2])
                    print(f"\t  compaction before call {r}: Codex's count as the file shows it {shown:,} (a call earlier {before:,}); "
                          f"limit {limit:,}; unseen part >= {limit - shown:,}")
    if first_auto:
        near = [f for f in first_auto if f[3] is not None and abs(f[3] - f[2]) <= 1]
        print(f"\nclaude-code, the first automatic compaction of each Claude Code file: fired within 1 call of it in "
              f"{len(near)} of {len(first_auto)} files")
        for name, version, rec, fired in first_auto:
            if (name, version, rec, fired) not in near:
                print(f"  missed: {name} ({version}): recorded before call {rec}, fired before {fired}")


if __name__ == "__main__":
    main(sys.argv[1:])
