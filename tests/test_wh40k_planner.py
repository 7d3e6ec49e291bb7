"""The planner in 40k scenarios: rule ids and explanations of the scenario's edition, and Scouts
moves judged as the 40k checker judges them (10th: up to X", ending more than 9" from enemy
models; 11th: from wholly within the own zone, ending more than 8" from enemy units)."""

from __future__ import annotations

import copy
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.legality.checker import check_deployment
from planner.schema import Scenario
from planner.solve.planner import SolverSettings, plan_deployment
from planner.testing import assert_plan_legal
from planner.world import resolve
from tests.wh40k_helpers import dawn_of_war, model, unit

SETTINGS = SolverSettings(time_limit_s=10, workers=1, seed=0, grid_in=1.0, candidates_per_unit=10)
EXACT = SolverSettings(time_limit_s=10, workers=1, seed=0, grid_in=1.0, candidates_per_unit=10, margin_in=0.0)
LIMIT = {"wh40k10": 9, "wh40k11": 8}


def _data(ruleset, blue, red, *, zones=None, goals=()):
    return {"ruleset": ruleset, "battlefield": {"width": 60, "depth": 44},
            "deployment_zones": zones if zones is not None else dawn_of_war(12.0), "goals": list(goals),
            "armies": [{"player": "blue", "units": blue}, {"player": "red", "units": red}]}


def _plan(data, settings=SETTINGS):
    return plan_deployment(resolve(Scenario.model_validate(data)), settings)


@pytest.mark.parametrize("ruleset", ["wh40k10", "wh40k11"])
def test_infiltrators_with_no_legal_place_are_infeasible_by_the_rules_in_the_editions_words(ruleset):
    # the red zone starts 8" from the blue edge: no point is more than 8" (let alone 9") from it, on
    # the grid or off it: a proof by the rules alone (the zone distance), exit 1
    zones = [{"id": "blue-dz", "player": "blue", "polygon": [[0, 0], [60, 0], [60, 8], [0, 8]]},
             {"id": "red-dz", "player": "red", "polygon": [[0, 8], [60, 8], [60, 44], [0, 44]]}]
    inf = unit("inf", [model(None, None)], abilities=["Infiltrators"], setup="infiltrate", place=True)
    result = _plan(_data(ruleset, [inf], [unit("red-line", [model(30, 40)])], zones=zones))
    assert (result.status, result.limit, result.exit_code) == ("infeasible", None, 1)
    (c,) = result.conflicts
    assert c.units == ["inf"]
    assert c.rules == [f"{ruleset}.battlefield", f"{ruleset}.infiltrators.zone_distance"]
    assert c.message == (f'unit inf: model inf/1 (a round base of radius 0.630") can stand nowhere wholly on the '
                         f'battlefield more than {LIMIT[ruleset]}" from every enemy deployment zone (red-dz)')
    assert "hh2" not in result.message


def test_overlap_constraints_and_reports_use_the_40k_rule_id():
    from planner.solve.planner import rule_ids

    assert rule_ids("wh40k10")["overlap"] == "wh40k10.bases.overlap"
    assert rule_ids("wh40k11")["one"] == "wh40k11.placement.one"
    assert rule_ids("hh2")["overlap"] == "hh2.bases.no_overlap"
    from planner.rules.wh40k10 import RULESET as R10
    from planner.rules.wh40k11 import RULESET as R11

    for rs, ruleset in (("wh40k10", R10), ("wh40k11", R11)):
        for key in ("overlap", "battlefield", "capacity"):
            ruleset.rule(rule_ids(rs)[key])  # a rule the checker reports (KeyError otherwise)


# ---------------------------------------------------------------------------- Scouts

START = (30.0, 6.0)
RED = (30.0, 22.0)


def _scouts(ruleset, *, first=START, first_method="deployment_zone", scouts='Scouts 6"'):
    blue = [unit("scout", [model(None, None)], abilities=[scouts, "Infiltrators"], place=True,
                 setup={"method": "scout", "first": first_method, "from": [list(first)]})]
    red = [unit("red-inf", [model(*RED)], abilities=["Infiltrators"], setup="infiltrate")]
    return _data(ruleset, blue, red, goals=[{"kind": "near_point", "x": RED[0], "y": RED[1]}])


def _brute_force(data):
    """Least goal cost over every 1" grid point the checker accepts for the Scouts move's end.
    Points farther than 6" from where the (round-based) model stood are illegal by
    scouts.distance (its centre would move more than 6"), so only the others are checked."""
    best = None
    for x in range(0, 61):
        for y in range(0, 45):
            if math.hypot(x - START[0], y - START[1]) > 6.0 + 1e-9:
                continue
            d = copy.deepcopy(data)
            m = d["armies"][0]["units"][0]
            m["place"] = False
            m["models"][0].update(x=float(x), y=float(y))
            if check_deployment(resolve(Scenario.model_validate(d), require_positions=True)).legal:
                cost = math.hypot(x - RED[0], y - RED[1])
                best = cost if best is None else min(best, cost)
    return best


