"""What new messages cost, counted vs recorded: the per-message counting measured on real sessions.

For every real Claude Code and Codex session (../shared/real_sessions and, when present,
../extra_sessions), per tokenizer candidate: the change of ``baseline_tokens`` between consecutive
model calls against the change of the recorded input, where the recorded change is >= 500 tokens
and no compaction lies between the two calls. Prints per-session and overall median and p90 of
|Δbaseline − Δrecorded| / Δrecorded beside the targets of issue 10.

The readers give each call its model, its re-sent reasoning tokens and the usage that measures
it (Codex 0.40 and 0.58 write ``token_count`` before the response, later versions after it).

Also prints the Claude scale (sum ctok / sum o200k over every content block of the Claude Code
sessions, when ctok is installed) and the counters' speed.

    .venv/bin/python bench/bench_baseline.py [--no-ctok] [FILES...]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import inspector
from inspector.analysis.baseline import baseline_tokens, visible_input
from inspector.model import Session, TextBlock, ToolCallBlock, ToolResultBlock
from inspector.tokens import get_counter, tokenizer_for

ROOTS = [Path("/work/shared/real_sessions"), Path("/work/extra_sessions")]
TARGETS = {"claude_code": (0.12, 0.35), "codex": (0.05, 0.15)}
CANDIDATES = {
    "claude_code": ["model", "claude", "claude_4_7", "ctok_v3", "o200k_base", "cl100k_base", "approx"],
    "codex": ["model", "o200k_base", "cl100k_base", "approx"],
}
MIN_DELTA = 500


def session_files(paths: list[str]) -> list[Path]:
    if paths:
        return [Path(p) for p in paths]
    out = []
    for root in ROOTS:
        for sub in ("claude_code", "codex"):
            if (root / sub).is_dir():
                out.extend(sorted((root / sub).rglob("*.jsonl")))
    return out


def deltas(analysis, with_reasoning: bool = True) -> list[float]:
    view, table = analysis.view, analysis.table
    base = baseline_tokens(view, table) if with_reasoning else visible_input(view, table)
    errs = []
    for k in range(1, len(view.calls)):
        a, b = view.calls[k - 1], view.calls[k]
        ua, ub = view.messages[a.message_index].usage, view.messages[b.message_index].usage
        if ua is None or ub is None or ua.context_tokens is None or ub.context_tokens is None:
            continue
        if a.context_start != b.context_start:
            continue
        dr = ub.context_tokens - ua.context_tokens
        if dr < MIN_DELTA:
            continue
        errs.append(abs((base[k] - base[k - 1]) - dr) / dr)
    return errs


def p90(xs: list[float]) -> float:
    return sorted(xs)[min(len(xs) - 1, int(0.9 * len(xs)))] if xs else float("nan")


def fmt(xs: list[float]) -> str:
    if not xs:
        return "      —        "
    return f"{statistics.median(xs):6.1%} / {p90(xs):6.1%}"


def content_texts(session: Session) -> list[str]:
    out = []
    for m in session.messages:
        for b in m.content:
            if isinstance(b, TextBlock):
                out.append(b.text)
            elif isinstance(b, ToolCallBlock):
                out.append(b.arguments)
            elif isinstance(b, ToolResultBlock):
                out.append(b.text)
    return [t for t in out if t]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*")
    ap.add_argument("--no-ctok", action="store_true", help="skip ctok_v3 (about 30x slower than tiktoken)")
    args = ap.parse_args()
    try:
        get_counter("ctok_v3")
        have_ctok = not args.no_ctok
    except Exception:
        have_ctok = False
    overall: dict[tuple[str, str], list[float]] = {}
    texts: dict[str, list[str]] = {"claude_code": [], "codex": []}
    print(f"Δbaseline vs Δrecorded input, consecutive calls with Δrecorded >= {MIN_DELTA}: median / p90 of relative error\n")
    for path in session_files(args.files):
        try:
            session = inspector.load(path)
        except Exception as exc:  # a file the readers reject is reported, not fatal
            print(f"{path.name}: not read ({exc})")
            continue
        if session.format not in CANDIDATES:
            continue
        profile = "anthropic" if session.format == "claude_code" else "openai"
        texts[session.format].extend(content_texts(session))
        row = []
        for cand in CANDIDATES[session.format]:
            if cand == "ctok_v3" and not have_ctok:
                continue
            encoding = None if cand == "model" else cand
            a = inspector.analyze(session, encoding, profile)
            errs = deltas(a)
            name = f"model ({a.table.encoding})" if cand == "model" else cand
            overall.setdefault((session.format, cand), []).extend(errs)
            row.append(f"{name}: {fmt(errs)} (n={len(errs)})")
            if cand == "model" and session.format == "codex":
                plain = deltas(a, with_reasoning=False)
                overall.setdefault((session.format, "model, no re-sent reasoning"), []).extend(plain)
                row.append(f"no re-sent reasoning: {fmt(plain)}")
        print(f"{path.name} [{session.format}, {session.model}]")
        for r in row:
            print(f"    {r}")
    print("\nOverall")
    for (fmt_name, cand), errs in overall.items():
        med_t, p90_t = TARGETS[fmt_name]
        ok = errs and statistics.median(errs) <= med_t and p90(errs) <= p90_t
        print(f"  {fmt_name:<12} {cand:<28} {fmt(errs)}  n={len(errs):<4} target {med_t:.0%} / {p90_t:.0%}  {'met' if ok else 'NOT met'}")
    claude = texts["claude_code"]
    if claude and have_ctok:
        import ctok

        o200k = get_counter("o200k_base")
        n_o = sum(o200k.count(t) for t in claude)
        n_v3 = sum(get_counter("ctok_v3").count(t) for t in claude)
        frame = ctok.token_count("a", "4.7") - 1
        n_47 = sum(ctok.token_count(t, "4.7") - frame for t in claude)
        print(f"\nClaude scale on {len(claude)} Claude Code content blocks ({sum(map(len, claude)) / 1e6:.1f} MB):"
              f" ctok v3 / o200k = {n_v3 / n_o:.3f}; ctok 4.7 / o200k = {n_47 / n_o:.3f}")
    sample = "\n".join(claude + texts["codex"])[:4_000_000]
    print(f"\nSpeed on {len(sample.encode()) / 1e6:.1f} MB of session content (one call per block):")
    blocks = sample.split("\n\n")
    for name in ("cl100k_base", "o200k_base", "claude", "approx") + (("ctok_v3",) if have_ctok else ()):
        counter = get_counter(name)
        part = blocks if name != "ctok_v3" else blocks[: len(blocks) // 20]
        size = sum(len(b.encode()) for b in part)
        t = time.perf_counter()
        for b in part:
            counter.count(b)
        dt = time.perf_counter() - t
        print(f"  {name:<12} {size / dt / 1e6:7.2f} MB/s")
    print(f"\nmodel -> tokenizer: {', '.join(f'{m}: {tokenizer_for(m)}' for m in ('gpt-5-codex', 'claude-opus-4-6'))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
