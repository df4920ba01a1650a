#!/usr/bin/env python3
"""A fresh corpus of broken and hostile inputs, run through the real command line (issue 11's
"done when"), counting what must never happen.

The corpus is new on every run unless ``--seed`` repeats one (the seed is printed): its mutations
are not the test suite's (tests/test_fuzz.py) but another set: lines swapped, duplicated or
cut, every string made hostile, roles and types replaced, usage figures negative, huge or
fractional, nesting thousands deep, NaN and 1e999, duplicate keys, NUL bytes, binary files
(gzip, PNG, random bytes), empty and near-empty documents, file names holding escape codes,
FIFOs, symlinks to /dev/zero, dangling and looping symlinks, directories. Each input sits alone in
its own directory; each command runs in its own process (``python -m inspector``) with a 30 s
limit:

    info, plan (tool_pruning+fifo), replay (a preset), compare, export -o OUT,
    export -o INPUT (must refuse), export -o FIFO (must refuse)

and is checked for: a traceback on stderr; a hang past 30 s; peak memory over 1 GiB; a raw
control, bidi or zero-width character on stdout or stderr; an exit other than 0 or 2, or an exit 2
whose message is not one paragraph naming the file; any file created, changed or removed in the
input's directory; an export target that was a FIFO, or the input, replaced. Prints one line per
failure and a table of counts; exit 1 if any count is not 0.

Usage: python bench/hostile_corpus.py [--seed S] [--inputs N] [--jobs 2] [--keep DIR]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import re
import resource
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b\u200c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
HOSTILE = ("\x1b]8;;http://evil/\x07link\x1b]8;;\x07", "\x1b[2J\x1b[H", "\x1b]0;title\x07", "\u202egnp.exe",
           "\x00nul", "\u200bzw", "\x9b31m", "[bold]markup[/]", "\ud800", "\U000e0041tag")
LIMIT_S = 30.0
LIMIT_MB = 1024.0


def seeds() -> list[Path]:
    files = sorted((ROOT / "sample_sessions").glob("*.json*"))
    fix = ROOT / "tests" / "fixtures"
    files += sorted(p for p in fix.rglob("*") if p.is_file() and p.suffix in (".json", ".jsonl", ".traj")
                    and p.stat().st_size < 3_000_000)
    return files


# --- mutations (not the test suite's) -------------------------------------------------------------


def _strings_hostile(value, rng):
    if isinstance(value, dict):
        return {k: _strings_hostile(v, rng) for k, v in value.items()}
    if isinstance(value, list):
        return [_strings_hostile(v, rng) for v in value]
    if isinstance(value, str) and rng.random() < 0.3:
        return value[: rng.randint(0, 20)] + rng.choice(HOSTILE)
    return value


def _numbers_wild(value, rng):
    if isinstance(value, dict):
        return {k: _numbers_wild(v, rng) for k, v in value.items()}
    if isinstance(value, list):
        return [_numbers_wild(v, rng) for v in value]
    if isinstance(value, int) and not isinstance(value, bool) and rng.random() < 0.5:
        return rng.choice((-1, -10**9, 10**30, 0.5, 2**63, "12", None))
    return value


def _retype(value, rng, keys=("role", "type", "content", "tool_calls", "id", "name", "message", "payload")):
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k in keys and rng.random() < 0.3:
                out[k] = rng.choice(({}, [], 0, "x", None, [[]], {"type": {}}, "tool_result", "function_call"))
            else:
                out[k] = _retype(v, rng)
        return out
    if isinstance(value, list):
        return [_retype(v, rng) for v in value]
    return value


def _json_op(data: bytes, rng: random.Random, op) -> bytes:
    try:
        return json.dumps(op(json.loads(data), rng), ensure_ascii=rng.random() < 0.5).encode("utf-8", "surrogatepass")
    except (ValueError, RecursionError):
        pass
    out = []
    for line in data.split(b"\n"):
        try:
            out.append(json.dumps(op(json.loads(line), rng), ensure_ascii=False).encode("utf-8", "surrogatepass"))
        except (ValueError, RecursionError):
            out.append(line)
    return b"\n".join(out)


def mutate(data: bytes, rng: random.Random) -> bytes:
    op = rng.choice(("swap", "dup", "cut_middle", "hostile", "numbers", "retype", "deep", "nan", "dupkeys",
                     "nul", "crlf_mix", "prefix_garbage"))
    lines = data.split(b"\n")
    if op == "swap" and len(lines) > 2:
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
        return b"\n".join(lines)
    if op == "dup" and lines:
        i = rng.randrange(len(lines))
        return b"\n".join(lines[:i] + [lines[i]] * rng.randint(2, 300) + lines[i:])
    if op == "cut_middle":
        a = rng.randrange(len(data) + 1)
        return data[:a] + data[a + rng.randint(1, 4000):]
    if op == "hostile":
        return _json_op(data, rng, _strings_hostile)
    if op == "numbers":
        return _json_op(data, rng, _numbers_wild)
    if op == "retype":
        return _json_op(data, rng, _retype)
    if op == "deep":
        depth = rng.choice((1_000, 100_000))
        return data.rstrip(b"\n") + b"\n" + b'{"role": "user", "content": ' + b"[" * depth + b"]" * depth + b"}\n"
    if op == "nan":
        return data.replace(b"0", b"NaN", 3).replace(b"1", b"1e999", 2)
    if op == "dupkeys":
        return data.replace(b'"role":', b'"role": "tool", "role":', 5)
    if op == "nul":
        i = rng.randrange(len(data) + 1)
        return data[:i] + b"\0" * rng.randint(1, 64) + data[i:]
    if op == "crlf_mix":
        return b"".join(line + rng.choice((b"\n", b"\r\n", b"\r")) for line in lines)
    return os.urandom(rng.randint(1, 64)) + data


def specials(rng: random.Random) -> list[tuple[str, object]]:
    """Inputs that are not mutations of a file: (file name, bytes or a kind to make)."""
    png = b"\x89PNG\r\n\x1a\n" + bytes(rng.randrange(256) for _ in range(200))
    return [
        ("empty.jsonl", b""), ("blank.json", b"  \n\t\n"), ("null.json", b"null"), ("num.json", b"42"),
        ("arr.json", b"[]"), ("obj.json", b"{}"), ("nested.json", b"[" * 200_000 + b"]" * 200_000),
        ("rand.jsonl", bytes(rng.randrange(256) for _ in range(4096))),
        ("gz.jsonl", gzip.compress(b'{"role": "user", "content": "hi"}\n')), ("img.json", png),
        ("esc\x1b[2Jname\x07.jsonl", b'{"role": "user", "content": "hi"}\n'),
        ("new\nline.jsonl", b'{"role": "user", "content": "hi"}\n'),
        ("bidi\u202etxt.jsonl", b'{"role": "user", "content": "hi"}\n'),
        ("fifo.jsonl", "fifo"), ("zero.jsonl", "devzero"), ("dangling.jsonl", "dangling"),
        ("loop.jsonl", "loop"), ("adir", "dir"), ("emptydir", "emptydir"),
        ("tools.jsonl", json.dumps({"role": "assistant", "content": None, "tool_calls": [
            {"id": HOSTILE[0], "type": "function", "function": {"name": HOSTILE[1] + "bash", "arguments": HOSTILE[3]}}]}).encode()
            + b"\n" + json.dumps({"role": "tool", "tool_call_id": HOSTILE[0], "content": HOSTILE[2]}).encode() + b"\n"),
    ]


def materialise(directory: Path, name: str, what) -> Path:
    path = directory / name
    if isinstance(what, bytes):
        path.write_bytes(what)
    elif what == "fifo":
        os.mkfifo(path)
    elif what == "devzero":
        path.symlink_to("/dev/zero")
    elif what == "dangling":
        path.symlink_to(directory / "nothing-here")
    elif what == "loop":
        path.symlink_to(path)
    elif what == "dir":
        path.mkdir()
        (path / "message_0.json").write_text('{"message": {"role": "user", "content": [{"text": "\\u001b[2J"}]}}')
    elif what == "emptydir":
        path.mkdir()
    return path


# --- running and checking ---------------------------------------------------------------------------


def snapshot(directory: Path) -> dict[str, tuple]:
    out = {}
    for p in sorted(directory.rglob("*")):
        st = os.lstat(p)
        if stat.S_ISREG(st.st_mode):
            out[str(p)] = ("file", p.read_bytes(), st.st_mode)
        else:
            out[str(p)] = (stat.S_IFMT(st.st_mode), os.readlink(p) if p.is_symlink() else None, st.st_mode)
    return out


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))  # a runaway is stopped, not the machine


def run(argv: list[str], cwd: Path) -> tuple[int | None, str, str]:
    """Exit code (None: killed after LIMIT_S), stdout and stderr of one command."""
    proc = subprocess.Popen([sys.executable, "-m", "inspector", *argv], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, preexec_fn=_limits,
                            env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "120", "NO_COLOR": "1"})
    try:
        out, err = proc.communicate(timeout=LIMIT_S)
        code = proc.returncode
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        code = None
    return code, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


def check(case: Path, name: str, out_dir: Path) -> list[tuple[str, str]]:
    """Run every command on one input; the failures as (class, detail)."""
    path = case / name
    fifo_target = out_dir / f"target-{case.name}.fifo"
    os.mkfifo(fifo_target)
    commands = [
        ["info", str(path)],
        ["plan", str(path), "--strategy", "tool_pruning,fifo", "--budget", "2000"],
        ["replay", str(path), "--preset", "claude-code"],
        ["compare", str(path)],
        ["export", str(path), "--to", "openai", "--allow-invalid", "-o", str(out_dir / f"out-{case.name}.json")],
        ["export", str(path), "--to", "anthropic", "--allow-invalid", "-o", str(path)],
        ["export", str(path), "--to", "openai", "--allow-invalid", "-o", str(fifo_target)],
    ]
    failures = []
    before = snapshot(case)
    sys.path.insert(0, str(ROOT))
    from inspector.textsafe import visible_line
    for argv in commands:
        label = f"{case.name}/{name!r} {argv[0]}" + (" -o input" if argv[0] == "export" and argv[-1] == str(path) else "") + (" -o fifo" if argv[-1] == str(fifo_target) else "")
        code, out, err = run(argv, case)
        if code is None:
            failures.append(("hang", label))
            continue
        if "Traceback (most recent call last)" in err:
            failures.append(("traceback", f"{label}: {err.strip().splitlines()[-1][:200]}"))
        if code == -9 or "MemoryError" in err:
            failures.append(("memory", label))
        if code not in (0, 2):
            failures.append(("exit", f"{label}: exit {code}: {err[:200]!r}"))
        if RAW.search(out) or RAW.search(err):
            m = RAW.search(out) or RAW.search(err)
            failures.append(("raw control", f"{label}: {m.group()!r}"))
        if code == 2 and not (err.count("\n") == 1 and err.endswith("\n")):
            failures.append(("error text", f"{label}: not one paragraph: {err[:200]!r}"))
        named = [visible_line(os.path.basename(name))]
        if argv[-1] == str(fifo_target):  # either the broken input or the refused target
            named.append(fifo_target.name)
        if code == 2 and not any(n in err for n in named):
            failures.append(("error text", f"{label}: does not name the file: {err[:200]!r}"))
        if argv[0] == "export" and argv[-1] in (str(path), str(fifo_target)) and code == 0:
            failures.append(("export replaced", label))
    if not stat.S_ISFIFO(os.lstat(fifo_target).st_mode):
        failures.append(("export replaced", f"{case.name}: the FIFO target is no longer a FIFO"))
    fifo_target.unlink()
    if snapshot(case) != before:
        failures.append(("files changed", f"{case.name}/{name!r}: the input's directory changed"))
    return failures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--inputs", type=int, default=120, help="mutated files (the special inputs come on top)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--keep", type=Path, default=None, help="build the corpus here and keep it")
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else int(time.time())
    rng = random.Random(seed)
    print(f"seed {seed} (repeat with --seed {seed})")
    base = args.keep or Path(tempfile.mkdtemp(prefix="hostile-corpus-"))
    base.mkdir(parents=True, exist_ok=True)
    out_dir = base / "_out"
    out_dir.mkdir(exist_ok=True)
    cases = []
    files = seeds()
    for k in range(args.inputs):
        src = rng.choice(files)
        data = mutate(src.read_bytes(), rng)
        case = base / f"m{k:04d}"
        case.mkdir()
        materialise(case, src.name, data)
        cases.append((case, src.name))
    for k, (name, what) in enumerate(specials(rng)):
        case = base / f"s{k:04d}"
        case.mkdir()
        materialise(case, name, what)
        cases.append((case, name))
    print(f"{len(cases)} inputs x 7 commands in {base}")
    start = time.perf_counter()
    with ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda c: check(c[0], c[1], out_dir), cases))
    classes = ("traceback", "hang", "memory", "raw control", "exit", "error text", "files changed", "export replaced")
    counts = dict.fromkeys(classes, 0)
    for failures in results:
        for cls, detail in failures:
            counts[cls] += 1
            print(f"FAIL {cls}: {detail}")
    print(f"{len(cases) * 7} runs in {time.perf_counter() - start:.0f} s")
    for cls in classes:
        print(f"  {cls:16} {counts[cls]}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"  peak child RSS   {peak:.0f} MB (limit {LIMIT_MB:.0f})")
    if peak > LIMIT_MB:
        counts["memory"] += 1
    if not args.keep:
        shutil.rmtree(base, ignore_errors=True)
    sys.exit(1 if any(counts.values()) else 0)


if __name__ == "__main__":
    main()