@pytest.mark.parametrize(("ruleset", "expected"), [("wh40k10", 11.0), ("wh40k11", 10.0)])
def test_scouts_plan_passes_the_checker_and_matches_a_brute_force(ruleset, expected):
    data = _scouts(ruleset)
    result = _plan(data, EXACT)
    assert result.status == "optimal", result.message
    assert_plan_legal(result)
    # (30, 12) is 10 - 2 * 16/25.4 = 8.74" from the red model: more than 8" (11th), not more than 9" (10th)
    assert result.objective == pytest.approx(expected)
    assert _brute_force(data) == pytest.approx(result.objective)
    rules = {f.rule for u in result.legality.units for f in u.findings if u.unit == "scout"}
    assert {f"{ruleset}.scouts.distance", f"{ruleset}.scouts.more_than"} <= rules


@pytest.mark.parametrize("ruleset", ["wh40k10", "wh40k11"])
def test_scouts_plan_keeps_the_tape_measure_margin(ruleset):
    result = _plan(_scouts(ruleset))
    assert_plan_legal(result)
    assert result.placements[0].nearest_enemy > LIMIT[ruleset] + SETTINGS.margin_in


def test_scouts_from_outside_the_own_zone_are_infeasible_in_11th_only():
    # Infiltrators at y=20 (more than 9" from the red zone at y=32), then the Scouts move
    data10 = _scouts("wh40k10", first=(10.0, 20.0), first_method="infiltrate")
    assert_plan_legal(_plan(data10))
    result = _plan(_scouts("wh40k11", first=(10.0, 20.0), first_method="infiltrate"))
    assert result.status == "infeasible"
    (c,) = result.conflicts
    assert "wh40k11.scouts.first_position" in c.rules
    assert "wholly within its own deployment zone" in c.message


def test_a_unit_without_scouts_is_infeasible_naming_the_rule():
    result = _plan(_scouts("wh40k10", scouts="Deep Strike"))
    assert result.status == "infeasible"
    (c,) = result.conflicts
    assert "wh40k10.scouts.eligible" in c.rules


def test_cli_plans_a_40k_scouts_move_that_check_accepts_and_explains_infeasible(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    import yaml

    root = Path(__file__).resolve().parents[1]
    src = tmp_path / "scouts.yaml"
    src.write_text(yaml.safe_dump(_scouts("wh40k11")))
    out = tmp_path / "plan.yaml"
    run = [sys.executable, "-m", "planner"]
    r = subprocess.run(run + ["plan", str(src), "--out", str(out), "--time-limit", "10", "--workers", "1"],
                       capture_output=True, text=True, cwd=root)
    assert r.returncode == 0, r.stdout + r.stderr
    c = subprocess.run(run + ["check", str(out)], capture_output=True, text=True, cwd=root)
    assert c.returncode == 0, c.stdout + c.stderr
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(_scouts("wh40k11", first=(10.0, 20.0), first_method="infiltrate")))
    r = subprocess.run(run + ["plan", str(bad), "--out", str(tmp_path / "p2.yaml"), "--time-limit", "10",
                              "--workers", "1"], capture_output=True, text=True, cwd=root)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "wh40k11.scouts.first_position" in r.stdout
    assert "not wholly within its own deployment zone" in r.stdout
    assert "hh2" not in r.stdout


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ruleset=st.sampled_from(["wh40k10", "wh40k11"]), sx=st.floats(min_value=3, max_value=57),
       sy=st.floats(min_value=2, max_value=10), rx=st.floats(min_value=3, max_value=57),
       ry=st.floats(min_value=22, max_value=40), x=st.sampled_from([3, 6, 9]), n=st.integers(1, 4),
       gx=st.floats(min_value=0, max_value=60), gy=st.floats(min_value=0, max_value=44))
def test_every_40k_scouts_plan_passes_the_checker(ruleset, sx, sy, rx, ry, x, n, gx, gy):
    """Random Scouts X" units of 1-4 models set up in the blue zone, a red Infiltrator anywhere
    more than 9" from the blue zone (y > 22), a random goal point: a plan, if any, is legal; an
    infeasible answer names only the edition's rule ids (``unknown``, out of time, is allowed)."""
    first = [[sx + 1.5 * i, sy] for i in range(n)]
    blue = [unit("scout", [model(None, None) for _ in range(n)], abilities=[f'Scouts {x}"'], place=True,
                 setup={"method": "scout", "first": "deployment_zone", "from": first})]
    red = [unit("red-inf", [model(rx, ry)], abilities=["Infiltrators"], setup="infiltrate")]
    data = _data(ruleset, blue, red, goals=[{"kind": "near_point", "x": gx, "y": gy}])
    result = _plan(data, SolverSettings(time_limit_s=5, workers=1, seed=0, grid_in=1.0, candidates_per_unit=10))
    if result.status in ("optimal", "feasible"):
        assert_plan_legal(result)
    elif result.status == "infeasible":
        assert all(r.startswith(ruleset + ".") for c in result.conflicts for r in c.rules)
