#!/usr/bin/env python3
"""Large and hostile inputs (issue 11, class 4): wall time and peak RSS of each command beside
its target (<= 10 s and <= 1 GB each).

Generates, deterministically (seed 1), into a temporary directory (or ``--dir``):

- ``bigline.jsonl``: an OpenAI-chat JSONL whose second line is one ~50 MB assistant message;
- ``bigline_claude.jsonl``: a Claude Code transcript whose tool result line is ~50 MB;
- ``many.jsonl``: 600,001 short lines (a system prompt, then user/assistant pairs);
- ``parallel.jsonl``: one turn, one assistant message with 20,000 parallel tool calls, then the
  20,000 tool messages (the shape that made ``plan`` quadratic in the validator: 93 s);
- ``steps.jsonl``: one turn of 20,000 sequential call/result exchanges.

Each command runs in its own process (``python -m inspector ...``, stdout to /dev/null) with an
empty token-count cache of its own (a first open: nothing counted by an earlier run); peak RSS is
that child's ``ru_maxrss``. Every input goes through ``info``, ``plan``, ``replay`` and ``export``
(the ``info`` and ``plan`` tables and ``--json``). Prints one row per command: seconds, MB, and
whether both targets hold; CPU seconds (the command's and its workers'), and both against a
floor measured in the same run (orjson's parse of the input, its own process). Usage: python bench/bench_hostile.py [--dir DIR] [--only NAME,...] [--scale 1.0]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

TARGET_S = 10.0
TARGET_MB = 1024.0
WORDS = "the of and to in is that for it as with was on be by this are file error test".split()


def _words(r: random.Random, chars: int) -> str:
    return " ".join(r.choice(WORDS) for _ in range(chars // 4))[:chars]


def gen_bigline(path: Path, scale: float) -> None:
    r = random.Random(1)
    with open(path, "w") as f:
        f.write(json.dumps({"role": "user", "content": "summarise the log"}) + "\n")
        f.write(json.dumps({"role": "assistant", "content": _words(r, int(50_000_000 * scale))}) + "\n")


def gen_bigline_claude(path: Path, scale: float) -> None:
    r = random.Random(1)
    base = {"sessionId": "s1", "cwd": "/w", "version": "2.0.76", "timestamp": "2026-01-01T00:00:00Z"}
    lines = [
        {**base, "type": "user", "uuid": "u1", "parentUuid": None, "message": {"role": "user", "content": "read the log"}},
        {**base, "type": "assistant", "uuid": "a1", "parentUuid": "u1", "message": {"id": "m1", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [{"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/w/log"}}],
            "usage": {"input_tokens": 10, "output_tokens": 5}}},
        {**base, "type": "user", "uuid": "u2", "parentUuid": "a1", "message": {"role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "t1", "content": _words(r, int(50_000_000 * scale))}]}},
    ]
    with open(path, "w") as f:
        f.writelines(json.dumps(x) + "\n" for x in lines)


def gen_many(path: Path, scale: float) -> None:
    r = random.Random(1)
    pairs = int(300_000 * scale)
    with open(path, "w") as f:
        f.write(json.dumps({"role": "system", "content": "You are helpful."}) + "\n")
        for i in range(pairs):
            f.write(json.dumps({"role": "user", "content": f"question {i} " + _words(r, 40)}) + "\n")
            f.write(json.dumps({"role": "assistant", "content": f"answer {i} " + _words(r, 40)}) + "\n")


def _call(i: int) -> dict:
    return {"id": f"c{i}", "type": "function", "function": {"name": "bash", "arguments": json.dumps({"cmd": f"ls {i}"})}}


def gen_parallel(path: Path, scale: float) -> None:
    n = int(20_000 * scale)
    with open(path, "w") as f:
        f.write(json.dumps({"role": "system", "content": "You are helpful."}) + "\n")
        f.write(json.dumps({"role": "user", "content": "do many things"}) + "\n")
        f.write(json.dumps({"role": "assistant", "content": None, "tool_calls": [_call(i) for i in range(n)]}) + "\n")
        for i in range(n):
            f.write(json.dumps({"role": "tool", "tool_call_id": f"c{i}", "content": f"file{i}.txt " * 5}) + "\n")
        f.write(json.dumps({"role": "assistant", "content": "done"}) + "\n")


def gen_steps(path: Path, scale: float) -> None:
    n = int(20_000 * scale)
    with open(path, "w") as f:
        f.write(json.dumps({"role": "system", "content": "You are helpful."}) + "\n")
        f.write(json.dumps({"role": "user", "content": "do many things"}) + "\n")
        for i in range(n):
            f.write(json.dumps({"role": "assistant", "content": None, "tool_calls": [_call(i)]}) + "\n")
            f.write(json.dumps({"role": "tool", "tool_call_id": f"c{i}", "content": f"file{i}.txt " * 5}) + "\n")
        f.write(json.dumps({"role": "assistant", "content": "done"}) + "\n")


FILES = {
    "bigline.jsonl": gen_bigline,
    "bigline_claude.jsonl": gen_bigline_claude,
    "many.jsonl": gen_many,
    "parallel.jsonl": gen_parallel,
    "steps.jsonl": gen_steps,
}
PLAN = ["--strategy", "tool_pruning,fifo", "--budget", "8000"]
INPUTS = [
    ("bigline", "bigline.jsonl"),
    ("bigline (Claude Code)", "bigline_claude.jsonl"),
    ("600k lines", "many.jsonl"),
    ("20k parallel calls", "parallel.jsonl"),
    ("20k steps", "steps.jsonl"),
]
COMMANDS = [
    ("info", ["info"]),
    ("info --json", ["info", "--json"]),
    ("plan", ["plan", *PLAN]),
    ("plan --json", ["plan", *PLAN, "--json"]),
    ("replay", ["replay", *PLAN]),
    ("replay --json", ["replay", *PLAN, "--json"]),
    ("export", ["export", *PLAN, "--to", "openai", "--allow-invalid", "-o", "{out}"]),
]
RUNS = [(f"{command} {label}", name, args) for label, name in INPUTS for command, args in COMMANDS]


def _floor(path: Path) -> tuple[float, float]:
    """Seconds and CPU seconds of a process that reads ``path`` and parses each line with orjson
    (what any reader of the file must do at least): the run's floor, measured beside it, so a
    loaded machine's figures still compare."""
    probe = (
        "import resource,sys,time;s=time.perf_counter();import orjson;"
        "f=open(sys.argv[1],'rb');n=sum(1 for line in f if orjson.loads(line) is not None);"
        "u=resource.getrusage(resource.RUSAGE_SELF);print(time.perf_counter()-s, u.ru_utime+u.ru_stime)"
    )
    out = subprocess.run([sys.executable, "-c", probe, str(path)], capture_output=True, text=True, check=True).stdout
    seconds, cpu = out.split()
    return float(seconds), float(cpu)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", help="where to write the generated inputs (default: a temporary directory)")
    ap.add_argument("--only", help="comma-separated labels (substring match) to run")
    ap.add_argument("--scale", type=float, default=1.0, help="shrink or grow every input (1.0 = the issue's sizes)")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds before a run is killed (shown as TIMEOUT)")
    a = ap.parse_args()
    directory = Path(a.dir or tempfile.mkdtemp(prefix="bench-hostile-"))
    directory.mkdir(parents=True, exist_ok=True)
    runs = [r for r in RUNS if not a.only or any(o in r[0] for o in a.only.split(","))]
    for name in sorted({r[1] for r in runs}):
        path = directory / name
        if not path.exists():
            FILES[name](path, a.scale)
    width = max(len(r[0]) for r in runs) if runs else 10
    floors = {name: _floor(directory / name) for name in sorted({r[1] for r in runs})}
    print(f"load average {os.getloadavg()[0]:.2f}; floor: a process that parses every line of the input with orjson")
    for name, (seconds, cpu) in floors.items():
        print(f"  floor {name}: {seconds:.2f} s, CPU {cpu:.2f} s")
    print(f"{'command':<{width}} {'seconds':>8} {'peak MB':>8} {'CPU s':>7} {'x floor':>8} {'CPU x':>6}   target <= {TARGET_S:g} s and <= {TARGET_MB:g} MB")
    # ru_maxrss of RUSAGE_CHILDREN is a running maximum: each run gets its own measuring process.
    for label, name, cmd in runs:
        probe = (
            "import resource,subprocess,sys,time;"
            "s=time.perf_counter();"
            "c=subprocess.run([sys.executable,'-m','inspector',*sys.argv[1:]],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL).returncode;"
            "u=resource.getrusage(resource.RUSAGE_CHILDREN);"
            "print(time.perf_counter()-s, u.ru_maxrss/1024, c, u.ru_utime+u.ru_stime)"
        )
        scratch = Path(tempfile.mkdtemp(prefix="bench-hostile-run-"))  # the run's cache and export
        args = [str(scratch / "export.json") if c == "{out}" else c for c in cmd[1:]]
        env = {**os.environ, "CONTEXT_INSPECTOR_CACHE_DIR": str(scratch / "cache")}
        # its own process group: a run past the timeout is killed with the command it measures
        proc = subprocess.Popen([sys.executable, "-c", probe, cmd[0], str(directory / name), *args],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env,
                                start_new_session=True)
        try:
            out, _ = proc.communicate(timeout=a.timeout)
            seconds, mb, code, cpu = out.split()
            seconds_f, mb_f, cpu_f = float(seconds), float(mb), float(cpu)
            floor_s, floor_cpu = floors[name]
            ok = "ok" if seconds_f <= TARGET_S and mb_f <= TARGET_MB and code == "0" else f"MISSED (exit {code})" if code != "0" else "MISSED"
            print(f"{label:<{width}} {seconds_f:>8.1f} {mb_f:>8.0f} {cpu_f:>7.1f} {seconds_f / floor_s:>7.1f}x "
                  f"{cpu_f / floor_cpu:>5.1f}x   {ok}", flush=True)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            print(f"{label:<{width}} {'TIMEOUT':>8} {'-':>8}   MISSED (over {a.timeout:g} s)", flush=True)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    print(f"inputs in {directory}")


if __name__ == "__main__":
    main()
