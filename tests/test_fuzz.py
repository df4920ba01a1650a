"""Fuzz: seeded mutations of every bundled sample and fixture, through info, plan, replay, export.

Each mutant (byte flips, truncation, a deleted line, a deleted or wrongly typed field, an escape
sequence in a string, Latin-1 / UTF-16 / BOM / CR-only re-encodings) sits alone in a fresh
directory and is run through the command line in-process. Whatever the input, the run must end
with exit 0, or exit 2 and one paragraph on stderr naming the file; never a traceback; the input
bytes unchanged; no new file beside the input; no raw control character on stdout or stderr.
Every mutant is seeded (``random.Random(seed)``): a failure names its seed and reproduces.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from inspector.cli.main import main

ROOT = Path(__file__).resolve().parent.parent
FIX = ROOT / "tests" / "fixtures"

#: A raw terminal control character (ESC, BEL, C1, DEL) or a bidi / zero-width character.
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b\u200c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]")

HOSTILE = "\x1b[2J\x1b]0;pwned\x07\u202eevil\u200b\x9b31m"


def _seed_files() -> list[Path]:
    files = sorted((ROOT / "sample_sessions").glob("*.json*"))
    files += sorted((FIX / "formats").iterdir())
    files += sorted(p for p in (FIX / "real").rglob("*") if p.is_file() and p.suffix in (".json", ".jsonl", ".traj") and "strands" not in p.parts)
    files += [FIX / "constructed" / "langchain_cache_ttl" / "messages.json", FIX / "constructed" / "mini_swe_agent_responses" / "responses.traj.json"]
    return files


SEEDS = _seed_files()
STRANDS = sorted((FIX / "real" / "strands").iterdir())
OPENHANDS_V1 = sorted(p for p in (FIX / "constructed" / "openhands_v1").iterdir() if p.is_dir())


# --- mutations ----------------------------------------------------------------------------------


def _walk(value, out):
    if isinstance(value, dict):
        out.append(value)
        for v in value.values():
            _walk(v, out)
    elif isinstance(value, list):
        for v in value:
            _walk(v, out)


WRONG_TYPES = ({"a": 1}, ["x"], 7, None, True, "", HOSTILE)


def _mutate_json(value, rng: random.Random):
    objects: list = []
    _walk(value, objects)
    if not objects:
        return value
    for _ in range(rng.randint(1, 3)):
        obj = rng.choice(objects)
        if not obj:
            continue
        key = rng.choice(sorted(obj))
        op = rng.random()
        if op < 0.35:
            del obj[key]
        elif op < 0.8:
            obj[key] = rng.choice(WRONG_TYPES)
        elif isinstance(obj[key], str):
            obj[key] = obj[key][: rng.randint(0, len(obj[key]))] + HOSTILE
        else:
            obj[HOSTILE] = HOSTILE
    return value


def mutate(data: bytes, rng: random.Random) -> bytes:
    """One seeded mutation of a JSON or JSONL file's bytes."""
    op = rng.choice(("flip", "truncate", "delete_line", "field", "field", "field", "encoding"))
    if op == "flip" and data:
        b = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        return bytes(b)
    if op == "truncate":
        return data[: rng.randrange(len(data) + 1)]
    lines = data.split(b"\n")
    if op == "delete_line" and len(lines) > 1:
        del lines[rng.randrange(len(lines))]
        return b"\n".join(lines)
    if op == "encoding":
        text = data.decode("utf-8")
        how = rng.choice(("latin-1", "utf-16", "utf-32", "bom", "cr"))
        if how == "latin-1":
            return (text + "é").encode("latin-1", "replace")
        if how == "bom":
            return b"\xef\xbb\xbf" + data
        if how == "cr":
            return data.replace(b"\r\n", b"\n").replace(b"\n", b"\r")
        return text.encode(how)
    # a field deleted or given the wrong type: in the document, or in one JSONL line
    try:
        return json.dumps(_mutate_json(json.loads(data), rng)).encode()
    except ValueError:
        pass
    nonblank = [i for i, line in enumerate(lines) if line.strip()]
    if not nonblank:
        return data
    i = rng.choice(nonblank)
    try:
        lines[i] = json.dumps(_mutate_json(json.loads(lines[i]), rng)).encode()
    except ValueError:
        lines[i] = lines[i][: len(lines[i]) // 2]
    return b"\n".join(lines)


# --- the checks -----------------------------------------------------------------------------------


def snapshot(directory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


COMMANDS = (
    ("info",),
    ("plan", "--strategy", "tool_pruning,fifo", "--budget", "1500"),
    ("replay", "--strategy", "sliding_window", "--budget", "1500"),
    ("export", "--strategy", "fifo", "--budget", "1500", "--to", "openai", "-o", "{out}"),
    ("export", "--to", "anthropic", "--allow-invalid", "-o", "{out}"),
)


def check_run(capsys, session: Path, out_dir: Path, label: str) -> None:
    """Every command on ``session``: exit 0 or 2 (one paragraph naming it), no raw controls, the
    session's directory unchanged."""
    before = snapshot(session.parent)
    for cmd in COMMANDS:
        out = out_dir / "export.json"
        argv = [cmd[0], str(session)] + [a.replace("{out}", str(out)) for a in cmd[1:]]
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse: never for these argument lists
            raise AssertionError(f"{label}: {cmd[0]} exited from argparse with {exc.code}") from None
        stdout, stderr = capsys.readouterr()
        assert code in (0, 2), f"{label}: {cmd[0]} exit {code}: {stderr}"
        assert not RAW.search(stdout), f"{label}: {cmd[0]} raw control on stdout: {RAW.search(stdout)!r}"
        assert not RAW.search(stderr), f"{label}: {cmd[0]} raw control on stderr: {stderr!r}"
        if code == 2:
            assert stderr.count("\n") == 1 and stderr.endswith("\n"), f"{label}: {cmd[0]}: not one paragraph: {stderr!r}"
            assert session.name in stderr, f"{label}: {cmd[0]}: the error does not name the file: {stderr!r}"
        elif cmd[0] == "export":
            assert out.is_file()
            out.unlink()
    assert snapshot(session.parent) == before, f"{label}: the session's directory changed"


# --- the suites -----------------------------------------------------------------------------------

MUTANTS_PER_FILE = 10


@pytest.mark.parametrize("seed_file", SEEDS, ids=lambda p: p.name[:40])
def test_mutants_of_every_file_fail_cleanly(capsys, tmp_path, seed_file):
    data = seed_file.read_bytes()
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    for n in range(MUTANTS_PER_FILE):
        seed = f"{seed_file.name}:{n}"
        rng = random.Random(seed)
        case = tmp_path / f"case{n}"
        case.mkdir()
        session = case / seed_file.name
        session.write_bytes(mutate(data, rng))
        check_run(capsys, session, out_dir, f"seed {seed!r}")


#: Sessions that are directories: (directory, mutants, files damaged per mutant).
DIRECTORY_SESSIONS = [(d, 4, 2) for d in STRANDS] + [(d, 6, 3) for d in OPENHANDS_V1]


@pytest.mark.parametrize("session_dir, mutants, victims", DIRECTORY_SESSIONS, ids=lambda p: p.name[:16] if isinstance(p, Path) else str(p))
def test_mutants_of_session_directories_fail_cleanly(capsys, tmp_path, session_dir, mutants, victims):
    """Strands message files and OpenHands V1 event files (and their agent.json / base_state.json)."""
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    for n in range(mutants):
        seed = f"{session_dir.name}:{n}"
        rng = random.Random(seed)
        case = tmp_path / f"case{n}"
        shutil.copytree(session_dir, case / session_dir.name)
        files = sorted((case / session_dir.name).rglob("*.json"))
        for victim in rng.sample(files, victims):
            victim.write_bytes(mutate(victim.read_bytes(), rng))
        # the checks look at the session's parent: the case directory holds only the session
        check_run(capsys, case / session_dir.name, out_dir, f"seed {seed!r}")


def _database(path: Path) -> Path:
    con = sqlite3.connect(path)
    con.executescript((FIX / "real" / "agents_sqlite" / "conversations.sql").read_text())
    con.commit()
    con.close()
    return path


def test_mutants_of_the_agents_sdk_database_fail_cleanly(capsys, tmp_path):
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    for n in range(8):
        rng = random.Random(f"sqlite:{n}")
        case = tmp_path / f"case{n}"
        case.mkdir()
        db = _database(case / "agents.db")
        con = sqlite3.connect(db)
        rows = con.execute("SELECT id, message_data FROM agent_messages").fetchall()
        for row_id, data in rng.sample(rows, 3):
            if rng.random() < 0.3:  # text that is not UTF-8
                con.execute("UPDATE agent_messages SET message_data = CAST(? AS TEXT) WHERE id = ?", (b'{"role": "user", "content": "caf\xe9"}', row_id))
            else:
                con.execute("UPDATE agent_messages SET message_data = ? WHERE id = ?", (mutate(data.encode(), rng).decode("utf-8", "replace"), row_id))
        con.commit()
        con.close()
        if n % 4 == 3:  # and plain byte damage
            raw = bytearray(db.read_bytes())
            for _ in range(4):
                raw[rng.randrange(100, len(raw))] = rng.randrange(256)
            db.write_bytes(bytes(raw))
        check_run(capsys, db, out_dir, f"sqlite seed {n}")


def test_a_mutant_through_the_real_entry_point_exits_2_with_one_paragraph(tmp_path):
    """The installed command in a subprocess: the real exit path (stderr, exit status)."""
    session = tmp_path / "broken.json"
    session.write_bytes(mutate((FIX / "formats" / "openai_request.json").read_bytes(), random.Random("truncate-me"))[:40])
    proc = subprocess.run([sys.executable, "-m", "inspector", "info", str(session)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.startswith(f"context-inspector info: error: {session}") and proc.stderr.count("\n") == 1
    assert "Traceback" not in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken.json"]
