"""Two imported armies planned from the command line, one player at a time (``plan --player``),
with no hand edit: what a fresh user could not do (session 4, finding 6)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
ROSTERS = ROOT / "scenarios" / "rosters"


def _planner(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "planner", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=300)


@pytest.fixture(scope="module")
def table(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("two") / "table.yaml"
    r = _planner("new", "--ruleset", "wh40k11", "--layout", "bm-take-vs-take-01",
                 "--roster", str(ROSTERS / "wh40k11-space-marines.ros"), "--player", "blue",
                 "--roster", str(ROSTERS / "wh40k11-necrons.ros"), "--player", "red", "--out", str(out))
    assert r.returncode == 0, r.stdout + r.stderr
    return out


@pytest.mark.slow
def test_plan_one_player_then_the_other_and_check(table, tmp_path):
    first, second = tmp_path / "blue.yaml", tmp_path / "both.yaml"
    before = table.read_bytes()
    r = _planner("plan", str(table), "--player", "blue", "--out", str(first), "--time-limit", "5", "--workers", "1",
                 "--json", str(tmp_path / "blue.json"))
    assert r.returncode == 0, r.stdout + r.stderr
    assert table.read_bytes() == before  # the input is never written
    # the other player's units are not on the table yet: said so, not called legal
    assert "Legal so far" in r.stdout and "3 units still to place" in r.stdout
    report = json.loads((tmp_path / "blue.json").read_text("utf-8"))
    waiting = {u["unit"] for u in report["legality"]["units"] if u["to_place"]}
    assert waiting == {"red-necron-warriors", "red-overlord", "red-lychguard"}
    data = yaml.safe_load(first.read_text("utf-8"))
    for army in data["armies"]:
        positioned = all("x" in m for u in army["units"] for m in u["models"])
        assert positioned == (army["player"] == "blue")
    r = _planner("plan", str(first), "--player", "red", "--out", str(second), "--time-limit", "5", "--workers", "1")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Legal deployment" in r.stdout and "still to place" not in r.stdout
    blue_before = next(a for a in data["armies"] if a["player"] == "blue")
    both = yaml.safe_load(second.read_text("utf-8"))
    assert next(a for a in both["armies"] if a["player"] == "blue") == blue_before  # blue stays where it stood
    c = _planner("check", str(second))
    assert c.returncode == 0, c.stdout + c.stderr


@pytest.mark.parametrize(("args", "field", "value"), [
    (["--player", "green"], "--player", "green"),
    (["--player", "red", "--next"], "--player", "red"),
    (["--player", "red", "--unit", "blue-captain"], "--unit", "blue-captain"),
    ([], "armies", "--player NAME"),
])
def test_plan_player_refusals_name_the_option(table, args, field, value):
    r = _planner("plan", str(table), *args, "--time-limit", "1")
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"field {field}" in r.stderr and value in r.stderr and "Traceback" not in r.stderr
