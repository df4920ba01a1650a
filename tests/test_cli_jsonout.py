"""The --json printer: orjson text laid out like json.dumps(indent=2), LazyRows streamed in chunks."""

from __future__ import annotations

import json

import pytest

from inspector.cli import jsonout


class Rows(jsonout.LazyRows):
    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def row(self, k: int) -> dict:
        return {"index": k, "reason": f"why \x1b[2J {k}", "replaces": [k, k + 1], "empty": [], "none": None}


@pytest.mark.parametrize("n", [0, 1, 5, 7])
def test_lazy_rows_are_written_as_the_list_of_their_rows(capsys, monkeypatch, n):
    monkeypatch.setattr(jsonout, "_CHUNK", 3)  # chunk boundaries inside the rows
    report = {"a": 1, "messages": Rows(n), "calls": Rows(2), "z": {"k": [1.5, "\u202e"]}}
    jsonout.print_json(report)
    out = capsys.readouterr().out
    plain = {**report, "messages": list(Rows(n)), "calls": list(Rows(2))}
    assert out == jsonout.json_escape(json.dumps(plain, indent=2, ensure_ascii=False)) + "\n"
    assert "\x1b" not in out and "\\u001b[2J" in out and "\\u202e" in out


def test_what_orjson_cannot_write_falls_back_to_the_stdlib():
    assert jsonout.json_text({"s": "\ud800", "big": 2**70}) == '{\n  "s": "\\ud800",\n  "big": 1180591620717411303424\n}'


def test_lazy_rows_read_like_a_list():
    rows = Rows(4)
    assert rows[-1]["index"] == 3 and [r["index"] for r in rows[1:3]] == [1, 2]
    with pytest.raises(IndexError):
        rows[4]
