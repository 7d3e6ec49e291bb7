"""Planner goals, proofs over the whole candidate grid (brute force), infeasibility explained, Scout."""

from __future__ import annotations

import copy
import itertools
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.errors import ScenarioError
from planner.legality.checker import check_deployment
from planner.schema import Scenario
from planner.solve.candidates import formations
from planner.solve.planner import SolverSettings, plan_deployment
from planner.testing import assert_plan_legal
from planner.world import resolve

R32 = 16 / 25.4  # radius of a 32 mm base, inches
EXACT = SolverSettings(time_limit_s=30, workers=1, seed=0, grid_in=1.0, candidates_per_unit=10, margin_in=0.0)


def marine(x=None, y=None):
    m = {"base": {"diameter_mm": 32}}
    if x is not None:
        m.update(x=x, y=y)
    return m


def small(enemy, mine, *, width=24, depth=16, terrain=(), goals=(), objectives=(), zones=None):
    return {
        "ruleset": "hh2",
        "battlefield": {"width": width, "depth": depth},
        "deployment_zones": zones or [
            {"id": "red-zone", "player": "red", "polygon": [[0, 0], [width, 0], [width, 3], [0, 3]]},
            {"id": "blue-zone", "player": "blue", "polygon": [[0, depth - 4], [width, depth - 4], [width, depth],
                                                               [0, depth]]},
        ],
        "terrain": list(terrain),
        "objectives": list(objectives),
        "goals": list(goals),
        "armies": [{"player": "red", "units": enemy}, {"player": "blue", "units": mine}],
    }


def world_of(data):
    return resolve(Scenario.model_validate(data))


def grid_placements(data, unit_id, grid=1.0):
    """Every (anchor, formation) of the unit on the grid points of the battlefield, as model
    positions: the candidate grid, enumerated here without the planner's generator."""
    w = world_of(data)
    models = w.units[unit_id].models
    bf = data["battlefield"]
    out = []
    for form in formations(models):
        for i in range(int(bf["width"] / grid) + 1):
            for j in range(int(bf["depth"] / grid) + 1):
                ax, ay = i * grid, j * grid
                out.append([(ax + dx, ay + dy, form.facing) for dx, dy in form.offsets])
    return out


def with_positions(data, where):
    d = copy.deepcopy(data)
    for army in d["armies"]:
        for u in army["units"]:
            if u["id"] in where:
                for m, (x, y, f) in zip(u["models"], where[u["id"]], strict=True):
                    m.update(x=x, y=y, facing=f)
                u.pop("place", None)
    return d


def legal(data, where):
    return check_deployment(resolve(Scenario.model_validate(with_positions(data, where)),
                                    require_positions=True)).legal


def brute_force(data, unit_ids, cost, keep=lambda p: True):
    """The least cost over the grid candidates of the units, legal by the independent checker:
    combinations in cost order, the first legal one wins (``keep`` drops placements that cannot
    be legal, e.g. with a model centre outside the deployment zone)."""
    options = {u: sorted(filter(keep, grid_placements(data, u)), key=cost) for u in unit_ids}
    combos = sorted(itertools.product(*options.values()), key=lambda c: sum(cost(p) for p in c))
    for combo in combos:
        if legal(data, dict(zip(unit_ids, combo, strict=True))):
            return sum(cost(p) for p in combo)
    return None


def centre_cost(x, y):
    return lambda p: sum(math.hypot(mx - x, my - y) for mx, my, _ in p)


WALL = {"id": "wall", "kind": "solid", "traits": ["blocks_line_of_sight"],
        "footprint": [[6, 7], [18, 7], [18, 7.5], [6, 7.5]]}


def test_single_infiltrator_optimum_matches_brute_force_over_the_grid():
    data = small([{"id": "tac", "type": "Infantry", "models": [marine(12, 1.5)]}],
                 [{"id": "inf", "type": "Infantry", "rules": ["Infiltrate"], "setup": "infiltrate", "place": True,
                   "models": [marine(), marine()]}],
                 terrain=[WALL], goals=[{"kind": "near_point", "x": 12, "y": 2}])
    result = plan_deployment(world_of(data), EXACT)
    assert result.status == "optimal"
    assert "over the 1\" candidate grid" in result.message
    assert_plan_legal(result)
    best = brute_force(data, ["inf"], centre_cost(12, 2))
    assert best is not None
    assert result.objective == pytest.approx(best, abs=2e-3)
    # behind the wall, hidden, between 9" and 12" from the enemy
    assert 9.0 < result.placements[0].nearest_enemy <= 12.0


