"""Reports for people: ``--format text|markdown|html|json`` on check and plan, and the progress display."""

from __future__ import annotations

import base64
import io
import json
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml
from rich.console import Console
from typer.testing import CliRunner

from planner.cli import app
from planner.legality.checker import check_deployment
from planner.report.html import check_html
from planner.report.markdown import check_markdown, md_cell
from planner.report.progress import SolveProgress
from planner.world import load_scenario

ROOT = Path(__file__).resolve().parents[1]
LONG_EDGE = ROOT / "scenarios" / "long-edge-ravenguard-vs-ironhands.yaml"
SHORT_EDGE = ROOT / "scenarios" / "short-edge-chogorian-vs-berserkers.yaml"
ROSTER_PLAN = ROOT / "scenarios" / "roster-strike-force-plan.yaml"


class Tags(HTMLParser):
    """Counts tags and collects ids, classes and text of an HTML page."""

    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)

    def count(self, tag: str, **attrs) -> int:
        return sum(1 for t, a in self.tags if t == tag and all(a.get(k) == v for k, v in attrs.items()))

    def ids(self) -> list[str]:
        return [a["id"] for _, a in self.tags if a.get("id")]


def parse_html(text: str) -> Tags:
    p = Tags()
    p.feed(text)
    return p


@pytest.fixture(scope="module")
def short_edge():
    w = load_scenario(SHORT_EDGE)
    return w, check_deployment(w)


def test_markdown_ruling_reads_unit_by_unit(short_edge):
    world, report = short_edge
    md = check_markdown(report, picture_ref="pic.svg")
    assert md.startswith("# Deployment ruling")
    assert "**Verdict: ILLEGAL: 7 violations.**" in md
    assert "![The battlefield](pic.svg)" in md
    for u in report.units:
        assert re.search(rf"^### {re.escape(u.unit)}\b", md, re.M), u.unit
    # the 8.5" Infiltrator: measured, requirement and margin on the rule's row
    row = next(line for line in md.splitlines()
               if line.startswith("| hh2.infiltrate.distance | BROKEN"))
    assert '| 8.500" |' in row and '| -0.500" |' in row and "nearest enemy we-tactical-1/1" in row
    # every rule that appears has its meaning and source in "Rules applied"
    rules = {f.rule for u in report.units for f in u.findings}
    applied = md.split("## Rules applied", 1)[1]
    for r in rules:
        assert f"| {r} |" in applied
    assert "HH2 p.242" in applied or "p.242" in applied
    # each table row has as many cells as the header
    for line in md.splitlines():
        if line.startswith("| hh2."):
            assert len(re.findall(r"(?<!\\)\|", line)) in (9, 4), line


def test_markdown_embeds_a_png_when_no_picture_file(short_edge):
    world, report = short_edge
    from planner.render import render_bytes

    png = render_bytes(world, "png", report)[0]
    md = check_markdown(report, png=png)
    m = re.search(r"!\[The battlefield\]\(data:image/png;base64,([A-Za-z0-9+/=]+)\)", md)
    assert m and base64.b64decode(m.group(1)) == png


def test_md_cell_escapes_pipes_and_newlines():
    assert md_cell("a|b\nc<script>") == "a\\|b c&lt;script&gt;"


def test_html_ruling_is_self_contained_and_complete(short_edge):
    world, report = short_edge
    from planner.render import render_bytes

    page = check_html(report, svg=render_bytes(world, "svg", report)[0])
    doc = parse_html(page)
    assert page.startswith("<!DOCTYPE html>") and "<?xml" not in page
    assert doc.count("script") == 0 and doc.count("link") == 0 and "http://" not in page.split("<svg", 1)[0]
    assert doc.count("svg") == 1
    assert doc.count("section", **{"class": "unit"}) == len(report.units)
    failing = sum(1 for u in report.units for f in u.findings if not f.passed)
    assert doc.count("tr", **{"class": "broken"}) == failing
    assert doc.count("li") == len(report.violations) == 7
    ids = doc.ids()
    assert sum(1 for i in ids if i.startswith("base-")) == 73
    assert "verdict" in ids and "legend" in ids and "picture" in ids
    assert len(ids) == len(set(ids)), [i for i in ids if ids.count(i) > 1][:5]


def test_html_escapes_what_the_scenario_says(tmp_path):
    data = yaml.safe_load(LONG_EDGE.read_text(encoding="utf-8"))
    data["name"] = 'Evil <script>alert("x")</script> & co'
    data["armies"][0]["units"][0]["name"] = "<b>Bold</b> squad"
    src = tmp_path / "evil.yaml"
    src.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    r = CliRunner().invoke(app, ["check", str(src), "--format", "html"])
    assert r.exit_code == 0, r.stderr
    page = r.stdout
    assert "<script" not in page and "<b>Bold" not in page
    assert "&lt;script&gt;" in page and "&lt;b&gt;Bold&lt;/b&gt; squad" in page
    assert parse_html(page).count("script") == 0


