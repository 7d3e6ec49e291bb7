"""The command line on the bundled 40k scenarios: rules listing, plan, check, and the edition switch."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from planner.rules import wh40k10, wh40k11

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "scenarios" / "wh40k" / "search-and-destroy.yaml"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "planner", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=300)


@pytest.mark.parametrize("module", [wh40k10, wh40k11])
def test_rules_lists_every_rule_id_with_meaning_and_source(module):
    r = _run("rules", "--ruleset", module.ID, "--json", "-")
    assert r.returncode == 0, r.stderr
    start = r.stdout.index("[")
    rows = json.loads(r.stdout[start:])
    assert [x["rule"] for x in rows] == [ri.id for ri in module.RULES]
    assert all(x["meaning"] and x["source"] for x in rows)
    ids = {x["rule"] for x in rows}
    assert {f"{module.ID}.infiltrators.distance", f"{module.ID}.coherency", f"{module.ID}.scouts.eligible"} <= ids


def test_check_of_a_scenario_to_plan_is_an_input_error():
    r = _run("check", str(SCENARIO))
    assert r.returncode == 2
    assert "armies[0].units[2].models[0].x" in r.stderr and "no position" in r.stderr


@pytest.mark.parametrize("ruleset", ["wh40k10", "wh40k11"])
def test_plan_then_check_exits_0(tmp_path, ruleset):
    data = yaml.safe_load(SCENARIO.read_text())
    data["ruleset"] = ruleset
    src = tmp_path / "in.yaml"
    src.write_text(yaml.safe_dump(data, sort_keys=False))
    out = tmp_path / "plan.yaml"
    r = _run("plan", str(src), "--out", str(out), "--time-limit", "20", "--workers", "1")
    assert r.returncode == 0, r.stdout + r.stderr
    c = _run("check", str(out), "--json", "-")
    assert c.returncode == 0, c.stdout + c.stderr
    report = json.loads(c.stdout[c.stdout.index("{"):])
    assert report["legal"] and report["ruleset"] == ruleset
    inf = next(u for u in report["units"] if u["unit"] == "infiltrators")
    zone = next(f for f in inf["findings"] if f["rule"] == f"{ruleset}.infiltrators.zone_distance")
    limit = {"wh40k10": 9.0, "wh40k11": 8.0}[ruleset]
    assert limit < zone["measured"] < limit + 1.5  # pressed against the enemy zone's reach


def test_a_10th_edition_plan_switched_to_11th_stays_legal_but_not_the_reverse(tmp_path):
    """More than 9" is also more than 8"; the reverse does not hold."""
    data = yaml.safe_load(SCENARIO.read_text())
    data["ruleset"] = "wh40k11"
    src = tmp_path / "in.yaml"
    src.write_text(yaml.safe_dump(data, sort_keys=False))
    out = tmp_path / "plan11.yaml"
    assert _run("plan", str(src), "--out", str(out), "--time-limit", "20", "--workers", "1").returncode == 0
    planned = yaml.safe_load(out.read_text())
    planned["ruleset"] = "wh40k10"
    as10 = tmp_path / "as10.yaml"
    as10.write_text(yaml.safe_dump(planned, sort_keys=False))
    c = _run("check", str(as10), "--json", "-")
    assert c.returncode == 1
    report = json.loads(c.stdout[c.stdout.index("{"):])
    assert {v["rule"] for v in report["violations"]} == {"wh40k10.infiltrators.zone_distance"}


def test_check_the_edition_switch_scenario_exits_1():
    r = _run("check", str(ROOT / "scenarios" / "wh40k-edition-switch.yaml"))
    assert r.returncode == 1, r.stdout + r.stderr
    assert "wh40k10.infiltrators.zone_distance" in r.stdout