def test_two_units_crowding_one_spot_match_brute_force_and_report_each_term():
    zone = [{"id": "red-zone", "player": "red", "polygon": [[0, 0], [24, 0], [24, 3], [0, 3]]},
            {"id": "blue-zone", "player": "blue", "polygon": [[8, 12], [16, 12], [16, 16], [8, 16]]}]
    data = small([{"id": "tac", "type": "Infantry", "models": [marine(12, 1.5)]}],
                 [{"id": "a", "type": "Infantry", "place": True, "models": [marine(), marine()]},
                  {"id": "b", "type": "Infantry", "place": True, "models": [marine()]}],
                 zones=zone, goals=[{"kind": "near_point", "x": 12, "y": 12, "name": "front"}])
    result = plan_deployment(world_of(data), EXACT)
    assert result.status == "optimal"
    assert_plan_legal(result)
    best = brute_force(data, ["a", "b"], centre_cost(12, 12),
                       keep=lambda p: all(8 <= x <= 16 and 12 <= y <= 16 for x, y, _ in p))
    assert result.objective == pytest.approx(best, abs=2e-3)
    assert list(result.terms) == ["front"]
    assert result.terms["front"] == pytest.approx(result.objective, abs=2e-3)


def test_weighted_goals_combine_and_match_brute_force():
    objective = {"id": "obj", "x": 4, "y": 14}
    data = small([{"id": "tac", "type": "Infantry", "models": [marine(20, 1.5)]}],
                 [{"id": "sq", "type": "Infantry", "place": True, "models": [marine(), marine()]}],
                 objectives=[objective],
                 goals=[{"kind": "near_objective", "objective": "obj", "weight": 1.0},
                        {"kind": "near_enemy_unit", "unit": "tac", "weight": 0.5}])
    result = plan_deployment(world_of(data), EXACT)
    assert result.status == "optimal"
    assert_plan_legal(result)

    def cost(p):
        return sum(math.hypot(x - 4, y - 14) + 0.5 * math.hypot(x - 20, y - 1.5) for x, y, _ in p)

    assert result.objective == pytest.approx(brute_force(data, ["sq"], cost), abs=2e-3)
    assert set(result.terms) == {"near_objective obj", "near_enemy_unit tac"}
    assert sum(result.terms.values()) == pytest.approx(result.objective, abs=2e-3)


def test_no_legal_place_on_the_grid_is_the_grid_limit_naming_distance_sight_and_battlefield():
    # a 20" x 12" table with a Rapier battery in the middle: every point more than 9" from it is
    # within 12" and in plain sight (proven over the grid: unknown, limit grid, exit 3)
    data = small([{"id": "rapier", "name": "Rapier Battery", "type": "Infantry", "models": [marine(10, 6)]}],
                 [{"id": "recon", "name": "Recon Squad", "type": "Infantry", "rules": ["Infiltrate"],
                   "setup": "infiltrate", "place": True, "models": [marine()]}],
                 width=20, depth=12, zones=[
                     {"id": "red-zone", "player": "red", "polygon": [[0, 0], [20, 0], [20, 2], [0, 2]]},
                     {"id": "blue-zone", "player": "blue", "polygon": [[0, 10], [20, 10], [20, 12], [0, 12]]}])
    result = plan_deployment(world_of(data), EXACT)
    assert (result.status, result.limit, result.exit_code) == ("unknown", "grid", 3)
    (c,) = result.conflicts
    assert c.units == ["recon"]
    assert set(c.rules) == {"hh2.infiltrate.distance", "hh2.infiltrate.hidden", "hh2.battlefield"}
    assert c.message.startswith("unit Recon Squad: no position on the 1\" grid is more than 9\" from enemy unit "
                                "Rapier Battery (rapier) and out of sight of every enemy unit or more than 12\" from "
                                "them all (seen by enemy unit Rapier Battery (rapier))")
    # the brute force agrees: no grid placement passes the checker
    assert not any(legal(data, {"recon": p}) for p in grid_placements(data, "recon")[::7])


