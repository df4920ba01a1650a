"""The linear-time table the CLI prints above LONG rows (issue 11: a 40,000-row plan took 44 s)."""

from __future__ import annotations

import io

from rich.text import Text

from inspector.cli.longtable import LONG, Column, print_long_table
from inspector.cli.safeconsole import SafeConsole


def _print(rows, width=60):
    buf = io.StringIO()
    out = SafeConsole(width=width, file=buf, highlight=False, color_system=None)
    cols = [Column("#", right=True), Column("status", footer=Text("total")), Column("reason")]
    print_long_table(out, cols, rows)
    return buf.getvalue().splitlines()


def test_columns_align_and_the_last_folds_to_the_width():
    rows = [[Text(str(i)), Text("kept" if i % 2 else "dropped"), Text("why " * (3 if i < 2 else 20))]
            for i in range(3)]
    lines = _print(rows)
    assert lines[0] == " #  status   reason"
    assert lines[2] == " 0  dropped  why why why "
    assert lines[3] == " 1  kept     why why why "
    # row 2's reason is 80 characters; 60 - 13 used - 1 leaves 46 per line, continued under the column
    assert lines[4] == " 2  dropped  " + "why " * 11
    assert lines[5] == "             " + "why " * 9
    assert all(len(line) <= 60 for line in lines)
    assert lines[-1].rstrip() == "    total"


def test_session_strings_stay_inert():
    lines = _print([[Text("1"), Text("kept"), Text("\x1b[2Jclear \u202eevil")]])
    text = "\n".join(lines)
    assert "\x1b" not in text and "\u202e" not in text


def test_plan_all_uses_it_above_long_rows(capsys, tmp_path):
    import json

    from cli_helpers import run

    session = tmp_path / "long.jsonl"
    lines = [{"role": "system", "content": "be brief"}]
    for i in range(LONG // 2 + 1):
        lines += [{"role": "user", "content": f"question {i}"}, {"role": "assistant", "content": f"answer {i}"}]
    session.write_text("".join(json.dumps(x) + "\n" for x in lines))
    # --all: above LONG rows the table is otherwise cut (tests/test_cli_elide.py)
    code, out, err = run(capsys, "plan", session, "--strategy", "fifo", "--budget", "100", "--all")
    assert code == 0, err
    dropped = [line for line in out.splitlines() if "dropped by fifo" in line]
    kept = [line for line in out.splitlines() if line.split()[-1:] == ["kept"] and line.split()[0].isdigit()]
    assert len(dropped) + len(kept) == len(lines)
    assert dropped[0].split()[:3] == ["1", "user", "user"]
    assert kept[-1].split()[0] == str(len(lines) - 1)
