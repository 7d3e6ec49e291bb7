"""The first CP-SAT planner: every plan it returns passes the independent checker."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.errors import ScenarioError
from planner.schema import Scenario
from planner.solve.planner import SolverSettings, plan_deployment
from planner.testing import assert_plan_legal
from planner.world import load_scenario, resolve

FAST = SolverSettings(time_limit_s=10, workers=1, seed=0, grid_in=1.0, candidates_per_unit=25)


def marine(x=None, y=None):
    m = {"base": {"diameter_mm": 32}}
    if x is not None:
        m.update(x=x, y=y)
    return m


def scenario(enemy, mine, terrain=(), goals=({"kind": "near_point", "x": 36, "y": 24},)):
    return {
        "ruleset": "hh2",
        "deployment_zones": [
            {"id": "red-zone", "player": "red", "polygon": [[0, 0], [72, 0], [72, 12], [0, 12]]},
            {"id": "blue-zone", "player": "blue", "polygon": [[0, 36], [72, 36], [72, 48], [0, 48]]},
        ],
        "terrain": list(terrain),
        "goals": list(goals),
        "armies": [{"player": "red", "units": enemy}, {"player": "blue", "units": mine}],
    }


def world_of(data):
    return resolve(Scenario.model_validate(data))


def test_single_unit_in_zone_reaches_the_zone_edge_nearest_the_target():
    data = scenario(
        [{"id": "tac", "type": "Infantry", "models": [marine(36, 6)]}],
        [{"id": "sq", "type": "Infantry", "place": True, "models": [marine()]}],
        goals=[{"kind": "near_point", "x": 36, "y": 24}],
    )
    result = plan_deployment(world_of(data), FAST)
    assert result.status == "optimal"
    assert_plan_legal(result)
    (m,) = result.scenario.armies[1].units[0].models
    # the base must be wholly within y >= 36: the best grid point is y = 37 (36 + r = 36.63 rounds up)
    assert m.y == pytest.approx(37.0)
    assert m.x == pytest.approx(36.0)
    assert result.objective == pytest.approx(13.0)


def test_infiltrator_stays_more_than_12_inches_away_in_plain_sight():
    data = scenario(
        [{"id": "tac", "type": "Infantry", "models": [marine(36, 10)]}],
        [{"id": "inf", "type": "Infantry", "rules": ["Infiltrate"], "setup": "infiltrate", "place": True,
          "models": [marine()]}],
        goals=[{"kind": "near_point", "x": 36, "y": 10}],
    )
    result = plan_deployment(world_of(data), FAST)
    assert result.status == "optimal"
    assert_plan_legal(result)
    p = result.placements[0]
    assert p.nearest_enemy > 12.0
    # brute force over the 1" grid: the nearest centre more than 12 + 2 * 16/25.4 from (36, 10),
    # plus the planner's tape-measure margin
    need = 12 + FAST.margin_in + 2 * 16 / 25.4
    best = min(math.hypot(x - 36, y - 10) for x in range(1, 72) for y in range(1, 48)
               if math.hypot(x - 36, y - 10) > need + 1e-6)
    assert best == pytest.approx(math.hypot(6, 12))
    assert p.cost == pytest.approx(best)


def test_infiltrator_hides_behind_a_wall_between_9_and_12_inches():
    wall = {"id": "wall", "kind": "solid", "traits": ["blocks_line_of_sight"],
            "footprint": [[26, 13], [46, 13], [46, 14], [26, 14]]}
    data = scenario(
        [{"id": "tac", "type": "Infantry", "models": [marine(36, 3)]}],
        [{"id": "inf", "type": "Infantry", "rules": ["Infiltrate"], "setup": "infiltrate", "place": True,
          "models": [marine()]}],
        terrain=[wall],
        goals=[{"kind": "near_point", "x": 36, "y": 3}],
    )
    result = plan_deployment(world_of(data), FAST)
    assert_plan_legal(result)
    p = result.placements[0]
    assert 9.0 < p.nearest_enemy <= 12.0
    report = result.legality
    hidden = [f for u in report.units for f in u.findings if f.rule == "hh2.infiltrate.hidden"]
    assert hidden and hidden[0].passed and hidden[0].evidence.blocking_features == ["wall"]


def test_no_legal_place_more_than_9_inches_away_is_proven_infeasible_by_the_rules_and_explained():
    # enemies every 8" over the whole table: no point is more than 9" from all of them
    enemy = [{"id": f"e{i}{j}", "type": "Infantry", "models": [marine(4 + 8 * i, 4 + 8 * j)]}
             for i in range(9) for j in range(6)]
    data = scenario(enemy, [{"id": "inf", "type": "Infantry", "rules": ["Infiltrate"], "setup": "infiltrate",
                             "place": True, "models": [marine()]}])
    result = plan_deployment(world_of(data), SolverSettings(time_limit_s=20, workers=1, candidates_per_unit=5))
    assert (result.status, result.limit, result.exit_code) == ("infeasible", None, 1)
    (c,) = result.conflicts
    assert c.units == ["inf"] and c.rules == ["hh2.battlefield", "hh2.infiltrate.distance"]
    assert c.message == ('unit inf: model inf/1 (a round base of radius 0.630") can stand nowhere wholly on the '
                         'battlefield more than 9" from every enemy unit (54 of them)')
    assert result.message == "proven infeasible by the rules alone (on the grid or off it, any formation): " + c.message


def test_nothing_marked_is_an_input_error():
    data = scenario([{"id": "tac", "type": "Infantry", "models": [marine(36, 6)]}], [])
    with pytest.raises(ScenarioError, match="place: true"):
        plan_deployment(world_of(data), FAST)


def test_two_units_do_not_overlap_and_both_are_optimal_over_candidates():
    data = scenario(
        [{"id": "tac", "type": "Infantry", "models": [marine(36, 6)]}],
        [{"id": f"sq{k}", "type": "Infantry", "place": True, "models": [marine() for _ in range(5)]}
         for k in range(3)],
        goals=[{"kind": "near_point", "x": 36, "y": 36}],
    )
    result = plan_deployment(world_of(data), FAST)
    assert result.status == "optimal"
    assert_plan_legal(result)
    assert len(result.placements) == 3


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    enemies=st.lists(st.tuples(st.floats(2, 70), st.floats(2, 10)), min_size=1, max_size=4),
    walls=st.lists(st.tuples(st.floats(5, 60), st.floats(14, 34), st.floats(1, 10), st.booleans()),
                   max_size=4),
    target=st.tuples(st.floats(0, 72), st.floats(0, 48)),
    n_models=st.integers(1, 5),
    infiltrate=st.booleans(),
)
def test_every_plan_passes_the_checker(enemies, walls, target, n_models, infiltrate):
    """Property: whatever the layout, a plan the solver returns is legal in exact geometry."""
    enemy_units = [{"id": f"e{i}", "type": "Infantry", "models": [marine(x, y)]} for i, (x, y) in enumerate(enemies)]
    # drop overlapping enemies (the fixed deployment must itself be legal)
    kept = []
    for u in enemy_units:
        m = u["models"][0]
        if all(math.hypot(m["x"] - k["models"][0]["x"], m["y"] - k["models"][0]["y"]) > 1.3 for k in kept):
            kept.append(u)
    terrain = []
    for i, (x, y, length, across) in enumerate(walls):
        pts = ([[x, y], [x + length, y], [x + length, y + 1], [x, y + 1]] if across
               else [[x, y], [x + 1, y], [x + 1, y + length], [x, y + length]])
        terrain.append({"id": f"w{i}", "kind": "solid", "traits": ["blocks_line_of_sight"], "footprint": pts})
    unit = {"id": "mine", "type": "Infantry", "place": True, "models": [marine() for _ in range(n_models)]}
    if infiltrate:
        unit.update(rules=["Infiltrate"], setup="infiltrate")
    data = scenario(kept, [unit], terrain, goals=[{"kind": "near_point", "x": target[0], "y": target[1]}])
    result = plan_deployment(world_of(data), SolverSettings(time_limit_s=5, workers=1, candidates_per_unit=8))
    if result.status in ("optimal", "feasible"):
        assert_plan_legal(result)
        assert result.legal
    else:
        assert result.status == "unknown"


ROOT = Path(__file__).resolve().parents[1]


def test_cli_plan_writes_a_scenario_that_check_accepts(tmp_path):
    data = scenario(
        [{"id": "tac", "type": "Infantry", "models": [marine(36, 6)]}],
        [{"id": "sq", "type": "Infantry", "place": True, "models": [marine() for _ in range(3)]}],
    )
    import yaml

    src = tmp_path / "in.yaml"
    src.write_text(yaml.safe_dump(data))
    before = src.read_text()
    out = tmp_path / "sub" / "plan.yaml"
    r = subprocess.run([sys.executable, "-m", "planner", "plan", str(src), "--out", str(out), "--time-limit", "10",
                        "--workers", "1"], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "optimal" in r.stdout
    assert src.read_text() == before
    c = subprocess.run([sys.executable, "-m", "planner", "check", str(out)], capture_output=True, text=True, cwd=ROOT)
    assert c.returncode == 0, c.stdout + c.stderr
    w = load_scenario(out, require_positions=True)
    assert all(m.x is not None for m in w.units["sq"].models)


def test_cli_plan_refuses_to_overwrite_its_input(tmp_path):
    data = scenario([{"id": "tac", "type": "Infantry", "models": [marine(36, 6)]}],
                    [{"id": "sq", "type": "Infantry", "place": True, "models": [marine()]}])
    import yaml

    src = tmp_path / "in.yaml"
    src.write_text(yaml.safe_dump(data))
    before = src.read_text()
    r = subprocess.run([sys.executable, "-m", "planner", "plan", str(src), "--out", str(src)], capture_output=True,
                       text=True, cwd=ROOT)
    assert r.returncode == 2
    assert "refusing to overwrite" in r.stderr
    assert "Traceback" not in r.stderr
    assert src.read_text() == before


def test_plan_deployment_refuses_a_deny_goal_with_an_input_error():
    """A library call with a deny goal is an input error naming the goal, not an AttributeError."""
    world = load_scenario(Path(__file__).parent / "assets" / "deny-small.yaml")
    with pytest.raises(ScenarioError, match=r"goals\[0\]\.kind.*denial planner") as err:
        plan_deployment(world)
    # worded for a user: what plans it, no internal function (fu14 #1)
    assert "`planner plan FILE`" in str(err.value)
    assert "planner.adversary" not in str(err.value) and "plan_deployment" not in str(err.value)