def test_hidden_in_terrain_and_control_goals():
    ruin = {"id": "ruin", "kind": "area", "traits": ["blocks_line_of_sight"],
            "footprint": [[2, 12], [6, 12], [6, 16], [2, 16]]}
    block = {"id": "block", "kind": "solid", "traits": ["blocks_line_of_sight"],
             "footprint": [[16, 10], [24, 10], [24, 11], [16, 11]]}
    data = small([{"id": "tac", "type": "Infantry", "models": [marine(20, 1.5)]}],
                 [{"id": "sq", "type": "Infantry", "place": True, "models": [marine(), marine()]}],
                 terrain=[ruin, block], objectives=[{"id": "obj", "x": 12, "y": 13}],
                 goals=[{"kind": "in_terrain", "weight": 5}, {"kind": "near_point", "x": 12, "y": 12, "weight": 0.1}])
    result = plan_deployment(world_of(data), EXACT)
    assert result.status == "optimal"
    assert_plan_legal(result)
    (g_terrain, _) = result.goals
    assert g_terrain.value == 0  # both models stand in the ruin
    assert all(2 - R32 <= m.x <= 6 + R32 for m in result.scenario.armies[1].units[0].models)

    data["goals"] = [{"kind": "hidden", "weight": 10}, {"kind": "near_point", "x": 12, "y": 12, "weight": 0.1}]
    result = plan_deployment(world_of(data), EXACT)
    assert result.status == "optimal"
    assert result.goals[0].value == 0
    planned = resolve(result.scenario, require_positions=True)
    from planner.legality.table import Table

    t = Table(planned)
    assert not t.unit_sight(t.final(planned.units["tac"]), t.final(planned.units["sq"])).visible

    data["goals"] = [{"kind": "control_objective", "objective": "obj", "weight": 10},
                     {"kind": "far_from_enemy", "unit": "tac", "cap": 30, "weight": 1}]
    result = plan_deployment(world_of(data), EXACT)
    assert result.status == "optimal"
    assert result.goals[0].value == 0
    ms = result.scenario.armies[1].units[0].models
    assert min(math.hypot(m.x - 12, m.y - 13) - R32 - 20 / 25.4 for m in ms) <= 3.0


def test_goal_errors_name_the_field():
    data = small([{"id": "tac", "type": "Infantry", "models": [marine(20, 1.5)]}],
                 [{"id": "sq", "type": "Infantry", "place": True, "models": [marine()]}],
                 goals=[{"kind": "near_enemy_unit", "unit": "nobody"}])
    with pytest.raises(ScenarioError, match=r"goals\[0\]\.unit"):
        plan_deployment(world_of(data), EXACT)
    data["goals"] = [{"kind": "near_friendly", "unit": "tac"}]
    with pytest.raises(ScenarioError, match="not a friendly unit"):
        plan_deployment(world_of(data), EXACT)
    data["goals"] = [{"kind": "near_point", "x": 1, "y": 1, "units": ["tac"]}]
    with pytest.raises(ScenarioError, match=r"goals\[0\]\.units\[0\]"):
        plan_deployment(world_of(data), EXACT)


def test_scout_redeploy_is_planned_within_6_inches_and_more_than_9_from_the_enemy():
    data = small([{"id": "tac", "type": "Infantry", "models": [marine(12, 1.5)]}],
                 [{"id": "sc", "type": "Infantry", "rules": ["Scout"], "place": True,
                   "setup": {"method": "scout", "first": "deployment_zone", "from": [[12, 14], [13.5, 14]]},
                   "models": [marine(), marine()]}],
                 goals=[{"kind": "near_point", "x": 12, "y": 0}])
    result = plan_deployment(world_of(data), EXACT)
    assert result.status == "optimal"
    assert_plan_legal(result)
    ms = result.scenario.armies[1].units[0].models
    for m, (fx, fy) in zip(ms, [(12, 14), (13.5, 14)], strict=True):
        assert math.hypot(m.x - fx, m.y - fy) <= 6.0 + 1e-9
    assert result.placements[0].nearest_enemy > 9.0
    # brute force: the best legal Scout move on the grid
    assert result.objective == pytest.approx(brute_force(data, ["sc"], centre_cost(12, 0)), abs=2e-3)


