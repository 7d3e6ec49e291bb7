"""Findings 3, 12 and 13 of the fresh user of session 13 (/work/notes/s13/fresh13.md).

3: a deny goal's protected radius is proven over the enemy arrival grid only: the goal has a
``grid_in``, the report says the grid where the radius is promised, and the answer is re-checked
on a grid half as fine by the threats scan (the same predicate as ``planner threats``).
12: ``check`` refuses a goal naming an unknown objective or unit, as ``plan`` does.
13: wording: threats' illegal-table advice, an empty unit list, a unit not set up to Deep Strike,
the field path of a goal without a required field.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
DENY_SMALL = ROOT / "tests" / "assets" / "deny-small.yaml"
LONG_EDGE = ROOT / "scenarios" / "long-edge-ravenguard-vs-ironhands.yaml"


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "planner", *map(str, args)], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)


def _in_process(*args):
    from typer.testing import CliRunner

    from planner.cli.commands import app

    r = CliRunner().invoke(app, [str(a) for a in args])
    return SimpleNamespace(returncode=r.exit_code, stdout=r.stdout, stderr=r.stderr)


def _deny_file(tmp_path: Path, **goal) -> Path:
    data = yaml.safe_load(DENY_SMALL.read_text())
    data["goals"] = [{"kind": "deny", "enemy_unit": "inf", **goal}]
    f = tmp_path / "deny.yaml"
    f.write_text(yaml.safe_dump(data))
    return f


# ----------------------------------------------------------------------------- finding 3


def test_deny_radius_is_stated_over_the_grid_and_rechecked_on_a_finer_one(tmp_path):
    f = _deny_file(tmp_path, protect=[15, 12], radius=5)
    out, js = tmp_path / "dp.yaml", tmp_path / "dp.json"
    p = _cli("plan", f, "--time-limit", "30", "--workers", "1", "--out", out, "--json", js)
    assert p.returncode == 0, p.stdout + p.stderr
    r = json.loads(js.read_text())
    assert r["status"] == "optimal" and r["legal"] is True and r["grid_in"] == 2.0
    # on the 2" grid the screen holds: the closest arrival left is outside the 5" radius
    assert r["enemy_best"]["anchor"] == [14.0, 18.0]
    assert r["enemy_best"]["value"] == pytest.approx(5.453, abs=1e-3)
    # the re-check on the 1" grid finds an arrival inside it, and says so
    assert r["recheck_grid_in"] == 1.0 and r["recheck_inside"] is True
    assert r["recheck_best"]["anchor"] == [16.0, 17.0] and r["recheck_best"]["legal"] is True
    assert r["recheck_best"]["value"] == pytest.approx(4.469, abs=1e-3)
    assert "Enemy's closest arrival left on the 2\" grid: inf at (14, 18), 5.453\"" in p.stdout
    assert "(16, 17), 4.469\" from the point: INSIDE the 5\" radius, which is proven on the 2\" grid only" \
        in p.stdout
    # the same predicate as planner threats on the planned file
    t = _cli("threats", out, "--enemy-unit", "inf", "--goal", "near_point:15,12", "--grid", "1", "--json", "-")
    assert t.returncode == 0, t.stderr
    best = json.loads(t.stdout)["best"]
    assert best["anchor"] == r["recheck_best"]["anchor"] and best["value"] == pytest.approx(r["recheck_best"]["value"])


def test_deny_grid_in_refines_the_proof_grid(tmp_path):
    f = _deny_file(tmp_path, protect=[15, 12], radius=5, grid_in=1)
    js = tmp_path / "g1.json"
    p = _cli("plan", f, "--time-limit", "30", "--workers", "1", "--json", js, "--format", "markdown")
    assert p.returncode == 0, p.stdout + p.stderr
    r = json.loads(js.read_text())
    assert r["status"] == "optimal" and r["grid_in"] == 1.0
    assert r["area_sq_in"] == r["anchors_left"] == len(r["legal_cells"]) == 155  # 1" cells of 1 sq in
    assert r["enemy_best"]["value"] == pytest.approx(5.201, abs=1e-3)  # outside 5" on the 1" grid
    assert r["recheck_grid_in"] == 0.5 and r["recheck_inside"] is True
    assert r["recheck_best"]["anchor"] == [15.0, 17.5]
    assert r["recheck_best"]["value"] == pytest.approx(4.870, abs=1e-3)
    assert "optimal over the candidate placements and the 1\" enemy grid" in p.stdout
    assert "no legal arrival on the 1\" grid may have a base within it" in p.stdout
    # the finest grid: no screen of these candidates keeps the disc clear; said over that grid (not a
    # proof over the rules: no answer, exit 3)
    f = _deny_file(tmp_path, protect=[15, 12], radius=5, grid_in=0.5)
    js = tmp_path / "g05.json"
    p = _cli("plan", f, "--time-limit", "30", "--workers", "1", "--json", js)
    assert p.returncode == 3, p.stdout + p.stderr
    r = json.loads(js.read_text())
    assert (r["status"], r["limit"], r["recheck_grid_in"]) == ("unknown", "grid", None)
    assert "the 0.5\" enemy grid" in r["message"]


def test_deny_recheck_grid_is_half_the_grid_and_never_below_half_an_inch(tmp_path):
    f = _deny_file(tmp_path, protect=[15, 12], radius=4, grid_in=0.75)
    js = tmp_path / "g075.json"
    p = _in_process("plan", f, "--time-limit", "30", "--workers", "1", "--json", js)
    assert p.returncode == 0, p.stdout
    r = json.loads(js.read_text())
    assert r["status"] == "optimal" and r["grid_in"] == 0.75
    assert r["enemy_best"]["value"] == pytest.approx(4.401, abs=1e-3)
    # 0.375" would be finer than planner threats allows: the re-check is on 0.5", and holds here
    assert r["recheck_grid_in"] == 0.5 and r["recheck_inside"] is False
    assert r["recheck_best"]["anchor"] == [15.5, 17.0]
    assert r["recheck_best"]["value"] == pytest.approx(4.395, abs=1e-3)
    assert "4.395\" from the point: outside the 4\" radius" in p.stdout


def test_a_denial_without_answer_on_its_grids_names_them_and_is_unknown_limit_grid_exit_3(tmp_path):
    f = _deny_file(tmp_path, protect=[15, 12], radius=5, grid_in=0.75)
    js = tmp_path / "inf.json"
    p = _in_process("plan", f, "--time-limit", "30", "--workers", "1", "--json", js)
    assert p.returncode == 3, p.stdout
    r = json.loads(js.read_text())
    assert (r["status"], r["limit"], r["grid_in"], r["recheck_grid_in"]) == ("unknown", "grid", 0.75, None)
    assert r["message"] == (
        "no deployment of the candidates keeps every legal arrival out of the protected disc (proven over my 2\" "
        "candidate grid, 40 candidates per unit, and the 0.75\" enemy grid only), not proven infeasible by the "
        "rules: a deployment off my candidates may exist; place the units by hand and check them with "
        "'planner threats'")


@pytest.mark.parametrize("value", [0.25, 13, "fine"])
def test_deny_grid_in_is_validated(tmp_path, value):
    f = _deny_file(tmp_path, grid_in=value)
    p = _in_process("plan", f)
    assert p.returncode == 2
    assert "field goals[0].grid_in" in p.stderr and f"(value: {value!r})" in p.stderr


# ----------------------------------------------------------------------------- finding 12


@pytest.mark.parametrize("goal,field,value", [
    ({"kind": "near_objective", "objective": "ghost"}, "goals[0].objective", "ghost"),
    ({"kind": "control_objective", "objective": "ghost"}, "goals[0].objective", "ghost"),
    ({"kind": "near_enemy_unit", "unit": "ghost"}, "goals[0].unit", "ghost"),
    ({"kind": "deny", "enemy_unit": "inf", "objective": "reply", "protect": [18, 4], "also": ["inf", "ghost"]},
     "goals[0].also[1]", "ghost"),
])
def test_check_refuses_a_goal_plan_refuses(tmp_path, goal, field, value):
    data = yaml.safe_load(DENY_SMALL.read_text())
    # positions for my units, so that check has a whole deployment to judge
    data["armies"][0]["units"][0]["models"][0].update(x=30, y=4)
    data["armies"][0]["units"][1]["models"][0].update(x=12, y=4)
    data["armies"][0]["units"][1]["models"][1].update(x=14, y=4)
    data["goals"] = []
    f = tmp_path / "ok.yaml"
    f.write_text(yaml.safe_dump(data))
    assert _in_process("check", f).returncode == 0
    data["goals"] = [goal]
    f.write_text(yaml.safe_dump(data))
    for cmd in ("check", "plan"):
        p = _in_process(cmd, f)
        assert p.returncode == 2, (cmd, p.stdout)
        assert f"field {field}:" in p.stderr and f"(value: {value!r})" in p.stderr, (cmd, p.stderr)
    words = "the scenario has no objectives" if "objective" in field else "(units: a, b, inf)"
    assert words in p.stderr


# ----------------------------------------------------------------------------- finding 13


def test_threats_on_an_illegal_table_names_its_own_command(tmp_path):
    data = yaml.safe_load(DENY_SMALL.read_text())
    # unit a stands outside its deployment zone: the table is illegal before the enemy arrives
    a = data["armies"][0]["units"][0]
    a.pop("place")
    a["models"][0].update(x=10, y=12)
    data["armies"][0]["units"].pop(1)
    f = tmp_path / "illegal.yaml"
    f.write_text(yaml.safe_dump(data))
    p = _in_process("threats", f, "--enemy-unit", "inf")
    assert p.returncode == 1
    assert "give --allow-illegal-table to run threats anyway" in p.stdout
    assert "to plan anyway" not in p.stdout and "the plan" not in p.stdout


def test_threats_on_a_scenario_without_units_says_so(tmp_path):
    f = tmp_path / "minimal.yaml"
    f.write_text("ruleset: hh2\n")
    p = _in_process("threats", f, "--enemy-unit", "x")
    assert p.returncode == 2
    assert "field --unit: no unit with this id: the scenario has no units (value: 'x')" in p.stderr
    assert "units:  " not in p.stderr


def test_deepstrike_of_a_deployed_unit_says_it_is_not_in_reserve():
    p = _in_process("deepstrike", LONG_EDGE, "--unit", "rg-breacher-phobos")
    assert p.returncode == 2
    assert ("field armies[0].units[7].setup: rg-breacher-phobos is not set up to Deep Strike (set up by "
            "deployment_zone): a Deep Striking unit starts the game in Reserve") in p.stderr
    assert "needs the Deep Strike rule" not in p.stderr


def test_a_goal_missing_a_field_is_named_by_its_path_in_the_file(tmp_path):
    data = yaml.safe_load(DENY_SMALL.read_text())
    data["goals"] = [{"kind": "cover"}]
    f = tmp_path / "cover.yaml"
    f.write_text(yaml.safe_dump(data))
    p = _in_process("plan", f)
    assert p.returncode == 2
    assert "field goals[0].against: Field required" in p.stderr and "cover.against" not in p.stderr
    data["goals"] = [{"kind": "deny", "enemy_unit": "inf"}, {"kind": "near_objective"}]
    f.write_text(yaml.safe_dump(data))
    p = _in_process("check", f)
    assert p.returncode == 2 and "field goals[1].objective: Field required" in p.stderr


def test_the_recheck_is_bounded_by_its_time_limit(tmp_path):
    # the re-check's scan stops at its time limit: a limit of 0 judges nothing, so nothing is proven
    # ("cut short"); with no limit it finds the arrival inside the radius (the first test's 4.469")
    from planner.adversary.deny import DenyResult, recheck_protect
    from planner.adversary.report import recheck_line
    from planner.world import load_scenario

    p = _cli("plan", _deny_file(tmp_path, protect=[15, 12], radius=5), "--time-limit", "30", "--workers", "1",
             "--out", tmp_path / "dp.yaml")
    assert p.returncode == 0, p.stdout + p.stderr
    planned = load_scenario(tmp_path / "dp.yaml")
    data = yaml.safe_load((tmp_path / "dp.yaml").read_text())
    full = recheck_protect(planned, data, "inf", (15.0, 12.0, 5.0), 2.0)
    assert full["recheck_complete"] is True and full["recheck_inside"] is True
    assert full["recheck_best"].value == pytest.approx(4.469, abs=1e-3)
    cut = recheck_protect(load_scenario(tmp_path / "dp.yaml"), data, "inf", (15.0, 12.0, 5.0), 2.0, time_limit_s=0.0)
    assert cut["recheck_complete"] is False and cut["recheck_best"] is None and cut["recheck_inside"] is False
    r = DenyResult(status="optimal", message="", enemy_unit="inf", protect=(15.0, 12.0, 5.0), grid_in=2.0, wall_time_s=0.0,
                   **cut)
    assert recheck_line(r) == ('Re-check on the finer 1" grid (as planner threats --grid 1), cut short by the time '
                               'limit (only the positions judged count): no legal arrival of inf found')


def test_the_recheck_never_reads_as_a_proof_off_the_grid(tmp_path):
    # fresh14 finding 1: radius 6 round (18, 10): the 1" re-check finds nothing inside, and says a
    # position between its points is not checked; at grid_in 0.5 (no re-check) the report says the
    # radius holds on that grid only
    f = _deny_file(tmp_path, protect=[18, 10], radius=6)
    js = tmp_path / "d.json"
    p = _in_process("plan", f, "--time-limit", "30", "--workers", "1", "--out", tmp_path / "d.yaml", "--json", js)
    assert p.returncode == 0, p.stdout
    r = json.loads(js.read_text())
    assert r["recheck_grid_in"] == 1.0 and r["recheck_inside"] is False
    text = " ".join(p.stdout.split())
    assert ("outside the 6\" radius on that grid too; a position between the grid points is not checked and may be "
            "inside") in text
    f5 = _deny_file(tmp_path, protect=[18, 10], radius=6, grid_in=0.5)
    p5 = _in_process("plan", f5, "--time-limit", "30", "--workers", "1", "--out", tmp_path / "d5.yaml")
    assert p5.returncode == 0, p5.stdout
    assert ("The 6\" radius is proven for the enemy's arrivals on the 0.5\" grid only (the finest): a position "
            "between its points is not checked and may be inside") in " ".join(p5.stdout.split())
