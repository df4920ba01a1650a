"""Where the agent presets fire on real transcripts that record the agent's own compactions.

    .venv/bin/python bench/bench_compaction_points.py FILE...

For each file: the calls a compaction recorded in the file comes just before, and the calls
before which the stateful replay (inspector/analysis/compaction.py) fires the agent's preset
(Claude Code files: claude-code and claude-code-32k-output; Codex: codex with the window the
rollout records, 258,400). The files are not part of the repository (see
/work/extra_sessions/PROVENANCE.md).
"""

from __future__ import annotations

import sys

import inspector
from inspector.presets import resolve
from inspector.tokens import resolve_or_fallback


def main(paths: list[str]) -> None:
    for path in paths:
        session = inspector.load(path)
        profile = "anthropic" if session.format == "claude_code" else "openai"
        resolution, _ = resolve_or_fallback(session.model, None, profile)
        a = inspector.analyze(session, resolution.counter, profile, session.model)
        calls = a.view.calls
        recorded = [c.number for c in calls[1:] if c.context_start != calls[c.number - 2].context_start]
        presets = ("claude-code", "claude-code-32k-output") if session.format == "claude_code" else ("codex",)
        for name in presets:
            overrides = {"context_window": 258_400} if name == "codex" else {}
            _, names, settings = resolve(name, overrides)
            fired = [c.call for c in inspector.replay(a, names, settings=settings).calls if c.compacted_by]
            print(f"{path.rsplit('/', 1)[-1]}\t{name}\trecorded before calls {recorded}\tfired before {fired}\t({len(calls)} calls, {a.table.encoding})")


if __name__ == "__main__":
    main(sys.argv[1:])