def test_progress_callback_reports_objective_and_bound():
    data = small([{"id": "tac", "type": "Infantry", "models": [marine(12, 1.5)]}],
                 [{"id": "a", "type": "Infantry", "place": True, "models": [marine(), marine()]},
                  {"id": "b", "type": "Infantry", "place": True, "models": [marine()]}],
                 goals=[{"kind": "near_point", "x": 12, "y": 12}])
    seen = []
    result = plan_deployment(world_of(data), EXACT, on_progress=lambda o, b, t: seen.append((o, b, t)))
    assert seen
    assert seen[-1][0] == pytest.approx(result.objective)
    assert seen[-1][1] == pytest.approx(result.best_bound)
    assert all(t >= 0 for _, _, t in seen)


@settings(max_examples=8, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    enemies=st.lists(st.tuples(st.floats(1, 35), st.floats(0.7, 2.3)), min_size=1, max_size=3),
    wall=st.tuples(st.floats(4, 28), st.floats(8, 16), st.floats(2, 8)),
    goal=st.sampled_from(["near_point", "hidden", "in_terrain", "control_objective", "far_from_enemy",
                          "near_enemy_unit"]),
    n_units=st.integers(1, 2),
    infiltrate=st.booleans(),
)
def test_every_plan_with_any_goal_passes_the_checker(enemies, wall, goal, n_units, infiltrate):
    kept = []
    for i, (x, y) in enumerate(enemies):
        if all(math.hypot(x - k["models"][0]["x"], y - k["models"][0]["y"]) > 1.3 for k in kept):
            kept.append({"id": f"e{i}", "type": "Infantry", "models": [marine(x, y)]})
    x, y, length = wall
    terrain = [{"id": "w", "kind": "solid", "traits": ["blocks_line_of_sight"],
                "footprint": [[x, y], [x + length, y], [x + length, y + 1], [x, y + 1]]},
               {"id": "ruin", "kind": "area", "traits": ["blocks_line_of_sight"],
                "footprint": [[28, 19], [34, 19], [34, 24], [28, 24]]}]
    goals = {"near_point": {"kind": "near_point", "x": 18, "y": 6},
             "hidden": {"kind": "hidden"},
             "in_terrain": {"kind": "in_terrain"},
             "control_objective": {"kind": "control_objective", "objective": "o"},
             "far_from_enemy": {"kind": "far_from_enemy", "unit": kept[0]["id"], "cap": 20},
             "near_enemy_unit": {"kind": "near_enemy_unit", "unit": kept[0]["id"]}}
    units = []
    for k in range(n_units):
        u = {"id": f"u{k}", "type": "Infantry", "place": True, "models": [marine() for _ in range(2 + k)]}
        if infiltrate:
            u.update(rules=["Infiltrate"], setup="infiltrate")
        units.append(u)
    data = small(kept, units, width=36, depth=24, terrain=terrain, objectives=[{"id": "o", "x": 18, "y": 12}],
                 goals=[goals[goal], {"kind": "near_point", "x": 18, "y": 12, "weight": 0.1}])
    result = plan_deployment(world_of(data), SolverSettings(time_limit_s=8, workers=1, candidates_per_unit=10))
    if result.status in ("optimal", "feasible"):
        assert_plan_legal(result)
        assert result.legal
        assert sum(result.terms.values()) == pytest.approx(result.objective, abs=0.01)
    else:
        assert result.status in ("infeasible", "unknown")