def test_check_formats_on_the_command_line(tmp_path):
    runner = CliRunner()
    r = runner.invoke(app, ["check", str(SHORT_EDGE), "--format", "json"])
    assert r.exit_code == 1
    data = json.loads(r.stdout)
    assert data["legal"] is False and len(data["violations"]) == 7
    r = runner.invoke(app, ["check", str(SHORT_EDGE), "--format", "markdown", "--render", str(tmp_path / "s.svg")])
    assert r.exit_code == 1
    assert f"![The battlefield]({tmp_path / 's.svg'})" in r.stdout and (tmp_path / "s.svg").exists()
    r = runner.invoke(app, ["check", str(LONG_EDGE), "--format", "html"])
    assert r.exit_code == 0 and "LEGAL: every rule checked" in r.stdout
    r = runner.invoke(app, ["check", str(LONG_EDGE), "--format", "text"])
    assert r.exit_code == 0 and "Legal deployment" in r.stdout
    for bad in (["--format", "pdf"], ["--format", "html", "--json", "-"]):
        r = runner.invoke(app, ["check", str(LONG_EDGE), *bad])
        assert r.exit_code == 2 and "--format" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.slow
def test_roster_scenario_to_html_ruling_in_one_command(tmp_path):
    """The README's one command: a scenario whose army is read from a roster, to an HTML ruling with
    the picture of the plan (and --render writes the same picture as a PNG)."""
    r = CliRunner().invoke(app, ["plan", str(ROSTER_PLAN), "--time-limit", "10", "--format", "html",
                                 "--render", str(tmp_path / "plan.png")])
    assert r.exit_code == 0, r.stderr
    doc = parse_html(r.stdout)
    ids = doc.ids()
    assert doc.count("svg") == 1 and "solver" in ids and "battlefield" in ids
    world = load_scenario(ROSTER_PLAN)
    placed = {u.id: len(u.models) for u in world.units.values() if u.record.place and u.on_battlefield}
    assert placed["tactical-squad-legion"] == 8 and len(placed) >= 5
    for uid, n in placed.items():
        assert sum(1 for i in ids if re.fullmatch(rf"base-{re.escape(uid)}-[^-]+", i)) == n, uid
        assert f"unit-{uid}" in ids
    assert "LEGAL: every rule checked" in r.stdout
    assert (tmp_path / "plan.png").read_bytes()[:4] == b"\x89PNG"


def test_progress_draws_on_a_terminal_only():
    buf = io.StringIO()
    con = Console(file=buf, force_terminal=True, width=120)
    with SolveProgress(con, time_limit_s=10) as p:
        p.update(None, None, 0.2)
        p.update(20.0, 5.0, 1.0)
        p.update(15.5, 12.25, 2.5)
    out = buf.getvalue()
    assert '15.500"' in out and '12.250"' in out and "20.97%" in out and "2.5 s" in out
    assert p.improvements == 2 and p.gap_text() == "20.97%"
    # a terminal console on standard error while the report goes to a redirected standard output: nothing drawn
    err = Console(file=io.StringIO(), force_terminal=True, stderr=True)
    assert SolveProgress(err).enabled is sys.stdout.isatty()
    quiet = io.StringIO()
    with SolveProgress(Console(file=quiet), time_limit_s=10) as p:
        p.update(3.0, 1.0, 0.5)
    assert quiet.getvalue() == "" and p.objective == 3.0


def test_plan_reports_without_a_plan_still_show_the_battlefield():
    from planner.report.html import plan_html
    from planner.report.markdown import plan_markdown
    from planner.solve.planner import PlanResult

    r = PlanResult(status="unknown", message="no plan within the time limit", wall_time_s=1.0)
    page = plan_html(r, scenario="x <y>", svg=b'<?xml version="1.0"?>\n<svg id="s"></svg>')
    doc = parse_html(page)
    assert doc.count("figure", id="picture") == 1 and doc.count("svg") == 1
    assert "x &lt;y&gt;" in page and "<?xml" not in page and "No plan to rule on." in page
    assert "Solver status: unknown - no plan within the time limit" in page
    md = plan_markdown(r, scenario="x", picture_ref="p.png")
    assert "![The battlefield](p.png)" in md and "No plan to rule on." in md


GOLDEN_MD = ROOT / "tests" / "golden" / "short-edge-ruling.md"


def golden_markdown() -> str:
    """The Markdown ruling of the short-edge scenario, picture linked (not embedded)."""
    world = load_scenario(SHORT_EDGE)
    report = check_deployment(world)
    report.scenario = SHORT_EDGE.name
    return check_markdown(report, picture_ref="short-edge.svg", title=f"Deployment ruling: {world.scenario.name}")


def test_golden_markdown_ruling():
    """Regenerate with ``python tests/test_reports.py`` after an intended change, and review the diff."""
    expected = GOLDEN_MD.read_text(encoding="utf-8").splitlines()
    assert golden_markdown().splitlines() == expected


if __name__ == "__main__":
    GOLDEN_MD.write_text(golden_markdown(), encoding="utf-8")
    print(f"wrote {GOLDEN_MD.relative_to(ROOT)}")
