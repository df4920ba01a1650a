"""``context-inspector report --html``: the page's figures are the CLI's JSON figures, text from a
session is escaped and redactable, the page needs nothing from the network, and it renders in
a real headless Chromium."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from inspector.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_sessions" / "three_questions.json"
ARGS = ["--strategy", "tool_pruning", "--budget", "4000"]


class Figures(HTMLParser):
    """``data-fig`` -> ``data-value`` of every figure on the page, and the tags seen."""

    def __init__(self) -> None:
        super().__init__()
        self.figures: dict[str, str] = {}
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        if "data-fig" in a:
            self.figures[a["data-fig"]] = a["data-value"]


def parse(path: Path) -> Figures:
    f = Figures()
    f.feed(path.read_text(encoding="utf-8"))
    return f


def cli_json(capsys, *argv: str) -> dict:
    capsys.readouterr()
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def walk(report: dict, path: str):
    value = report
    for part in path.split("."):
        value = value[int(part)] if isinstance(value, list) else value[part]
    return value


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("report") / "report.html"
    assert main(["report", str(SAMPLE), *ARGS, "--html", str(out)]) == 0
    return out


def test_every_figure_on_the_page_is_the_cli_json_figure(page, capsys):
    figures = parse(page).figures
    reports = {
        "plan": cli_json(capsys, "plan", str(SAMPLE), *ARGS, "--json"),
        "replay": cli_json(capsys, "replay", str(SAMPLE), *ARGS, "--json"),
        "compare": cli_json(capsys, "compare", str(SAMPLE), "--budget", "4000", "--json"),
    }
    checked = 0
    for path, value in figures.items():
        head, _, rest = path.partition(".")
        if head not in reports:
            continue
        expected = walk(reports[head], rest)
        assert value == ("" if expected is None else str(expected)), path
        checked += 1
    # every message row, every call, every compare row has its figures on the page
    plan, replay, compare = reports["plan"], reports["replay"], reports["compare"]
    assert checked == 3 + 2 * len(plan["messages"]) + 4 * len(replay["calls"]) + 4 + 5 * len(compare["rows"])
    assert figures["plan.tokens_after"] == "2251" and figures["replay.total"] == str(replay["total"])


def test_the_window_categories_add_up_to_the_plan(page, capsys):
    figures = parse(page).figures
    plan = cli_json(capsys, "plan", str(SAMPLE), *ARGS, "--json")
    info = cli_json(capsys, "info", str(SAMPLE), "--json")
    keys = ("system", "not_in_file", "overhead", "user", "assistant", "tool_exchange", "summary")
    assert sum(int(figures[f"window.{k}.before"]) for k in keys) == plan["tokens_before"] == int(figures["window.used_before"])
    assert sum(int(figures[f"window.{k}.after"]) for k in keys) == plan["tokens_after"] == int(figures["window.used_after"])
    assert int(figures["window.free.before"]) == info["window"]["tokens"] - info["window"]["reserved"] - plan["tokens_before"]
    assert figures["window.overhead.before"] == str(plan["overhead"])
    assert figures["window.tool_exchange.before"] == str(info["tokens"]["by_unit_kind"]["tool_exchange"])
    # by tool, at the planned call: run_sql, describe_table, get_metric_definition
    for when in ("before", "after"):
        tools = [int(v) for k, v in figures.items() if k.startswith("window.tools.") and k.endswith(when)]
        assert sum(tools) == int(figures[f"window.tool_exchange.{when}"])
    assert [figures[f"window.tools.{k}.before"] for k in range(3)] == ["7957", "667", "235"]


def test_the_page_is_self_contained(page):
    html = page.read_text(encoding="utf-8")
    assert "<script" not in html and "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "https://" not in html and "@import" not in html and "url(" not in html
    assert html.count("<svg") == 1 and 'id="replay-chart"' in html
    # the dark theme's colours
    assert "--unit-tool-exchange: #ffae57;" in html and "--status-dropped: #f28779;" in html


def write_session(path: Path, text: str) -> Path:
    path.write_text(json.dumps({"model": "gpt-4o", "messages": [
        {"role": "system", "content": "You help."},
        {"role": "user", "content": text},
        {"role": "assistant", "content": "Done."},
    ]}), encoding="utf-8")
    return path


def test_session_strings_are_escaped_and_control_characters_visible(tmp_path):
    session = write_session(tmp_path / "s.json", "<script>alert(1)</script> \x1b[31mred\x07 & done")
    out = tmp_path / "r.html"
    assert main(["report", str(session), "--html", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert "<script" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "\x1b" not in html and "\x07" not in html and "red &amp; done" in html


def test_redact_keeps_sizes_and_drops_the_text(tmp_path, page):
    out = tmp_path / "redacted.html"
    assert main(["report", str(SAMPLE), *ARGS, "--redact", "--html", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert "Which products brought in the most net revenue" in page.read_text(encoding="utf-8")
    assert "Which products brought in" not in html and "Haven Workspace" not in html and "SKU-1042" not in html
    assert html.count("(redacted)") == 23
    assert parse(out).figures == parse(page).figures


def test_refuses_to_write_over_the_session(tmp_path, capsys):
    session = write_session(tmp_path / "s.json", "hello")
    before = session.read_bytes()
    assert main(["report", str(session), "--html", str(session)]) == 2
    assert "refusing to write" in capsys.readouterr().err
    assert session.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.json"]


def test_a_bad_theme_is_one_paragraph(tmp_path, capsys):
    session = write_session(tmp_path / "s.json", "hello")
    assert main(["report", str(session), "--theme", str(tmp_path / "none.toml"), "--html", str(tmp_path / "r.html")]) == 2
    assert "none.toml: no such theme" in capsys.readouterr().err
    assert not (tmp_path / "r.html").exists()


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium; .ci/run installs it)")


def chromium(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", *args],
                          capture_output=True, text=True, timeout=120)


@needs_chromium
def test_chromium_renders_the_rows_and_the_chart(page):
    done = chromium("--dump-dom", page.as_uri())
    assert done.returncode == 0, done.stderr[-2000:]
    dom = done.stdout
    assert len(re.findall(r'<tr class="msg ', dom)) == 23
    assert len(re.findall(r'<tr class="call"', dom)) == 11
    assert len(re.findall(r'<rect class="bar-pipeline"', dom)) == 11
    assert len(re.findall(r'<tr class="compare-row"', dom)) >= 10
    assert 'id="replay-chart"' in dom


@needs_chromium
def test_chromium_screenshot_is_drawn(page, tmp_path):
    shot = tmp_path / "report.png"
    done = chromium("--window-size=1200,900", f"--screenshot={shot}", page.as_uri())
    assert done.returncode == 0, done.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000  # a blank page is a few kB


def test_the_window_before_leaves_out_what_a_recorded_compaction_removed(tmp_path, capsys):
    """coding_agent.jsonl records a compaction: the rows before it are sent neither before nor
    after the pipeline, so the window's "before" is the plan's tokens_before (was 13,114 vs 4,402)."""
    sample = SAMPLE.parent / "coding_agent.jsonl"
    out = tmp_path / "r.html"
    assert main(["report", str(sample), "--strategy", "fifo", "--html", str(out)]) == 0
    figures = parse(out).figures
    plan = cli_json(capsys, "plan", str(sample), "--strategy", "fifo", "--json")
    assert plan["tokens_before"] == 4402
    assert int(figures["window.used_before"]) == plan["tokens_before"]
    assert int(figures["window.used_after"]) == plan["tokens_after"]


def test_the_page_says_which_budget_and_why(tmp_path):
    """As plan, replay, compare and export print it: the default budget with its reason, or the one set."""
    default, as_set = tmp_path / "default.html", tmp_path / "set.html"
    assert main(["report", str(SAMPLE), "--strategy", "fifo", "--html", str(default)]) == 0
    assert main(["report", str(SAMPLE), "--strategy", "fifo", "--budget", "4000", "--html", str(as_set)]) == 0
    assert ("Budget 1,000,000 = the 1,000,000-token window of gpt-4.1-2025-04-14 (genai-prices)."
            in default.read_text(encoding="utf-8"))
    assert "Budget 4,000, as set." in as_set.read_text(encoding="utf-8")


def test_the_size_it_reports_is_the_file_size_in_bytes(tmp_path, capsys):
    """The page has non-ASCII text (arrows, the session's "é"): the figure on stderr is the file's
    bytes, not its characters (it said 87,012 bytes for an 87,245-byte file)."""
    session = write_session(tmp_path / "s.json", "café → naïve ✓")
    out = tmp_path / "r.html"
    assert main(["report", str(session), "--html", str(out)]) == 0
    size = out.stat().st_size
    assert size > len(out.read_text(encoding="utf-8"))
    assert f"HTML report ({size:,} bytes)." in capsys.readouterr().err


def test_the_window_names_the_resent_reasoning_with_the_part_not_in_the_file(tmp_path, capsys):
    rollout = (Path(__file__).parent / "fixtures" / "real" / "codex"
               / "agentcmd_rollout-2025-09-25T15-12-14-019982b8-3422-79e0-8b3b-05abaf4f3c3e.jsonl")
    out = tmp_path / "r.html"
    assert main(["report", str(rollout), "--html", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert "not in file + re-sent reasoning" in html and int(parse(out).figures["window.not_in_file.before"]) == 7_694


@pytest.mark.parametrize("theme", ["dark", "light", "colorblind"])
def test_each_window_category_has_its_own_colour(tmp_path, theme):
    """The window's bar and legend tell every category apart in every bundled theme: 'not in
    file' was the theme's secondary colour, which is the summary colour in dark and light (#95e6cb,
    #1b7c83), so a session with a summary showed two categories in one colour."""
    out = tmp_path / "r.html"
    assert main(["report", str(SAMPLE), *ARGS, "--theme", theme, "--html", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    root = dict(re.findall(r"(--[a-z0-9-]+): ([^;]+);", html.split("}", 1)[0]))
    swatches = re.findall(r'<tr class="cat-(\w+)"><td><span class="legend"><span class="swatch" style="background:([^"]+)"', html)
    assert {key for key, _ in swatches} >= {"system", "not_in_file", "overhead", "user", "assistant", "tool_exchange", "summary"}
    resolved = {key: re.sub(r"var\((--[a-z0-9-]+)\)", lambda m: root[m.group(1)].strip().lower(), style) for key, style in swatches}
    assert len(set(resolved.values())) == len(resolved), resolved