@pytest.mark.slow
def test_infiltrate_alternation_step_by_step_on_the_command_line(tmp_path):
    """plan --next places one Infiltrator at a time, alternating players, each legal against
    everything already down; the last step's file passes planner check."""
    import subprocess
    import sys
    from pathlib import Path

    import yaml

    from planner.world import load_scenario

    def inf(uid):
        return {"id": uid, "type": "Infantry", "rules": ["Infiltrate"], "setup": "infiltrate", "place": True,
                "models": [marine(), marine()]}

    data = small([{"id": "tac", "type": "Infantry", "models": [marine(20, 1.5)]}, inf("red-1")],
                 [{"id": "dev", "type": "Infantry", "models": [marine(12, 14)]}, inf("blue-1"), inf("blue-2")],
                 width=36, depth=24, terrain=[WALL], goals=[{"kind": "near_point", "x": 18, "y": 12}])
    data["deployment_zones"][1]["polygon"] = [[0, 12], [36, 12], [36, 24], [0, 24]]
    src = tmp_path / "step0.yaml"
    src.write_text(yaml.safe_dump(data))
    root = Path(__file__).resolve().parents[1]
    order = []
    for k in range(1, 4):
        out = tmp_path / f"step{k}.yaml"
        r = subprocess.run([sys.executable, "-m", "planner", "plan", str(src), "--next", "--out", str(out),
                            "--time-limit", "20", "--workers", "1"], capture_output=True, text=True, cwd=root)
        assert r.returncode == 0, r.stdout + r.stderr
        assert "Infiltrate alternation: placed" in r.stdout
        w = load_scenario(out)
        placed = [u for u in w.units.values() if u.id.startswith(("red-", "blue-")) and u.is_positioned]
        assert len(placed) == k
        new = max(placed, key=lambda u: u.setup.order)
        assert new.setup.order == k and not new.record.place
        order.append(new.player)
        assert check_deployment(w).legal
        src = out
    assert order == ["red", "blue", "blue"]  # red first (first army in the file), then alternate
    c = subprocess.run([sys.executable, "-m", "planner", "check", str(src)], capture_output=True, text=True, cwd=root)
    assert c.returncode == 0, c.stdout + c.stderr
    r = subprocess.run([sys.executable, "-m", "planner", "plan", str(src), "--next"], capture_output=True, text=True,
                       cwd=root)
    assert r.returncode == 2 and "nobody is next" in r.stderr


def test_cli_no_plan_on_the_grid_exits_3_with_the_conflict_in_the_json(tmp_path):
    import json
    import subprocess
    import sys
    from pathlib import Path

    import yaml

    data = small([{"id": "rapier", "name": "Rapier Battery", "type": "Infantry", "models": [marine(10, 6)]}],
                 [{"id": "recon", "name": "Recon Squad", "type": "Infantry", "rules": ["Infiltrate"],
                   "setup": "infiltrate", "place": True, "models": [marine()]}],
                 width=20, depth=12, zones=[
                     {"id": "red-zone", "player": "red", "polygon": [[0, 0], [20, 0], [20, 2], [0, 2]]},
                     {"id": "blue-zone", "player": "blue", "polygon": [[0, 10], [20, 10], [20, 12], [0, 12]]}])
    src = tmp_path / "in.yaml"
    src.write_text(yaml.safe_dump(data))
    out = tmp_path / "plan.yaml"
    # the fixed Rapier stands outside the red zone (an illegal table, issue #14): plan anyway
    r = subprocess.run([sys.executable, "-m", "planner", "plan", str(src), "--out", str(out), "--json",
                        str(tmp_path / "r.json"), "--workers", "1", "--time-limit", "20", "--allow-illegal-table"],
                       capture_output=True, text=True, cwd=Path(__file__).resolve().parents[1])
    assert r.returncode == 3, r.stdout + r.stderr
    assert 'Solver status: unknown - no plan on the 1" candidate grid' in r.stdout and "Recon Squad" in r.stdout
    assert not out.exists()  # no plan, nothing written
    report = json.loads((tmp_path / "r.json").read_text())
    assert (report["status"], report["limit"]) == ("unknown", "grid")
    # with the planner's default 0.1" tape-measure margin, the corners (9.04" away) are too close
    # already: distance and battlefield conflict without line of sight (margin 0: see above)
    assert set(report["conflicts"][0]["rules"]) == {"hh2.infiltrate.distance", "hh2.battlefield"}
    assert "0.1\" tape-measure margin" in report["message"]


def test_over_capacity_transport_is_infeasible_by_capacity():
    rhino = {"id": "rhino", "type": "Vehicle", "transport_capacity": 10, "place": True,
             "models": [{"base": {"length_in": 4.6, "width_in": 3.6}}]}
    squad = {"id": "tac", "type": "Infantry", "setup": {"method": "embarked", "in": "rhino"},
             "models": [marine() for _ in range(12)]}
    data = small([{"id": "e", "type": "Infantry", "models": [marine(12, 1.5)]}], [rhino, squad])
    result = plan_deployment(world_of(data), EXACT)
    assert result.status == "infeasible" and result.exit_code == 1
    (c,) = result.conflicts
    assert c.rules == ["hh2.transport.capacity"] and "12" in c.message and "10" in c.message
